package commands

import (
	"context"

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/words"
	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// resourceOps reports whether the editor creates and deletes files itself.
func (s *Service) resourceOps() bool {
	if ro, ok := s.opts.Applier.(ResourceOps); ok {
		return ro.ResourceOps()
	}
	return true
}

// via is the policy that decides how each file of an operation reaches the
// disk: nil on the command line (it writes every file itself).
func (s *Service) via() *workspace.ViaPolicy {
	if s.opts.Applier == nil {
		return nil
	}
	p := &workspace.ViaPolicy{ResourceOps: s.resourceOps()}
	if s.opts.Overlay != nil {
		p.Open = func(rel string) bool { _, ok := s.opts.Overlay.Open(rel); return ok }
	}
	return p
}

// plan turns a workspace outcome into the plan (docs/PROTOCOL.md, "The
// plan").
func (s *Service) plan(out *workspace.Outcome) *Plan {
	p := &Plan{Mode: out.Mode, Files: []PlanFile{}, Skipped: []Skipped{}}
	if t := out.Target; t != nil {
		p.Target = PlanTarget{Turn: t.Turn, Step: t.Step, Label: t.Label, Prompt: t.Prompt, Snapshot: t.Snapshot}
		if t.Entry != nil {
			p.Target.ID = t.Entry.ID
			p.Target.Kind = t.Entry.Kind
			switch {
			case t.Step > 0 && out.Mode == journal.ModeRevert:
				p.Target.Title = words.StepName(t.Turn, t.Step, t.Entry.Tool, t.Entry.Detail)
			case t.Step > 0:
				p.Target.Title = words.StepTarget(t.Turn, t.Step, t.Entry.Tool, t.Entry.Detail)
			}
		}
	}
	p.Conversation.EntriesAffected = out.EntriesAffected
	if out.Diff != nil {
		for i := range out.Diff.Ops {
			op := &out.Diff.Ops[i]
			f := PlanFile{Path: op.Path, Change: op.Change, Added: op.Added, Removed: op.Removed,
				Binary: op.Binary, Conflict: op.Conflict, Via: op.Via, Kind: op.ContentKind(), Mode: op.ModeChange()}
			f.What = words.What(f.Added, f.Removed, f.Kind, f.Mode)
			p.Files = append(p.Files, f)
		}
		for _, sk := range out.Diff.Skipped {
			p.Skipped = append(p.Skipped, Skipped{Path: sk.Path, Reason: sk.Reason})
		}
		p.diff = out.Diff.Text
	}
	p.fillWords(s.opts.Applier != nil)
	return p
}

// applyFunc adapts the Service's Applier (or the disk) to the workspace.
func (s *Service) applyFunc() workspace.ApplyFunc {
	if s.opts.Applier == nil {
		return workspace.ApplyOnDisk(s.opts.Root)
	}
	return func(ctx context.Context, label string, ops []snapshot.FileOp, tag string) error {
		ch := &Change{Root: s.opts.Root, Label: label, Tag: tag}
		for i := range ops {
			op := &ops[i]
			f := ChangeFile{FileOp: snapshot.FileOp{Path: op.Path, Change: op.Change, Via: op.Via,
				Before: op.Before, After: op.After, BeforeKind: op.BeforeKind, AfterKind: op.AfterKind}}
			if op.Change == fileop.Delete {
				f.AfterKind = 0
			}
			if op.Change == fileop.Create {
				f.BeforeKind = 0
			}
			if s.opts.Overlay != nil {
				_, f.Open = s.opts.Overlay.Open(op.Path)
			}
			ch.Files = append(ch.Files, f)
		}
		return s.opts.Applier.Apply(ctx, ch)
	}
}

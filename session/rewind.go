package session

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// Rewind modes (SPEC §3).
const (
	ModeCode         = "code"
	ModeConversation = "conversation"
	ModeBoth         = "both"
	ModeSummarize    = "summarize"
	ModePlan         = "plan"
)

// Modes lists the rewind modes.
var Modes = []string{ModeCode, ModeConversation, ModeBoth, ModeSummarize, ModePlan}

// RewindRequest describes a rewind.
type RewindRequest struct {
	Target string
	Mode   string   // "" = code
	Paths  []string // root-relative; empty = all
	// Lines, when set (with exactly one path), limits the rewind to the
	// changed hunks touching lines Lines[0]..Lines[1] (0-based protocol
	// lines, as an LSP range counts them, in the
	// current content).
	Lines  *[2]int
	Force  bool
	Report string
	Actor  string
	// RecordFirst appends the rewind entry (with its undo snapshot) before
	// the files are changed, so a crash in the middle leaves a rewind that
	// undo can take back. The command line sets it: it writes the disk
	// itself. An editor's answer is only known afterwards.
	RecordFirst bool
}

// ApplyFunc carries out the file part of a rewind or undo. It returns a
// *NotApplied when the editor or disk did not apply it.
type ApplyFunc func(ctx context.Context, label string, ops []snapshot.FileOp) error

// NotApplied reports that a change was not applied (a reason for the user).
type NotApplied struct{ Reason string }

func (e *NotApplied) Error() string { return e.Reason }

// ApplyOnDisk is the ApplyFunc of the command line: it writes the disk.
func ApplyOnDisk(root string) ApplyFunc {
	return func(ctx context.Context, label string, ops []snapshot.FileOp) error {
		return snapshot.Restore(root, ops)
	}
}

// Outcome is a plan and, for a rewind, what happened.
type Outcome struct {
	Target          *Target
	Mode            string
	Diff            *snapshot.Diff
	EntriesAffected int
	Entry           *Entry // the rewind or undo entry (nil when nothing was recorded)
	Applied         bool
	FailureReason   string
}

// RefusedError is a rewind or undo refused for a reason the user can fix.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

func checkMode(m string) (string, error) {
	if m == "" {
		return ModeCode, nil
	}
	for _, x := range Modes {
		if m == x {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown mode %q (want one of %s)", m, strings.Join(Modes, ", "))
}

// plan computes the outcome of req without changing anything; res is the
// current state, captured with the editor's buffers.
func (s *Session) plan(h *History, res *snapshot.Result, req RewindRequest) (*Outcome, error) {
	mode, err := checkMode(req.Mode)
	if err != nil {
		return nil, err
	}
	t, err := h.Resolve(req.Target)
	if err != nil {
		return nil, err
	}
	if h.Gone(t.Snapshot) {
		return nil, fmt.Errorf("target %s: its snapshot was dropped by gc", req.Target)
	}
	tid, err := snapshot.ParseID(t.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", req.Target, err)
	}
	if req.Lines != nil && len(req.Paths) != 1 {
		return nil, fmt.Errorf("a range needs exactly one path (got %d)", len(req.Paths))
	}
	var keep func(string) bool
	if len(req.Paths) > 0 {
		set := map[string]bool{}
		for _, p := range req.Paths {
			set[p] = true
		}
		keep = func(p string) bool { return set[p] }
	}
	var base *snapshot.ID
	if b := h.Baseline(); b != "" && !h.Gone(b) {
		id, err := snapshot.ParseID(b)
		if err == nil {
			base = &id
		}
	}
	out := &Outcome{Target: t, Mode: mode, Diff: &snapshot.Diff{}}
	if mode != ModeConversation && mode != ModeSummarize {
		d, err := snapshot.Compare(s.objects, res.ID, tid, base, keep)
		if err != nil {
			return nil, fmt.Errorf("plan rewind to %s: %w", req.Target, err)
		}
		out.Diff = d
	}
	if req.Lines != nil {
		limitToHunks(out.Diff, req.Lines[0], req.Lines[1])
	}
	if mode != ModeCode {
		out.EntriesAffected = h.Since(t.Point)
	}
	return out, nil
}

// limitToHunks keeps only the changed hunks overlapping the lines.
func limitToHunks(d *snapshot.Diff, first, last int) {
	var ops []snapshot.FileOp
	for _, op := range d.Ops {
		if op.Change != "modify" || op.Via != "edit" {
			continue // a hunk of a created, deleted or binary file is the whole file
		}
		cur := string(op.Before)
		after := snapshot.RevertHunks(op.Before, op.After,
			snapshot.LineOfProtocolLine(cur, first), snapshot.LineOfProtocolLine(cur, last))
		if string(after) == string(op.Before) {
			continue
		}
		op.After = after
		snapshot.FillOp(&op)
		ops = append(ops, op)
	}
	d.Ops = ops
}

// Preview returns the plan of req. overlay gives open editor buffers.
func (s *Session) Preview(ctx context.Context, req RewindRequest, overlay snapshot.Overlay) (*Outcome, error) {
	var out *Outcome
	tr := snapshot.NewTracer("preview")
	defer tr.Done()
	err := s.locked(func(l *Lock, h *History) error {
		tr.Mark("lock and journal")
		res, err := s.capture(ctx, h, overlay)
		if err != nil {
			return err
		}
		tr.Mark("capture")
		out, err = s.plan(h, res, req)
		tr.Mark("plan")
		return err
	})
	return out, err
}

func label(t *Target) string {
	switch {
	case t.Turn > 0 && t.Entry != nil && t.Entry.Kind == KindTurnEnd:
		return fmt.Sprintf("Rewind to the end of turn %d: %s", t.Turn, firstLine(t.Prompt))
	case t.Turn > 0:
		return fmt.Sprintf("Rewind to turn %d: %s", t.Turn, firstLine(t.Prompt))
	case t.Label != "":
		return "Rewind to checkpoint @" + t.Label
	}
	return "Rewind to " + t.Spec
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + "…"
	}
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

// Rewind rewinds files and/or the conversation (SPEC §3, §5.2). A turn
// still open is ended first, so the agent's work is recorded. Conflicts
// refuse the rewind unless req.Force; the outcome then says why.
func (s *Session) Rewind(ctx context.Context, req RewindRequest, overlay snapshot.Overlay, apply ApplyFunc) (*Outcome, error) {
	var out *Outcome
	err := s.locked(func(l *Lock, h *History) error {
		res, err := s.capture(ctx, h, overlay)
		if err != nil {
			return err
		}
		out, err = s.plan(h, res, req)
		if err != nil || out.Mode == ModePlan {
			return err
		}
		if out.Mode != ModeSummarize {
			// Every session's open turn ends first, so its work is recorded.
			if h, err = s.EndOpenTurns(l, h, res, req.Actor); err != nil {
				return err
			}
		}
		leaf := h.Leaf()
		t := out.Target
		if out.Mode == ModeSummarize {
			out.Entry = &Entry{Parent: leaf, Kind: KindSummary, Actor: req.Actor, Target: req.Target,
				TargetEntry: t.Entry.ID, Report: req.Report, EntriesAffected: out.EntriesAffected, Mode: out.Mode}
			out.Applied = true
			return l.Append(out.Entry)
		}
		files := out.Mode == ModeCode || out.Mode == ModeBoth
		if files {
			if cs := out.Diff.Conflicts(); len(cs) > 0 && !req.Force {
				out.FailureReason = conflictReason(cs)
				return nil
			}
			if out.Mode == ModeCode && len(out.Diff.Ops) == 0 {
				out.Applied = true // already there: nothing to change or record
				return nil
			}
		}
		e := &Entry{Parent: leaf, Kind: KindRewind, Actor: req.Actor, Target: req.Target, TargetEntry: t.Entry.ID,
			Mode: out.Mode, Report: req.Report, EntriesAffected: out.EntriesAffected, Turn: t.Turn}
		if out.Mode == ModeConversation || out.Mode == ModeBoth {
			e.Parent, e.PrevLeaf = t.Point, leaf
		}
		if files {
			if err := s.applyOps(ctx, l, res, out, e, label(t), apply, req.RecordFirst); err != nil {
				return err
			}
		} else {
			out.Applied = true
		}
		if out.Entry == nil {
			if err := l.Append(e); err != nil {
				return err
			}
			out.Entry = e
		}
		if req.Report != "" {
			return l.Append(&Entry{Parent: e.ID, Kind: KindSummary, Actor: req.Actor, Report: req.Report, Target: req.Target, TargetEntry: t.Entry.ID})
		}
		return nil
	})
	return out, err
}

// applyOps applies out's file ops and fills the rewind or undo entry e:
// its undo snapshot (res, the state before), the files, and the state
// after. With first, e is appended before the files change.
func (s *Session) applyOps(ctx context.Context, l *Lock, res *snapshot.Result, out *Outcome, e *Entry, label string, apply ApplyFunc, first bool) error {
	e.UndoSnapshot = res.ID.String()
	for _, op := range out.Diff.Ops {
		e.Files = append(e.Files, op.Path)
	}
	ops := out.Diff.Ops
	changes := map[string]*snapshot.Entry{}
	for _, op := range ops {
		if op.Change == "delete" {
			changes[op.Path] = nil
			continue
		}
		id, err := s.objects.Put(op.After)
		if err != nil {
			return err
		}
		changes[op.Path] = &snapshot.Entry{Kind: op.AfterKind, ID: id, Size: int64(len(op.After))}
	}
	after, err := snapshot.PatchTree(s.objects, res.ID, changes)
	if err != nil {
		return err
	}
	if err := s.objects.Sync(); err != nil {
		return err
	}
	if first {
		e.Snapshot = after.String()
		if err := l.Append(e); err != nil {
			return err
		}
		out.Entry = e
	}
	if len(ops) > 0 {
		s.mu.Lock()
		t := s.tracker
		s.mu.Unlock()
		if t != nil {
			t.expect(ops)
			// The editor may take its time; the echoes come after.
			defer t.expect(ops)
		}
		if err := apply(ctx, label, ops); err != nil {
			na, ok := err.(*NotApplied)
			if !ok || first {
				return fmt.Errorf("%s: %w", strings.ToLower(label[:1])+label[1:], err)
			}
			out.FailureReason = na.Reason
			f := false
			e.Applied, e.FailureReason = &f, na.Reason
			return nil
		}
	}
	e.Snapshot = after.String()
	out.Applied = true
	return nil
}

func conflictReason(paths []string) string {
	sort.Strings(paths)
	shown := paths
	if len(shown) > 5 {
		shown = shown[:5]
	}
	more := ""
	if len(paths) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(paths)-len(shown))
	}
	noun := "file was"
	if len(paths) > 1 {
		noun = "files were"
	}
	return fmt.Sprintf("conflict: %d %s edited since rewind-lsp last recorded them (%s%s); rewind with force to overwrite them (undo can bring them back)",
		len(paths), noun, strings.Join(shown, ", "), more)
}

// Undo undoes the latest rewind not yet undone: its files go back to the
// rewind's undo snapshot and a conversation it moved goes back too. Files
// edited since the rewind are conflicts, refused unless force.
func (s *Session) Undo(ctx context.Context, force, recordFirst bool, actor string, overlay snapshot.Overlay, apply ApplyFunc) (*Outcome, error) {
	var out *Outcome
	err := s.locked(func(l *Lock, h *History) error {
		res, err := s.capture(ctx, h, overlay)
		if err != nil {
			return err
		}
		var r *Entry
		for _, c := range h.UndoCandidates() {
			if c.Applied != nil && !*c.Applied && !s.leftTrace(res, c) {
				continue // the editor applied none of it: nothing to undo there
			}
			r = c
			break
		}
		if r == nil {
			return &RefusedError{Msg: "nothing to undo: no rewind is left that was not undone"}
		}
		out = &Outcome{Mode: r.Mode, Diff: &snapshot.Diff{}, Target: &Target{Spec: r.UndoSnapshot, Entry: r, Snapshot: r.UndoSnapshot}}
		e := &Entry{Parent: h.Leaf(), Kind: KindUndo, Actor: actor, Undoes: r.ID, Mode: r.Mode, Target: r.Target}
		if r.PrevLeaf != "" {
			e.Parent = r.PrevLeaf
		}
		if r.UndoSnapshot != "" && len(r.Files) > 0 {
			if h.Gone(r.UndoSnapshot) {
				return fmt.Errorf("undo: the rewind's undo snapshot was dropped by gc")
			}
			uid, err := snapshot.ParseID(r.UndoSnapshot)
			if err != nil {
				return fmt.Errorf("undo: %w", err)
			}
			var base *snapshot.ID
			if r.Snapshot != "" {
				if b, err := snapshot.ParseID(r.Snapshot); err == nil {
					base = &b
				}
			}
			set := map[string]bool{}
			for _, p := range r.Files {
				set[p] = true
			}
			d, err := snapshot.Compare(s.objects, res.ID, uid, base, func(p string) bool { return set[p] })
			if err != nil {
				return fmt.Errorf("undo: %w", err)
			}
			out.Diff = d
			if cs := d.Conflicts(); len(cs) > 0 && !force {
				out.FailureReason = conflictReason(cs)
				return nil
			}
			lbl := "Undo rewind"
			if r.Turn > 0 {
				lbl = fmt.Sprintf("Undo rewind to turn %d", r.Turn)
			}
			if err := s.applyOps(ctx, l, res, out, e, lbl, apply, recordFirst); err != nil {
				return err
			}
		} else {
			out.Applied = true
		}
		if out.Entry != nil {
			return nil
		}
		out.Entry = e
		return l.Append(e)
	})
	return out, err
}

// leftTrace reports whether a rewind the editor did not (fully) apply left
// any of its files different from its undo snapshot.
func (s *Session) leftTrace(res *snapshot.Result, r *Entry) bool {
	uid, err := snapshot.ParseID(r.UndoSnapshot)
	if err != nil || len(r.Files) == 0 {
		return false
	}
	set := map[string]bool{}
	for _, p := range r.Files {
		set[p] = true
	}
	d, err := snapshot.Compare(s.objects, res.ID, uid, nil, func(p string) bool { return set[p] })
	return err != nil || len(d.Ops) > 0
}

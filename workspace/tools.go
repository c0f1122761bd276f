package workspace

import (
	"context"
	"slices"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/store"
)

// ToolCall is one agent tool call a hook reported: which files it wrote,
// so a turn end knows what its own session wrote, and its step.
type ToolCall struct {
	Session string
	Tool    string // the tool's name: Write, Edit, Bash…
	ToolUse string // the call's id, when the agent gives one
	Phase   journal.Phase
	// Detail says what the call was about (a shell command, a file).
	Detail string
	// Paths are the root-relative files the call names as written
	// (Write/Edit/MultiEdit/NotebookEdit). Capture is set instead for
	// calls that may write anything (Bash): the state is captured before
	// and after, and what changed in between is the call's.
	Paths   []string
	Capture bool
	// Burst records an automatic turn's burst of changes (Turn: its start
	// entry) as a step of it: captured, and recorded only when it changed
	// files.
	Burst bool
	Turn  journal.EntryID
	Caller
}

// RecordTool records one phase of a tool call of an agent session as a
// tool entry (see journal.Entry), with the state of the files then: a call
// that may write anything (Capture) captures the root (what changed, in a
// running server); one that names its files, those files on top of the
// turn's last recorded state (no walk of the root), or the root in a
// running server, which knows what changed. The "post" of a call that
// changed files is a step of its session's open turn (Step, StepStart: the
// state its "pre" recorded, else the turn's last recorded state), and
// lists what the call wrote (Files). It returns the entry, or nil when
// there was nothing to record (a "pre" naming nothing). A call retried
// under its key returns the entry it recorded. How steps are recorded, and
// where they are approximate: docs/STEPS.md.
func (s *Workspace) RecordTool(ctx context.Context, c ToolCall) (*journal.Entry, error) {
	if c.Phase != journal.PhasePre && c.Phase != journal.PhasePost {
		c.Phase = journal.PhasePost
	}
	if !c.Capture && c.Phase == journal.PhasePre && len(c.Paths) == 0 {
		return nil, nil
	}
	return s.record(ctx, c.Key, journal.KindTool, func(tx *Tx) (*journal.Entry, error) {
		h := tx.History()
		open := h.OpenTurnOf(c.Session)
		if c.Burst && (open == nil || open.ID != c.Turn) {
			return nil, nil // the automatic turn ended meanwhile
		}
		start := journal.EntryID("")
		if open != nil {
			start = open.ID
		}
		e := journal.NewTool(c.Session, start, journal.ToolCall{Tool: c.Tool, ToolUse: c.ToolUse, Phase: c.Phase, Detail: c.Detail})
		e.Actor = c.Actor
		var pre *journal.Entry
		if c.Phase == journal.PhasePost {
			pre = preOf(h, c, start)
		}
		last := turnState(h, open)
		switch {
		case c.Capture || s.Live() != nil:
			res, err := tx.Capture(nil)
			if err != nil {
				return nil, err
			}
			e.Snapshot = journal.SnapOf(res.ID)
		case last.Set:
			res, err := s.capturer.CapturePaths(ctx, last.ID, c.Paths)
			if err != nil {
				return nil, err
			}
			e.Snapshot = journal.SnapOf(res.ID)
		}
		switch {
		case !c.Capture:
			e.Files = sortedSet(c.Paths)
		case pre != nil && pre.Snapshot.Set && c.Phase == journal.PhasePost:
			files, err := ChangedPaths(s.objects, pre.Snapshot.ID, e.Snapshot.ID)
			if err != nil {
				return nil, err
			}
			e.Files = files
		}
		if c.Phase == journal.PhasePost && open != nil && e.Snapshot.Set {
			if err := s.makeStep(h, open, pre, e); err != nil {
				return nil, err
			}
		}
		if c.Burst && e.Step == 0 {
			return nil, nil // the burst changed nothing (the person's saves, say)
		}
		return e, tx.Append(e)
	})
}

// makeStep makes tool entry e (its Snapshot the state after the call) a
// step of the turn started by open when the call changed files: from the
// state its pre recorded, else the turn's last recorded state.
func (s *Workspace) makeStep(h *journal.History, open, pre, e *journal.Entry) error {
	from := turnState(h, open)
	if pre != nil && pre.Snapshot.Set {
		from = pre.Snapshot
	}
	if !from.Set {
		return nil
	}
	changed, err := s.Changes(from.ID, e.Snapshot.ID)
	if err != nil || len(changed) == 0 {
		return err
	}
	e.Step, e.StepStart, e.Changed = h.LastStep(open)+1, from, changed
	return nil
}

// EndBurst appends the last burst of changes of automatic turn open as a
// step of it, res the state now, when the burst changed files.
func (tx *Tx) EndBurst(open *journal.Entry, res *snapshot.Result) error {
	e := journal.NewTool("", open.ID, journal.ToolCall{Phase: journal.PhasePost})
	e.Actor, e.Snapshot = "server", journal.SnapOf(res.ID)
	if err := tx.ws.makeStep(tx.h, open, nil, e); err != nil || e.Step == 0 {
		return err
	}
	return tx.Append(e)
}

// turnState is the last state recorded in the turn started by open: its
// latest tool entry's, else its start's (none when open is nil).
func turnState(h *journal.History, open *journal.Entry) journal.Snap {
	if open == nil {
		return journal.Snap{}
	}
	calls := h.ToolCalls(open)
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Snapshot.Set && calls[i].Start == open.ID {
			return calls[i].Snapshot
		}
	}
	return open.Snapshot
}

// preOf is the "pre" entry of call c not yet followed by its "post": the
// one with the same call id; without ids (agents that give none), the
// oldest "pre" of the same tool still waiting in the session's turn
// (start), so calls are paired in order.
func preOf(h *journal.History, c ToolCall, start journal.EntryID) *journal.Entry {
	calls := h.Calls(c.Session, c.Tool, c.ToolUse, start)
	if c.ToolUse == "" {
		var waiting []*journal.Entry
		for _, e := range calls {
			if e.Phase == journal.PhasePre {
				waiting = append(waiting, e)
			} else if len(waiting) > 0 {
				waiting = waiting[1:]
			}
		}
		if len(waiting) == 0 {
			return nil
		}
		return waiting[0]
	}
	if len(calls) == 0 || calls[len(calls)-1].Phase == journal.PhasePost {
		return nil
	}
	return calls[len(calls)-1]
}

// attribute fills end's Wrote and Attributed from the tool entries of the
// turn start: the union of what its calls wrote; a Bash call with no
// "post" (interrupted) counts what changed from its "pre" to res; and what
// the turn's own operations changed (ownturn.go).
func (s *Workspace) attribute(h *journal.History, start *journal.Entry, res *snapshot.Result, end *journal.Entry) error {
	var files []string
	pending := map[string][]*journal.Entry{} // by tool and call id; in order
	for _, e := range h.ToolCalls(start) {
		if e.IsBurst() {
			continue // an automatic turn's step: no agent reported it
		}
		end.Attributed = true
		key := e.Tool + "\x00" + e.ToolUse
		if e.Phase == journal.PhasePre {
			pending[key] = append(pending[key], e)
			continue
		}
		if len(pending[key]) > 0 {
			pending[key] = pending[key][1:]
		}
		files = append(files, e.Files...)
	}
	for _, pres := range pending {
		for _, pre := range pres {
			if len(pre.Files) > 0 || !pre.Snapshot.Set {
				files = append(files, pre.Files...) // a file tool's: the files it named
				continue
			}
			fs, err := ChangedPaths(s.objects, pre.Snapshot.ID, res.ID)
			if err != nil {
				return err
			}
			files = append(files, fs...)
		}
	}
	// The turn's own rewinds, reverts and undos changed files for it.
	files = append(files, ownOpFiles(h, start)...)
	end.Wrote = sortedSet(files)
	return nil
}

// ChangedPaths lists the paths that differ between snapshots a and b,
// sorted.
func ChangedPaths(objs *snapshot.Objects, a, b store.ID) ([]string, error) {
	diffs, err := snapshot.DiffTrees(objs, a, b)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range diffs {
		out = append(out, d.Path)
	}
	return sortedSet(out), nil
}

// sortedSet is ps sorted, without repeats or empty paths (nil for none).
func sortedSet(ps []string) []string {
	out := slices.DeleteFunc(slices.Clone(ps), func(p string) bool { return p == "" })
	slices.Sort(out)
	if out = slices.Compact(out); len(out) == 0 {
		return nil
	}
	return out
}

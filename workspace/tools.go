package workspace

import (
	"context"
	"sort"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/store"
)

// ToolCall is one agent tool call a hook reported: which files it wrote,
// so a turn end knows what its own session wrote.
type ToolCall struct {
	Session string
	Tool    string // the tool's name: Write, Edit, Bash…
	ToolUse string // the call's id, when the agent gives one
	Phase   journal.Phase
	// Paths are the root-relative files the call names as written
	// (Write/Edit/MultiEdit/NotebookEdit). Capture is set instead for
	// calls that may write anything (Bash): the state is captured before
	// and after, and what changed in between is the call's.
	Paths   []string
	Capture bool
	Actor   string
}

// RecordTool records a tool call of an agent session as a tool entry (see
// Entry), so the session's turn end can say what its tools wrote. A call
// with Capture captures the root (O(changed) in a running server); its
// "post" lists what changed since its "pre". It returns the entry, or nil
// when there was nothing to record (a "pre" of a call that names its
// paths).
func (s *Workspace) RecordTool(ctx context.Context, c ToolCall) (*journal.Entry, error) {
	if c.Phase != journal.PhasePre && c.Phase != journal.PhasePost {
		c.Phase = journal.PhasePost
	}
	if !c.Capture && c.Phase == journal.PhasePre {
		return nil, nil // its paths come with the post
	}
	var out *journal.Entry
	err := s.locked(func(l *journal.Lock, h *journal.History) error {
		start := journal.EntryID("")
		if open := h.OpenTurnOf(c.Session); open != nil {
			start = open.ID
		}
		e := journal.NewTool(c.Session, start, journal.ToolCall{Tool: c.Tool, ToolUse: c.ToolUse, Phase: c.Phase})
		e.Actor = c.Actor
		if c.Capture {
			res, err := s.capture(ctx, h, nil)
			if err != nil {
				return err
			}
			e.Snapshot = journal.SnapOf(res.ID)
			if c.Phase == journal.PhasePost {
				if pre := preOf(h, c, e.Start); pre != nil {
					files, err := s.changedPaths(pre.Snapshot.ID, e.Snapshot.ID)
					if err != nil {
						return err
					}
					e.Files = files
				}
			}
		} else {
			e.Files = sortedSet(c.Paths)
		}
		out = e
		return l.Append(e)
	})
	return out, err
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
			fs, err := s.changedPaths(pre.Snapshot.ID, res.ID)
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

// changedPaths lists the paths that differ between snapshots a and b.
func (s *Workspace) changedPaths(a, b store.ID) ([]string, error) {
	diffs, err := snapshot.DiffTrees(s.objects, a, b)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range diffs {
		out = append(out, d.Path)
	}
	return sortedSet(out), nil
}

func sortedSet(ps []string) []string {
	if len(ps) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range ps {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

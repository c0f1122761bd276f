package journal

// Turns of a History: which are open, which a turn end ends, the baseline.

import (
	"sort"
)

// Turn is one turn: its start entry and, once it ended, its end entry.
type Turn struct {
	Number    int
	Start     *Entry
	End       *Entry
	Abandoned bool // off the active branch
}

// Turns lists the turns of the active branch in order; with all, also the
// turns of abandoned branches, in journal order.
func (h *History) Turns(all bool) []Turn {
	var ts []Turn
	src := h.Branch
	if all {
		src = h.Entries
	}
	for _, e := range src {
		if e.Kind != KindTurnStart {
			continue
		}
		ts = append(ts, Turn{Number: e.Turn, Start: e, End: h.endOf(e.ID), Abandoned: !h.OnBranch(e.ID)})
	}
	return ts
}

// NextTurn is the number the next turn on the active branch gets.
func (h *History) NextTurn() int { return h.nextTurn }

// OpenTurns are the start entries of the turns open on the active branch,
// oldest first, at most one per session id (one turn may be open per
// session). A turn is open while it has no end entry and no later turn
// of the same session started on the branch (a session whose turn never
// ended, a crash, has moved on).
func (h *History) OpenTurns() []*Entry {
	var out []*Entry
	for _, e := range h.lastStart {
		if h.endOf(e.ID) == nil {
			out = append(out, e)
		}
	}
	if len(out) < 2 {
		return out
	}
	// Oldest first: in the order of the branch.
	at := make(map[*Entry]int, len(out))
	for _, e := range out {
		at[e] = h.branchIndex(e)
	}
	sort.Slice(out, func(i, j int) bool { return at[out[i]] < at[out[j]] })
	return out
}

// branchIndex is where entry e is on the active branch.
func (h *History) branchIndex(e *Entry) int {
	if h.onBranch == nil {
		h.ix.mu.RLock()
		defer h.ix.mu.RUnlock()
		if p, ok := h.ix.at(e.ID, h.n); ok && h.ix.ents[p] == e {
			return int(h.ix.depth[p])
		}
	}
	for i, b := range h.Branch {
		if b == e {
			return i
		}
	}
	return -1
}

// OpenTurn is the start entry of the latest turn open on the active
// branch, whatever its session, or nil when no turn is open.
func (h *History) OpenTurn() *Entry {
	open := h.OpenTurns()
	if len(open) == 0 {
		return nil
	}
	return open[len(open)-1]
}

// OpenTurnOf is the open turn of session id ("" is the turns opened
// without a session: the command line without --session, automatic
// turns), or nil.
func (h *History) OpenTurnOf(session string) *Entry {
	for _, e := range h.OpenTurns() {
		if e.Session == session {
			return e
		}
	}
	return nil
}

// TurnToEnd is the open turn a turn end for session ends: that session's;
// without a session, the turn opened without one, else the latest open
// turn (a person ending "the" turn by hand). nil when there is none.
func (h *History) TurnToEnd(session string) *Entry {
	if e := h.OpenTurnOf(session); e != nil || session != "" {
		return e
	}
	return h.OpenTurn()
}

// Baseline is the last state rewind-lsp recorded for the files (the
// snapshot of the latest entry that captured or changed them); a file that
// differs from it now was edited outside a turn. An operation counts by its
// done entry: the state it led to when it applied, nothing when it did not.
func (h *History) Baseline() Snap {
	for i := len(h.Entries) - 1; i >= 0; i-- {
		e := h.Entries[i]
		switch {
		case e.Kind == KindDone:
			if e.Snapshot.Set {
				return e.Snapshot
			}
		case e.Pending:
			// Its done entry (later in the journal) decides.
		case e.Kind == KindTurnStart, e.Kind == KindTurnEnd, e.Kind == KindCheckpoint, IsOperation(e.Kind):
			if e.Snapshot.Set {
				return e.Snapshot
			}
		}
	}
	return Snap{}
}

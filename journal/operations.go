package journal

// Operations of a History: rewinds, reverts and undos, whether each applied
// and which undo takes back.

import "github.com/rewind-lsp/rewind-lsp/journal/internal/view"

// Done returns the done entry of operation id, or nil (not completed, or
// recorded before operations had done entries).
func (h *History) Done(id EntryID) *Entry {
	if id == "" {
		return nil
	}
	for _, d := range h.v.Find(view.Dones, view.Hash(string(id))) {
		if e := h.at(d); e != nil && e.Of == id {
			return e
		}
	}
	return nil
}

// Unfinished lists the operations recorded before they changed files that
// have no done entry: interrupted, unless their process still runs (which
// holds the journal lock while it does).
func (h *History) Unfinished() []*Entry {
	var out []*Entry
	for _, p := range h.v.Pending {
		if e := h.at(p); e != nil {
			out = append(out, e)
		}
	}
	return out
}

// Applied reports whether operation e changed the files as planned: from
// its done entry, or for older journals its own applied field.
func (h *History) Applied(e *Entry) bool {
	if d := h.Done(e.ID); d != nil {
		return d.Applied == nil || *d.Applied
	}
	if e.Pending {
		return false
	}
	return e.Applied == nil || *e.Applied
}

// appliedAt is Applied for the operation at p, from records where it can.
func (h *History) appliedAt(p pos) bool {
	if ds := h.v.Find(view.Dones, view.Hash(h.v.IDAt(p))); len(ds) > 0 {
		return h.v.Rec(ds[0]).Flags&view.FlagApplied != 0
	}
	if h.v.Rec(p).Flags&view.FlagPending != 0 {
		return false
	}
	e := h.at(p)
	return e != nil && (e.Applied == nil || *e.Applied)
}

// FailureReason is why operation e did not apply ("" when it did).
func (h *History) FailureReason(e *Entry) string {
	if d := h.Done(e.ID); d != nil {
		return d.FailureReason
	}
	return e.FailureReason
}

// Undone reports whether operation id is undone: an undo of it is itself
// in effect (an undo that was undone in turn — a redo — no longer counts).
func (h *History) Undone(id EntryID) bool {
	p := h.idPos(id)
	return p != none && h.undone(p, map[pos]int8{})
}

// undone is Undone with memo holding the answers so far: 1 yes, 2 no, 3
// computing.
func (h *History) undone(p pos, memo map[pos]int8) bool {
	switch memo[p] {
	case 1:
		return true
	case 2:
		return false
	case 3:
		return false // a cycle (a damaged or crafted journal): not undone
	}
	memo[p] = 3
	res := false
	for _, u := range h.v.Find(view.Undos, view.Hash(h.v.IDAt(p))) {
		// An undo counts only if it comes after what it undoes.
		if u > p && h.appliedAt(u) && !h.undone(u, memo) {
			res = true
			break
		}
	}
	memo[p] = 2
	if res {
		memo[p] = 1
	}
	return res
}

// UndoCandidates calls fn with the operations `undo` may take back, best
// first, until it returns true: the rewinds and reverts still in effect,
// latest first; then the undos still in effect, latest first (undoing an
// undo is a redo, so what a forced undo overwrote stays within reach).
// Operations the editor did not apply are included; the caller checks
// whether they left traces.
func (h *History) UndoCandidates(fn func(*Entry) bool) {
	memo := map[pos]int8{}
	stop := false
	h.ofKinds(none, func(p pos) bool {
		if h.undone(p, memo) {
			return true
		}
		e := h.at(p)
		stop = e != nil && fn(e)
		return !stop
	}, view.KindRewind, view.KindRevert)
	if stop {
		return
	}
	h.ofKinds(none, func(p pos) bool {
		if h.undone(p, memo) || !h.appliedAt(p) {
			return true
		}
		e := h.at(p)
		return e == nil || !fn(e)
	}, view.KindUndo)
}

// OperationsBetween calls fn with the rewinds, reverts, undos and
// summaries written after entry `after` ("": from the first) and before
// entry `before` ("": up to the last), in journal order.
func (h *History) OperationsBetween(after, before EntryID, fn func(*Entry)) {
	stop := none
	if after != "" {
		stop = h.idPos(after)
	}
	end := h.v.N
	if before != "" {
		if b := h.idPos(before); b != none {
			end = b
		}
	}
	var ps []pos
	h.ofKinds(stop, func(p pos) bool {
		if p < end {
			ps = append(ps, p)
		}
		return true
	}, view.KindRewind, view.KindRevert, view.KindUndo, view.KindSummary)
	for i := len(ps) - 1; i >= 0; i-- {
		if e := h.at(ps[i]); e != nil {
			fn(e)
		}
	}
}

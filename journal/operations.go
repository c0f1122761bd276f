package journal

// Operations of a History: rewinds, reverts and undos, whether each applied and which undo takes back.

// ByKey returns the entry a call with idempotency key made, or nil.
func (h *History) ByKey(key string) *Entry {
	if key == "" {
		return nil
	}
	return first(h, h.ix.keys, key)
}

// Done returns the done entry of operation id, or nil (not completed, or
// recorded before operations had done entries).
func (h *History) Done(id string) *Entry { return first(h, h.ix.done, id) }

// Unfinished lists the operations recorded before they changed files that
// have no done entry: interrupted, unless their process still runs (which
// holds the journal lock while it does).
func (h *History) Unfinished() []*Entry {
	h.ix.mu.RLock()
	var pending []*Entry
	for _, p := range h.ix.ops {
		if p < h.n {
			pending = append(pending, h.ix.ents[p])
		}
	}
	h.ix.mu.RUnlock()
	var out []*Entry
	for _, e := range pending {
		if h.Done(e.ID) == nil {
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

// FailureReason is why operation e did not apply ("" when it did).
func (h *History) FailureReason(e *Entry) string {
	if d := h.Done(e.ID); d != nil {
		return d.FailureReason
	}
	return e.FailureReason
}

// Undone reports whether operation id is undone: an undo of it is itself
// in effect (an undo that was undone in turn — a redo — no longer counts).
func (h *History) Undone(id string) bool { return h.undone(id, map[string]int8{}) }

// undone is Undone with memo holding the answers so far: 1 yes, 2 no, 3
// computing.
func (h *History) undone(id string, memo map[string]int8) bool {
	switch memo[id] {
	case 1:
		return true
	case 2:
		return false
	case 3:
		return false // a cycle (a damaged or crafted journal): not undone
	}
	memo[id] = 3
	res := false
	for _, u := range h.undos(id) {
		// An undo counts only if it comes after what it undoes.
		if h.Applied(u) && h.after(u, id) && !h.undone(u.ID, memo) {
			res = true
			break
		}
	}
	memo[id] = 2
	if res {
		memo[id] = 1
	}
	return res
}

// after reports whether entry e comes after entry id in the journal.
func (h *History) after(e *Entry, id string) bool {
	return h.position(e.ID) > h.position(id)
}

// UndoCandidates are the operations `undo` may take back, best first: the
// rewinds and reverts still in effect, latest first; when none is left,
// the undos still in effect, latest first (undoing an undo is a redo, so
// what a forced undo overwrote stays within reach). Operations the editor
// did not apply are included; the caller checks whether they left traces.
func (h *History) UndoCandidates() []*Entry {
	var ops, undos []*Entry
	memo := map[string]int8{}
	for i := len(h.Entries) - 1; i >= 0; i-- {
		e := h.Entries[i]
		if !IsOperation(e.Kind) || h.undone(e.ID, memo) {
			continue
		}
		if e.Kind == KindUndo {
			if h.Applied(e) {
				undos = append(undos, e)
			}
			continue
		}
		ops = append(ops, e)
	}
	return append(ops, undos...)
}

package journal

// An agent session's entries in a History: all of them, or read one at a
// time from either end, so that a question about a session's first or
// latest entry costs what it reads, not the session's length.

import (
	"iter"
	"slices"

	"github.com/rewind-lsp/rewind-lsp/journal/internal/view"
)

// Session lists the entries of agent session sid, in journal order:
// those that name it (session, turn, tool, notice and agent-rewind
// entries). With kinds, only those kinds. It reads every one: a caller
// that wants the first or the latest uses SessionFirst, SessionLast, or
// stops early in SessionEntries or SessionNewest.
func (h *History) Session(sid string, kinds ...Kind) []*Entry {
	return slices.Collect(h.SessionEntries(sid, kinds...))
}

// SessionEntries yields the entries Session lists, in journal order,
// reading each only when it is its turn.
func (h *History) SessionEntries(sid string, kinds ...Kind) iter.Seq[*Entry] {
	return h.session(sid, kinds, false)
}

// SessionNewest yields the entries Session lists, newest first, reading
// each only when it is its turn.
func (h *History) SessionNewest(sid string, kinds ...Kind) iter.Seq[*Entry] {
	return h.session(sid, kinds, true)
}

// SessionFirst is the first entry of agent session sid (of kinds, when
// given), or nil.
func (h *History) SessionFirst(sid string, kinds ...Kind) *Entry {
	for e := range h.SessionEntries(sid, kinds...) {
		return e
	}
	return nil
}

// SessionLast is the latest entry of agent session sid (of kinds, when
// given), or nil.
func (h *History) SessionLast(sid string, kinds ...Kind) *Entry {
	for e := range h.SessionNewest(sid, kinds...) {
		return e
	}
	return nil
}

func (h *History) session(sid string, kinds []Kind, newest bool) iter.Seq[*Entry] {
	return func(yield func(*Entry) bool) {
		if sid == "" {
			return
		}
		var codes []view.Kind
		for _, k := range kinds {
			codes = append(codes, codeOf(k))
		}
		scan := h.v.Each
		if newest {
			scan = h.v.EachBack
		}
		scan(view.Sessions, view.Hash(sid), func(p pos) bool {
			if len(codes) > 0 && !slices.Contains(codes, h.v.Rec(p).Kind) {
				return true
			}
			e := h.at(p)
			return e == nil || e.Session != sid || yield(e)
		})
	}
}

package journal

// Events: the journal's changes as the people and programs that follow it
// see them (rewind-lsp events; docs/PROTOCOL.md, "Events"), read through the
// History like every other question.

import (
	"fmt"
	"slices"
)

// Event is one change of the journal worth telling whoever follows it: a
// turn start or end, a step, a checkpoint, a summary, a rewind, a revert or
// an undo. Every event is at one place in the journal, its Cursor; the
// events after a cursor are the ones written after it, so a follower that
// keeps the cursor of the last event it saw misses none and sees none twice.
type Event struct {
	// Entry is what happened.
	Entry *Entry
	// Done is the done entry that completed Entry, an operation recorded
	// pending before it changed files (nil for any other entry): the event
	// is told once the files changed, at Done's place, with how it ended.
	Done *Entry
}

// Cursor is the id of the entry the event is at: Done's for an operation
// recorded pending, else Entry's.
func (ev Event) Cursor() EntryID {
	if ev.Done != nil {
		return ev.Done.ID
	}
	return ev.Entry.ID
}

// UnknownEntryError is an id (or id prefix) no entry of the history has,
// or that more than one has.
type UnknownEntryError struct {
	ID  string
	Why string
}

func (e *UnknownEntryError) Error() string { return fmt.Sprintf("entry %q: %s", e.ID, e.Why) }

// event is the event entry e makes at its place in the journal, if any.
func (h *History) event(e *Entry) (Event, bool) {
	switch {
	case e.Damaged:
		return Event{}, false // a stand-in, not a line of the journal
	case e.Kind == KindDone:
		// An operation recorded pending is told at its done entry.
		if op := h.Entry(e.Of); op != nil && op.Pending {
			return Event{Entry: op, Done: e}, true
		}
		return Event{}, false
	case e.Kind == KindTool:
		return Event{Entry: e}, e.Step > 0 && e.Phase != PhasePre
	case IsOperation(e.Kind):
		return Event{Entry: e}, !e.Pending
	case e.Kind == KindTurnStart, e.Kind == KindTurnEnd, e.Kind == KindCheckpoint, e.Kind == KindSummary:
		return Event{Entry: e}, true
	}
	return Event{}, false
}

// Events calls fn with the events written after the entry after names (an
// id, or a unique prefix of at least 6 characters; "" for the journal's
// start), oldest first, until it returns false. An operation recorded
// pending is at its done entry: the events after its id are the ones after
// that done entry, once it has one. An id no entry has is an
// *UnknownEntryError. It reads every entry after the cursor: what it costs
// is what was appended since.
func (h *History) Events(after string, fn func(Event) bool) error {
	p := none
	if after != "" {
		e, err := h.cursorEntry(after)
		if err != nil {
			return err
		}
		p = h.posOf(e)
		if IsOperation(e.Kind) && e.Pending {
			if d := h.Done(e.ID); d != nil {
				p = max(p, h.posOf(d))
			}
		}
	}
	for p++; p < h.v.N; p++ {
		if e := h.at(p); e != nil {
			if ev, ok := h.event(e); ok && !fn(ev) {
				return nil
			}
		}
	}
	return nil
}

// cursorEntry is the entry id names: the entry with that id, else the one
// entry whose id starts with it.
func (h *History) cursorEntry(id string) (*Entry, error) {
	if e := h.Entry(EntryID(id)); e != nil && !e.Damaged {
		return e, nil
	}
	if len(id) < 6 {
		return nil, &UnknownEntryError{ID: id, Why: "no entry has that id (a prefix needs at least 6 characters)"}
	}
	switch m := h.idsWithPrefix(id); len(m) {
	case 0:
		return nil, &UnknownEntryError{ID: id, Why: "no entry has that id"}
	case 1:
		return m[0], nil
	default:
		return nil, &UnknownEntryError{ID: id, Why: ambiguous(m)}
	}
}

// LatestEvents is the latest n events (every one when n <= 0), oldest
// first. It reads the entries from the newest back until it has n.
func (h *History) LatestEvents(n int) []Event {
	var out []Event
	for p := h.v.N - 1; p >= 0 && (n <= 0 || len(out) < n); p-- {
		if e := h.at(p); e != nil {
			if ev, ok := h.event(e); ok {
				out = append(out, ev)
			}
		}
	}
	slices.Reverse(out)
	return out
}

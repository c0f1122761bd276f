package filehistory

import (
	"slices"
	"sort"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// A file's chain is what blame and revert know of one file's past: its
// states at the start and end of every ended turn on the active branch that
// wrote it (turnWrote), in journal order, each with who made the change
// that led to it. A change made while a turn that wrote the file was open
// is that turn's; anything between such turns (the person, another
// session, a rewind, a revert) is nobody's turn. Turns that did not write
// the file cost nothing here.

// State is one recorded state of a file in its chain.
type State struct {
	Entry *journal.Entry // the turn start or end whose snapshot holds the state
	// By is the turn whose change led to this state; nil for a change
	// outside the file's turns (and for the first state).
	By *journal.Turn
}

// Chain lists the chain of rel (see above). With parallel sessions two
// of the file's turns may be open at once; a change then goes to the one
// that started last.
func Chain(h *journal.History, rel string) []State {
	type event struct {
		e     *journal.Entry
		at    int
		t     *journal.Turn
		start bool
	}
	var events []event
	for _, t := range h.FileTurns(rel) {
		if !TurnWrote(t.End, rel) || !h.OnBranch(t.End.ID) {
			continue // not its session's, or ended on another branch
		}
		events = append(events, event{t.Start, h.Index(t.Start), &t, true}, event{t.End, h.Index(t.End), &t, false})
	}
	// Turns are listed by start; their ends interleave when sessions run in
	// parallel. Entries of one branch are in journal order.
	sort.SliceStable(events, func(i, j int) bool { return events[i].at < events[j].at })
	var chain []State
	var open []*journal.Turn
	for _, ev := range events {
		var by *journal.Turn
		if len(open) > 0 {
			by = open[len(open)-1]
		}
		if len(chain) == 0 {
			by = nil
		}
		chain = append(chain, State{Entry: ev.e, By: by})
		if ev.start {
			open = append(open, ev.t)
			continue
		}
		open = slices.DeleteFunc(open, func(o *journal.Turn) bool { return o.Start.ID == ev.t.Start.ID })
	}
	return chain
}

// TurnWrote reports whether the turn ended by e wrote rel: when the
// agent's hooks reported its tool calls (Attributed), the files its own
// session wrote; otherwise every file that changed during the turn.
func TurnWrote(e *journal.Entry, rel string) bool {
	if e.Attributed {
		return slices.Contains(e.Wrote, rel)
	}
	return changed(e, rel)
}

// Version is one file's entry in a state: missing, or its kind and
// content.
type Version struct {
	Exists bool
	Kind   snapshot.Kind
	ID     snapshot.ID
	Data   []byte // loaded on demand by the caller
}

// Same reports whether two versions are the same file (kind and content).
func (v Version) Same(w Version) bool {
	return v.Exists == w.Exists && (!v.Exists || v.Kind == w.Kind && v.ID == w.ID)
}

// Text reports whether the version is a regular file whose content can be
// merged line by line (missing counts as empty text).
func (v Version) Text() bool {
	return !v.Exists || (v.Kind == snapshot.KindFile || v.Kind == snapshot.KindExec) && snapshot.IsText(v.Data)
}

// Load looks rel up in snapshot snap and loads its content (nothing for a
// file whose content was not captured).
func Load(objs *snapshot.Objects, snap snapshot.ID, rel string) (Version, error) {
	e, ok, err := snapshot.Lookup(objs, snap, rel)
	if err != nil || !ok {
		return Version{}, err
	}
	v := Version{Exists: true, Kind: e.Kind, ID: e.ID}
	if e.Kind == snapshot.KindSkipped {
		return v, nil
	}
	v.Data, err = objs.Get(e.ID)
	return v, err
}

package filehistory

import (
	"slices"

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/textdiff"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// RevertFile takes back one turn's change of one file (base: the file at
// the turn's end, theirs: at its start, ours: now). It returns the result,
// or ok false for a conflict, with the conflicting regions of base when
// the file merged line by line (nil: the whole file). Creates, deletes,
// binary files, symbolic links and mode bits are taken back when nobody
// changed them since, else they conflict. With lines, only the turn's hunks
// touching those protocol lines of ours are taken back, and only in a text
// file the turn modified.
func RevertFile(base, ours, theirs Version, lines *[2]int) (Version, []textdiff.MergeConflict, bool) {
	switch {
	case ours.Same(theirs):
		return ours, nil, true // already as before the turn
	case lines != nil && !(base.Exists && theirs.Exists):
		return ours, nil, true // a range reverts hunks of modified files only
	case ours.Same(base) && (lines == nil || !base.Text() || !theirs.Text()):
		return theirs, nil, true // untouched since the turn (a range of a text file merges below: its hunks only)
	case !base.Exists || !theirs.Exists || !ours.Exists:
		return ours, nil, false // created, deleted, or deleted since: changed since
	case !base.Text() || !theirs.Text() || !ours.Text():
		return ours, nil, false // binary, a symbolic link, or not captured
	}
	kind := ours.Kind
	if base.Kind != theirs.Kind { // the turn changed the mode
		switch ours.Kind {
		case base.Kind:
			kind = theirs.Kind
		case theirs.Kind:
		default:
			return ours, nil, false
		}
	}
	lb := textdiff.SplitLines(string(base.Data))
	lo := textdiff.SplitLines(string(ours.Data))
	var pick func(textdiff.Hunk) bool
	if lines != nil {
		cur := string(ours.Data)
		first, last := textdiff.LineOfProtocolLine(cur, lines[0]), textdiff.LineOfProtocolLine(cur, lines[1])
		blo, bhi := textdiff.MapBack(textdiff.LineHunks(lb, lo), first, last)
		pick = func(h textdiff.Hunk) bool { return h.Touches(blo, bhi) }
	}
	merged, conflicts := textdiff.Merge3(lb, lo, textdiff.SplitLines(string(theirs.Data)), pick)
	if len(conflicts) > 0 {
		return ours, conflicts, false
	}
	data := []byte(merged)
	return Version{Exists: true, Kind: kind, ID: snapshot.Sum(data), Data: data}, nil, true
}

// ChangeOf is what turning from into to does to a file.
func ChangeOf(from, to Version) fileop.Change {
	switch {
	case !from.Exists:
		return fileop.Create
	case !to.Exists:
		return fileop.Delete
	}
	return fileop.Modify
}

// Overlappers names who changed file rel after span sp where its change
// lies: regions of the file at the span's end (nil: anywhere), and now is
// the current content. It follows the file's chain after the span (a
// step's: the states recorded after it, inside its turn too), then from
// its last recorded state to now.
func Overlappers(objs *snapshot.Objects, h *journal.History, rel string, sp Span, regions []textdiff.MergeConflict, now Version) ([]string, error) {
	var states []State
	if sp.End != nil { // a turn still open has no state recorded after it
		chain := Chain(h, rel)
		k := slices.IndexFunc(chain, func(st State) bool { return st.Entry.ID == sp.End.ID })
		switch {
		case k >= 0:
			states = chain[k+1:]
		case sp.Step > 0: // a step's tool entry is no state of the chain
			at := h.Index(sp.End)
			if i := slices.IndexFunc(chain, func(st State) bool { return h.Index(st.Entry) > at }); i >= 0 {
				states = chain[i:]
			}
		}
	}
	prev, err := Load(objs, sp.After.ID, rel)
	if err != nil {
		return nil, err
	}
	type span struct{ lo, hi int }
	spans := make([]span, len(regions))
	for i, r := range regions {
		spans[i] = span{r.A0, r.A1}
	}
	seen := map[string]bool{}
	var names []string
	note := func(by *journal.Turn) {
		name := words.User
		if by != nil {
			name = words.Turn(by.Number)
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	step := func(next Version, by *journal.Turn) {
		if prev.Same(next) {
			return
		}
		if regions == nil || !prev.Text() || !next.Text() {
			note(by)
			prev = next
			return
		}
		hs := textdiff.Hunks(string(prev.Data), string(next.Data))
		for i, sp := range spans {
			lo, hi, touched := textdiff.MapRegion(hs, sp.lo, sp.hi)
			if touched {
				note(by)
			}
			spans[i] = span{lo, hi}
		}
		prev = next
	}
	for _, st := range states {
		if h.Gone(st.Entry.Snapshot) {
			continue
		}
		next, err := Load(objs, st.Entry.Snapshot.ID, rel)
		if err != nil {
			return nil, err
		}
		step(next, st.By)
	}
	step(now, nil)
	if len(names) == 0 {
		names = []string{words.User}
	}
	return names, nil
}

package journal

import (
	"math/rand"
	"slices"
	"testing"
)

// TestSessionReadsFromEitherEnd: a session's entries read one at a time,
// in journal order or newest first, and its first and latest, are what
// Session lists — and Session lists what a pass over the whole history
// finds — for random and damaged journals, with and without kinds.
func TestSessionReadsFromEitherEnd(t *testing.T) {
	lowThresholds(t)
	kindSets := [][]Kind{nil, {KindTurnStart}, {KindNotice, KindTool}, {KindSession, KindTurnStart, KindTool, KindNotice}, {"unknown"}}
	for seed := int64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewSource(seed))
		ents := randomJournal(r, 40+r.Intn(120), seed%2 == 0)
		for _, e := range ents {
			if e.Kind == KindTool || e.Kind == KindNotice {
				e.Session = []string{"", "a", "b"}[r.Intn(3)]
			}
		}
		h := historyOf(t, ents)
		for _, sid := range []string{"", "a", "b", "c"} {
			for _, kinds := range kindSets {
				var want []*Entry
				h.Scan(func(e *Entry) bool {
					if sid != "" && e.Session == sid && (len(kinds) == 0 || slices.Contains(kinds, e.Kind)) {
						want = append(want, e)
					}
					return true
				})
				got := h.Session(sid, kinds...)
				if !slices.Equal(ids(got), ids(want)) {
					t.Fatalf("seed %d, session %q %v: Session %v, the whole history %v", seed, sid, kinds, ids(got), ids(want))
				}
				fwd := slices.Collect(h.SessionEntries(sid, kinds...))
				back := slices.Collect(h.SessionNewest(sid, kinds...))
				slices.Reverse(back)
				if !slices.Equal(ids(fwd), ids(want)) || !slices.Equal(ids(back), ids(want)) {
					t.Fatalf("seed %d, session %q %v: in order %v, newest first (reversed) %v, want %v", seed, sid, kinds, ids(fwd), ids(back), ids(want))
				}
				first, last := h.SessionFirst(sid, kinds...), h.SessionLast(sid, kinds...)
				if len(want) == 0 {
					if first != nil || last != nil {
						t.Fatalf("seed %d, session %q %v: first %v, last %v of none", seed, sid, kinds, first, last)
					}
					continue
				}
				if first == nil || first.ID != want[0].ID || last == nil || last.ID != want[len(want)-1].ID {
					t.Fatalf("seed %d, session %q %v: first %v, last %v, want %s and %s", seed, sid, kinds, first, last, want[0].ID, want[len(want)-1].ID)
				}
			}
		}
	}
}

func ids(es []*Entry) []EntryID {
	out := make([]EntryID, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

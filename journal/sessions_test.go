package journal

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// TestSessionReadsFromEitherEnd: a session's entries read one at a time,
// in journal order or newest first, and its first and latest, are what
// Session lists — and Session lists what a pass over the whole history
// finds — for random and damaged journals, with and without kinds, read
// after every few appends (the view in segments merged every few entries,
// and in memory) by this process and by one that loads it from disk.
func TestSessionReadsFromEitherEnd(t *testing.T) {
	lowThresholds(t)
	for seed := int64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewSource(seed))
		ents := randomJournal(r, 40+r.Intn(120), seed%2 == 0)
		for _, e := range ents {
			if e.Kind == KindTool || e.Kind == KindNotice {
				e.Session = []string{"", "a", "b"}[r.Intn(3)]
			}
		}
		dir := t.TempDir()
		j := openT(t, dir)
		for k := 0; k < len(ents); {
			step := min(1+r.Intn(9), len(ents)-k)
			appendRead(t, j, cloneEntries(ents[k:k+step])...)
			k += step
			for _, jj := range []*Journal{j, openT(t, dir)} {
				h, err := jj.History()
				if err != nil {
					t.Fatal(err)
				}
				checkSessionReads(t, h, fmt.Sprintf("seed %d, %d entries", seed, k))
			}
		}
	}
}

func checkSessionReads(t *testing.T, h *History, at string) {
	t.Helper()
	kindSets := [][]Kind{nil, {KindTurnStart}, {KindNotice, KindTool}, {KindSession, KindTurnStart, KindTool, KindNotice}, {"unknown"}}
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
				t.Fatalf("%s, session %q %v: Session %v, the whole history %v", at, sid, kinds, ids(got), ids(want))
			}
			fwd := slices.Collect(h.SessionEntries(sid, kinds...))
			back := slices.Collect(h.SessionNewest(sid, kinds...))
			slices.Reverse(back)
			if !slices.Equal(ids(fwd), ids(want)) || !slices.Equal(ids(back), ids(want)) {
				t.Fatalf("%s, session %q %v: in order %v, newest first (reversed) %v, want %v", at, sid, kinds, ids(fwd), ids(back), ids(want))
			}
			first, last := h.SessionFirst(sid, kinds...), h.SessionLast(sid, kinds...)
			if len(want) == 0 {
				if first != nil || last != nil {
					t.Fatalf("%s, session %q %v: first %v, last %v of none", at, sid, kinds, first, last)
				}
				continue
			}
			if first == nil || first.ID != want[0].ID || last == nil || last.ID != want[len(want)-1].ID {
				t.Fatalf("%s, session %q %v: first %v, last %v, want %s and %s", at, sid, kinds, first, last, want[0].ID, want[len(want)-1].ID)
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

package journal

import (
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/store"
)

// randomJournal is a journal of n entries as the writers make them: turns
// of a few sessions (some never ended), checkpoints, rewinds that move the
// leaf back, undos, their done entries, gc, tool and notice entries,
// retried calls' keys. With damage, some lines are lost (a parent, a
// turn's start) and an id appears twice, as in a damaged or forged
// journal.
func randomJournal(r *rand.Rand, n int, damage bool) []*Entry {
	var ents, tree, ops []*Entry
	open := map[string]*Entry{}
	leaf := ""
	next := 0
	id := func() string { next++; return fmt.Sprintf("0190a0b0-0000-7000-8000-%012d", next) }
	snap := func() Snap { return SnapOf(store.Sum([]byte{byte(r.Intn(40))})) }
	for len(ents) < n {
		e := &Entry{ID: id(), Parent: leaf}
		if r.Intn(6) == 0 {
			e.Key = fmt.Sprintf("key-%d", r.Intn(10))
		}
		sess := []string{"", "a", "b"}[r.Intn(3)]
		switch k := r.Intn(20); {
		case k < 7:
			e.Kind, e.Session, e.Snapshot = KindTurnStart, sess, snap()
			e.Turn = 1 + r.Intn(30)
			open[sess] = e
		case k < 13:
			s := open[sess]
			if s == nil {
				continue
			}
			e.Kind, e.Session, e.Start, e.Turn, e.Snapshot = KindTurnEnd, sess, s.ID, s.Turn, snap()
			if r.Intn(4) > 0 {
				delete(open, sess)
			}
		case k < 14:
			e.Kind, e.Label, e.Snapshot = KindCheckpoint, []string{"x", "y"}[r.Intn(2)], snap()
		case k < 16 && len(tree) > 0:
			e.Kind, e.Pending, e.Snapshot, e.UndoSnapshot = KindRewind, true, snap(), snap()
			e.Parent = tree[r.Intn(len(tree))].ID
			ops = append(ops, e)
		case k < 17 && len(ops) > 0:
			e.Kind, e.Pending, e.Undoes, e.Snapshot = KindUndo, true, ops[r.Intn(len(ops))].ID, snap()
			ops = append(ops, e)
		case k < 18 && len(ops) > 0:
			applied := r.Intn(3) > 0
			e = &Entry{ID: id(), Kind: KindDone, Of: ops[r.Intn(len(ops))].ID, Applied: &applied, Snapshot: snap()}
		case k < 19:
			e = &Entry{ID: id(), Kind: KindGC, Gone: []store.ID{store.Sum([]byte{byte(r.Intn(40))})}}
		default:
			e = &Entry{ID: id(), Kind: []string{KindTool, KindNotice}[r.Intn(2)], Key: e.Key}
		}
		ents = append(ents, e)
		if inTree(e.Kind) {
			tree = append(tree, e)
			leaf = e.ID
		}
	}
	if damage {
		for i := 0; i < 1+n/30; i++ {
			j := r.Intn(len(ents))
			ents = append(ents[:j], ents[j+1:]...) // a damaged line
		}
		if len(ents) > 4 {
			dup := *ents[r.Intn(len(ents)/2)]
			j := len(ents)/2 + r.Intn(len(ents)/2)
			ents = append(ents[:j], append([]*Entry{&dup}, ents[j:]...)...)
		}
	}
	return ents
}

// describe is everything a history answers, as text.
func describe(h *History, ents []*Entry) string {
	var b strings.Builder
	ids := func(es []*Entry) string {
		var s []string
		for _, e := range es {
			s = append(s, e.ID[len(e.ID)-4:])
		}
		return strings.Join(s, ",")
	}
	fmt.Fprintf(&b, "branch %s\nleaf %s next %d gc %d snaps %d base %v\n", ids(h.Branch), h.Leaf(), h.NextTurn(), h.GCCount(), h.SnapshotCount(), h.Baseline())
	fmt.Fprintf(&b, "open %s unfinished %s undo %s\n", ids(h.OpenTurns()), ids(h.Unfinished()), ids(h.UndoCandidates()))
	// The open turns and the next turn number as the branch says them:
	// walked back from the leaf, the latest start of each session.
	var open []*Entry
	seen := map[string]bool{}
	next := 1
	for i := len(h.Branch) - 1; i >= 0; i-- {
		e := h.Branch[i]
		if e.Kind != KindTurnStart {
			continue
		}
		if e.Turn >= next {
			next = e.Turn + 1
		}
		if !seen[e.Session] {
			seen[e.Session] = true
			if h.endOf(e.ID) == nil {
				open = append([]*Entry{e}, open...)
			}
		}
	}
	if ids(open) != ids(h.OpenTurns()) || next != h.NextTurn() {
		fmt.Fprintf(&b, "MISMATCH: open turns on the branch %s, next %d\n", ids(open), next)
	}
	for _, all := range []bool{false, true} {
		for _, t := range h.Turns(all) {
			end := ""
			if t.End != nil {
				end = t.End.ID
			}
			fmt.Fprintf(&b, "turn %d %s %s %v %v\n", t.Number, t.Start.ID, end, t.Abandoned, t.Start.Damaged)
		}
	}
	for _, e := range ents {
		fmt.Fprintf(&b, "%s %v %v %v %v %v|", e.ID[len(e.ID)-4:], h.Entry(e.ID) != nil, h.OnBranch(e.ID), h.Done(e.ID) != nil, h.Undone(e.ID), h.Gone(e.Snapshot))
	}
	for k := 0; k < 10; k++ {
		if e := h.ByKey(fmt.Sprintf("key-%d", k)); e != nil {
			fmt.Fprintf(&b, "key %d %s\n", k, e.ID)
		}
	}
	for _, spec := range []string{"~1", "~2", "1", "3", "turn:2:end", "@x", "@y"} {
		t, err := h.Resolve(spec)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", spec, err)
		} else {
			fmt.Fprintf(&b, "%s: %s %s\n", spec, t.Entry.ID, t.Point)
		}
	}
	return b.String()
}

// bridged is the history of ents found as a damaged journal's is (the
// branch walked up from the leaf, entry by entry): the reference the
// indexed branch must agree with.
func bridged(ents []*Entry) *History {
	ix := newIndex()
	ix.add(ents)
	ix.irregular = 0
	return ix.view(int32(len(ents)), nil)
}

// TestHistoryExtendAgrees: a history extended entry by entry, or a few at
// a time, as a server reads its journal after each append, answers every
// question as a history built from the whole journal at once, and as the
// branch walked entry by entry; also for damaged journals (lost lines,
// a repeated id) and for extensions of a history another was already
// extended from.
func TestHistoryExtendAgrees(t *testing.T) {
	for seed := int64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewSource(seed))
		ents := randomJournal(r, 10+r.Intn(120), seed%3 == 0)
		h := NewHistory(nil)
		var old []*History
		for k := 0; k < len(ents); {
			step := 1 + r.Intn(4)
			if k+step > len(ents) {
				step = len(ents) - k
			}
			h = h.Extend(ents[k : k+step])
			k += step
			old = append(old, h)
			want := describe(NewHistory(ents[:k]), ents[:k])
			if strings.Contains(want, "MISMATCH") {
				t.Fatalf("seed %d, %d entries:\n%s", seed, k, want)
			}
			if got := describe(h, ents[:k]); got != want {
				t.Fatalf("seed %d, %d entries: extended\n%s\nwhole\n%s", seed, k, got, want)
			}
			if got := describe(bridged(ents[:k]), ents[:k]); got != want {
				t.Fatalf("seed %d, %d entries: walked\n%s\nindexed\n%s", seed, k, got, want)
			}
		}
		// An older history extended again (a fork), and one extended by
		// entries another extension already added (With, then the
		// journal's copy of the same line).
		if len(old) > 2 {
			o := old[len(old)/2]
			other := &Entry{ID: "0190a0b0-0000-7000-8000-999999999999", Parent: o.Leaf(), Kind: KindCheckpoint, Label: "z"}
			f := o.Extend([]*Entry{other})
			all := append(append([]*Entry(nil), o.Entries...), other)
			if got, want := describe(f, all), describe(NewHistory(all), all); got != want {
				t.Fatalf("seed %d: fork\n%s\nwhole\n%s", seed, got, want)
			}
			n := len(o.Entries)
			again := o.Extend(ents[n:])
			if got, want := describe(again, ents), describe(NewHistory(ents), ents); got != want {
				t.Fatalf("seed %d: extended again\n%s\nwhole\n%s", seed, got, want)
			}
			// The older histories still answer as they did.
			if got, want := describe(o, o.Entries), describe(NewHistory(o.Entries), o.Entries); got != want {
				t.Fatalf("seed %d: an older history changed\n%s\nwhole\n%s", seed, got, want)
			}
		}
	}
}

// TestHistoryConcurrent: histories of one journal are read while it is
// extended (a server's tracker and its commands share them).
func TestHistoryConcurrent(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	ents := randomJournal(r, 400, false)
	h := NewHistory(ents[:100])
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(h *History) {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				describe(h, h.Entries)
			}
		}(h)
	}
	for k := 100; k < len(ents); k++ {
		h = h.Extend(ents[k : k+1])
	}
	wg.Wait()
	if got, want := describe(h, ents), describe(NewHistory(ents), ents); got != want {
		t.Fatalf("extended while read\n%s\nwhole\n%s", got, want)
	}
}

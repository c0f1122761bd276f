package journal

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/store"
)

// TestBranchBridgesPastEntriesOutsideTheTree: when a damaged line took a
// parent, the branch goes on from the conversation entry written before the
// child, passing over gc, tool and notice entries (no part of the tree).
func TestBranchBridgesPastEntriesOutsideTheTree(t *testing.T) {
	id := func(n int) EntryID { return EntryID(fmt.Sprintf("0190a0b0-0000-7000-8000-%012d", n)) }
	ents := []*Entry{
		{ID: id(1), Kind: KindTurnStart, Turn: 1, Snapshot: SnapOf(store.Sum([]byte("s1")))},
		{ID: id(2), Parent: id(1), Kind: KindTurnEnd, Turn: 1, Start: id(1), Snapshot: SnapOf(store.Sum([]byte("s2")))},
		// turn 2's start, id(3), was on a damaged line here
		{ID: id(4), Kind: KindTool},
		{ID: id(5), Kind: KindGC},
		{ID: id(6), Kind: KindNotice},
		{ID: id(7), Parent: id(3), Kind: KindTurnEnd, Turn: 2, Start: id(3), Snapshot: SnapOf(store.Sum([]byte("s3")))},
	}
	h := historyOf(t, ents)
	var got []string
	for p := h.v.Leaf; p != none; p = h.v.Rec(p).Parent {
		e := h.at(p)
		got = append([]string{fmt.Sprintf("%s%d", e.Kind, e.Turn)}, got...)
	}
	if s := strings.Join(got, " "); s != "turnStart1 turnEnd1 turnStart2 turnEnd2" {
		t.Fatalf("branch %s", s)
	}
	if ts := h.Turns(0, 0); len(ts) != 2 || !ts[1].Start.Damaged || ts[1].End.ID != id(7) || h.NextTurn() != 3 {
		t.Fatalf("turns %+v", ts)
	}
}

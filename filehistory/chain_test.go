package filehistory_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/filehistory"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// renderChain renders a chain as "kind turn:by" per state, by "-" for a
// change that is nobody's turn.
func renderChain(chain []filehistory.State) string {
	var parts []string
	for _, st := range chain {
		by := "-"
		if st.By != nil {
			by = fmt.Sprint(st.By.Number)
		}
		kind := "end"
		if st.Entry.Kind == journal.KindTurnStart {
			kind = "start"
		}
		parts = append(parts, fmt.Sprintf("%s%d:%s", kind, st.Entry.Turn, by))
	}
	return strings.Join(parts, " ")
}

// TestChain: a file's chain is the start and end of every ended turn that
// wrote it, in order, each with the turn whose change led to it. A turn
// that wrote other files, a turn whose own calls wrote other files while
// someone else changed this one, and a turn still open are not in it; the
// person's change between turns is nobody's.
func TestChain(t *testing.T) {
	r := newRoot(t)
	r.Write("f.txt", "a\n")
	r.turn("one", func() { r.Write("f.txt", "b\n") })
	r.turn("another file", func() { r.Write("g.txt", "g\n") })
	r.Write("f.txt", "the person's\n")
	s3 := r.start("sess-b", "its calls wrote g.txt")
	r.Write("f.txt", "someone else's, meanwhile\n")
	r.Write("g.txt", "g3\n")
	e3 := r.end(s3, "g.txt")
	r.turn("four", func() { r.Write("f.txt", "d\n") })
	r.start("sess-a", "still open")
	r.Write("f.txt", "open\n")

	if got := renderChain(filehistory.Chain(r.history(), "f.txt")); got != "start1:- end1:1 start4:- end4:4" {
		t.Fatalf("chain of f.txt: %q", got)
	}
	if got := renderChain(filehistory.Chain(r.history(), "g.txt")); got != "start2:- end2:2 start3:- end3:3" {
		t.Fatalf("chain of g.txt: %q", got)
	}
	if filehistory.TurnWrote(e3, "f.txt") || !filehistory.TurnWrote(e3, "g.txt") {
		t.Fatal("an attributed turn's end: TurnWrote must follow what its calls wrote")
	}
	if got := filehistory.Chain(r.history(), "never.txt"); len(got) != 0 {
		t.Fatalf("chain of a file no turn wrote: %q", renderChain(got))
	}
}

// TestChainParallelSessions: with two sessions' turns open at once, a
// change goes to the one that started last, and back to the other once
// that one ended.
func TestChainParallelSessions(t *testing.T) {
	r := newRoot(t)
	r.Write("f.txt", "0\n")
	a := r.start("A", "a")
	r.Write("f.txt", "1\n")
	b := r.start("B", "b")
	r.Write("f.txt", "2\n")
	r.end(b)
	r.Write("f.txt", "3\n")
	r.end(a)
	if got := renderChain(filehistory.Chain(r.history(), "f.txt")); got != "start1:- start2:1 end2:2 end1:1" {
		t.Fatalf("chain: %q", got)
	}
}

// TestChainFollowsTheActiveBranch: a turn a conversation rewind abandoned
// (it ended on a branch no longer active) leaves the file's chain; the
// turns after the rewind join it.
func TestChainFollowsTheActiveBranch(t *testing.T) {
	r := newRoot(t)
	r.Write("f.txt", "0\n")
	r.turn("one", func() { r.Write("f.txt", "1\n") })
	two := r.turn("two", func() { r.Write("f.txt", "2\n") })
	// The conversation goes back to before turn 2.
	r.append(journal.NewRewind(two.Start.Parent, "2", two.Start.ID, journal.ModeConversation))
	if r.history().OnBranch(two.End.ID) {
		t.Fatal("turn 2 is still on the active branch after the rewind")
	}
	r.turn("three", func() { r.Write("f.txt", "3\n") })
	if got := renderChain(filehistory.Chain(r.history(), "f.txt")); got != "start1:- end1:1 start3:- end3:3" {
		t.Fatalf("chain after the rewind: %q", got)
	}
	if got := r.blame("f.txt"); got != "0:3" {
		t.Fatalf("blame after the rewind and turn 3: %q", got)
	}
}

package textdiff

import (
	"math/rand"
	"strings"
	"testing"
)

// randomText makes a text of lines drawn from a small alphabet, so that
// random edits share many lines, with random line ends.
func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	ends := []string{"\n", "\n", "\n", "\r\n", ""}
	for i := 0; i < n; i++ {
		b.WriteString(string(rune('a' + r.Intn(5))))
		if i == n-1 {
			b.WriteString(ends[r.Intn(len(ends))])
		} else {
			b.WriteString(ends[r.Intn(len(ends)-1)])
		}
	}
	return b.String()
}

// TestHunksRebuild: applying every hunk of a → b gives b; applying none
// gives a; hunks are ordered and disjoint.
func TestHunksRebuild(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		a, b := randomText(r, r.Intn(12)), randomText(r, r.Intn(12))
		la, lb := SplitLines(a), SplitLines(b)
		hs := LineHunks(la, lb)
		if got := ApplyHunks(la, lb, hs); got != b {
			t.Fatalf("ApplyHunks(%q → %q, all) = %q", a, b, got)
		}
		if got := ApplyHunks(la, lb, nil); got != a {
			t.Fatalf("ApplyHunks(%q, none) = %q", a, got)
		}
		for j := 1; j < len(hs); j++ {
			if hs[j].A0 < hs[j-1].A1 || hs[j].B0 < hs[j-1].B1 {
				t.Fatalf("hunks overlap: %+v", hs)
			}
		}
		if a == b && len(hs) != 0 {
			t.Fatalf("hunks of equal texts: %+v", hs)
		}
	}
}

// TestRevertDeletedLine is the defect where the action was offered on the
// line before a deleted line and its revert changed nothing: what is
// offered is what is applied.
func TestRevertDeletedLine(t *testing.T) {
	before, now := []byte("a\nb\nc\n"), []byte("a\nc\n") // the turn deleted "b"
	for line := 0; line <= 1; line++ {
		if !RevertsAny(now, before, line, line) {
			t.Fatalf("line %d next to the deleted line: no revert offered", line)
		}
		if got := string(RevertHunks(now, before, line, line)); got != "a\nb\nc\n" {
			t.Fatalf("revert at line %d = %q, want the deleted line back", line, got)
		}
	}
	long := []byte("1\n2\n3\n4\n5\n")
	changed := []byte("1\n2\n3\n4\nFIVE\n")
	if RevertsAny(changed, long, 0, 2) {
		t.Fatal("a revert offered on lines far from any change")
	}
}

// TestRevertOnlyTouchedHunks: with several hunks, only the touched one goes
// back, for random texts and ranges, and an offer always changes the text.
func TestRevertOnlyTouchedHunks(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 2000; i++ {
		cur, tgt := randomText(r, r.Intn(15)), randomText(r, r.Intn(15))
		n := len(SplitLines(cur))
		first := r.Intn(n + 1)
		last := first + r.Intn(3)
		offered := RevertsAny([]byte(cur), []byte(tgt), first, last)
		got := string(RevertHunks([]byte(cur), []byte(tgt), first, last))
		if offered != (got != cur) {
			t.Fatalf("offered=%v but revert of %q → %q at %d..%d gave %q", offered, cur, tgt, first, last, got)
		}
		// Lines outside every touched hunk are untouched: reverting the
		// rest afterwards reaches the target.
		la, lb := SplitLines(got), SplitLines(tgt)
		if ApplyHunks(la, lb, LineHunks(la, lb)) != tgt {
			t.Fatal("no way on to the target")
		}
	}
}

func TestLineOfProtocolLine(t *testing.T) {
	text := "a\rb\r\nc\nd"
	// protocol lines: "a\r" 0, "b\r\n" 1, "c\n" 2, "d" 3; "\n" lines: "a\rb\r\n" 0, "c\n" 1, "d" 2
	for pl, want := range []int{0, 0, 1, 2, 3} {
		if got := LineOfProtocolLine(text, pl); got != want {
			t.Errorf("LineOfProtocolLine(%d) = %d, want %d", pl, got, want)
		}
	}
}

package textdiff

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

func lines(s string) []string { return SplitLines(s) }

// TestMerge3RevertsOneTurnKeepsLater is the case revert exists for: turn 2
// changed b, a later turn changed d; taking back turn 2 (base = its end,
// ours = now, theirs = its start) restores b and keeps D.
func TestMerge3RevertsOneTurnKeepsLater(t *testing.T) {
	start := "a\nb\nc\nd\ne\n"
	end := "a\nB\nc\nd\ne\n"
	now := "a\nB\nc\nD\ne\nf\n"
	got, cs := Merge3(lines(end), lines(now), lines(start), nil)
	if len(cs) != 0 || got != "a\nb\nc\nD\ne\nf\n" {
		t.Fatalf("Merge3 = %q, %v; want b back and the later D and f kept", got, cs)
	}
}

func TestMerge3Conflicts(t *testing.T) {
	for _, tc := range []struct {
		name               string
		base, ours, theirs string
		want               string
		conflicts          []MergeConflict
	}{
		{name: "same line changed on both sides",
			base: "a\nB\nc\n", ours: "a\nB2\nc\n", theirs: "a\nb\nc\n",
			conflicts: []MergeConflict{{1, 2}}},
		{name: "later change deleted the line the turn wrote",
			base: "a\nB\nc\n", ours: "a\nc\n", theirs: "a\nb\nc\n",
			conflicts: []MergeConflict{{1, 2}}},
		{name: "insertion next to the other change",
			base: "a\nB\nc\n", ours: "a\nB\nnew\nc\n", theirs: "a\nb\nc\n",
			want: "a\nb\nnew\nc\n"},
		{name: "insertion before the other change",
			base: "a\nB\nc\n", ours: "a\nb\nc\n", theirs: "a\nnew\nB\nc\n",
			want: "a\nnew\nb\nc\n"},
		{name: "insertion inside the other change",
			base: "a\nB\nB\nc\n", ours: "a\nB\nnew\nB\nc\n", theirs: "a\nb\nc\n",
			conflicts: []MergeConflict{{1, 3}}},
		{name: "both insert at the same place, differently",
			base: "a\nc\n", ours: "a\nx\nc\n", theirs: "a\ny\nc\n",
			conflicts: []MergeConflict{{1, 1}}},
		{name: "both made the same change",
			base: "a\nB\nc\n", ours: "a\nb\nc\nd\n", theirs: "a\nb\nc\n",
			want: "a\nb\nc\nd\n"},
		{name: "neighbouring lines are separate changes",
			base: "a\nB\nC\nd\n", ours: "a\nB\nC2\nd\n", theirs: "a\nb\nC\nd\n",
			want: "a\nb\nC2\nd\n"},
		{name: "no final newline on one side",
			base: "a\nB\nc\nd", ours: "a\nB\nc\nd\n", theirs: "a\nb\nc\nd",
			want: "a\nb\nc\nd\n"},
		{name: "CRLF lines",
			base: "a\r\nB\r\nc\r\nd\r\n", ours: "a\r\nB\r\nc\r\nD\r\n", theirs: "a\r\nb\r\nc\r\nd\r\n",
			want: "a\r\nb\r\nc\r\nD\r\n"},
		{name: "turn created the text, nothing later",
			base: "x\ny\n", ours: "x\ny\n", theirs: "",
			want: ""},
	} {
		got, cs := Merge3(lines(tc.base), lines(tc.ours), lines(tc.theirs), nil)
		if fmt.Sprint(cs) != fmt.Sprint(tc.conflicts) {
			t.Errorf("%s: conflicts %v, want %v", tc.name, cs, tc.conflicts)
			continue
		}
		if len(cs) == 0 && got != tc.want {
			t.Errorf("%s: merged %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestMerge3Pick: only the picked hunks of theirs are applied; the others
// neither change the text nor conflict.
func TestMerge3Pick(t *testing.T) {
	base, theirs := "A\nb\nC\nd\nE\n", "a\nb\nc\nd\ne\n"
	ours := "A\nb\nC2\nd\nE\n" // conflicts with the hunk at line 2 only
	only := func(line int) func(Hunk) bool {
		return func(h Hunk) bool { return h.Touches(line, line) }
	}
	got, cs := Merge3(lines(base), lines(ours), lines(theirs), only(4))
	if len(cs) != 0 || got != "A\nb\nC2\nd\ne\n" {
		t.Fatalf("pick line 4: %q %v", got, cs)
	}
	if _, cs := Merge3(lines(base), lines(ours), lines(theirs), only(2)); len(cs) != 1 {
		t.Fatalf("pick line 2 must conflict, got %v", cs)
	}
}

// TestMerge3Properties: merging with an unchanged side gives the other
// side; changes at least one line apart on distinct lines always merge to
// both changes.
func TestMerge3Properties(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 2000; i++ {
		b, o := randomText(r, r.Intn(12)), randomText(r, r.Intn(12))
		if got, cs := Merge3(lines(b), lines(b), lines(o), nil); len(cs) != 0 || got != o {
			t.Fatalf("Merge3(b, b, t) = %q %v, want t %q", got, cs, o)
		}
		if got, cs := Merge3(lines(b), lines(o), lines(b), nil); len(cs) != 0 || got != o {
			t.Fatalf("Merge3(b, o, b) = %q %v, want o %q", got, cs, o)
		}
		if got, cs := Merge3(lines(b), lines(o), lines(o), nil); len(cs) != 0 || got != o {
			t.Fatalf("Merge3(b, o, o) = %q %v, want o %q", got, cs, o)
		}
	}
	// Without conflicts the merge does not depend on which side is which.
	for i := 0; i < 5000; i++ {
		b, o, th := randomText(r, r.Intn(10)), randomText(r, r.Intn(10)), randomText(r, r.Intn(10))
		m1, c1 := Merge3(lines(b), lines(o), lines(th), nil)
		m2, c2 := Merge3(lines(b), lines(th), lines(o), nil)
		if (len(c1) == 0) != (len(c2) == 0) || m1 != m2 {
			t.Fatalf("Merge3(%q, %q, %q) = %q %v, swapped %q %v", b, o, th, m1, c1, m2, c2)
		}
	}
	for i := 0; i < 2000; i++ {
		n := 1 + r.Intn(20)
		base := make([]string, n)
		for k := range base {
			base[k] = fmt.Sprintf("line %d\n", k)
		}
		// Each line goes to ours, to theirs or to neither; a line changed by
		// one side is never next to a line changed by the other.
		owner := make([]int, n)
		for k := range owner {
			owner[k] = r.Intn(3) // 0 neither, 1 ours, 2 theirs
			if k > 0 && owner[k] != 0 && owner[k-1] != 0 && owner[k] != owner[k-1] {
				owner[k] = 0
			}
		}
		var ours, theirs, want []string
		for k, l := range base {
			edited := strings.TrimSuffix(l, "\n") + " edited\n"
			switch owner[k] {
			case 0:
				ours, theirs, want = append(ours, l), append(theirs, l), append(want, l)
			case 1:
				ours, theirs, want = append(ours, edited), append(theirs, l), append(want, edited)
			case 2:
				ours, theirs, want = append(ours, l), append(theirs, edited), append(want, edited)
			}
		}
		got, cs := Merge3(base, ours, theirs, nil)
		if len(cs) != 0 || got != strings.Join(want, "") {
			t.Fatalf("owners %v: merged %q %v, want %q", owner, got, cs, strings.Join(want, ""))
		}
	}
}

func TestMapBack(t *testing.T) {
	// a → b: line 1 replaced by two lines, a line inserted after line 3.
	a := lines("0\n1\n2\n3\n4\n")
	b := lines("0\nx\ny\n2\n3\nnew\n4\n")
	hs := LineHunks(a, b)
	for _, tc := range []struct{ first, last, lo, hi int }{
		{0, 0, 0, 0}, // unchanged
		{1, 1, 1, 1}, // inside the replacement
		{2, 2, 1, 1},
		{3, 4, 2, 3},
		{5, 5, 3, 4}, // the inserted line: the lines on either side
		{6, 6, 4, 4},
	} {
		lo, hi := MapBack(hs, tc.first, tc.last)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("MapBack(%d..%d) = %d..%d, want %d..%d", tc.first, tc.last, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestMapRegion(t *testing.T) {
	// a → b: line 1 replaced by two lines, a line inserted before line 4.
	a := lines("0\n1\n2\n3\n4\n5\n")
	b := lines("0\nx\ny\n2\n3\nnew\n4\n5\n")
	hs := LineHunks(a, b)
	for _, tc := range []struct {
		lo, hi, nlo, nhi int
		touched          bool
	}{
		{0, 1, 0, 1, false}, // before every change
		{5, 6, 7, 8, false}, // after them: shifted
		{1, 2, 1, 3, true},  // the replaced line
		{2, 3, 3, 4, false}, // between the changes
		{3, 4, 4, 5, false}, // line 3 is next to the insertion: untouched
		{4, 4, 5, 6, true},  // the insertion's own gap
		{0, 6, 0, 8, true},  // everything
		{2, 2, 3, 3, false}, // a gap next to the replacement
	} {
		nlo, nhi, touched := MapRegion(hs, tc.lo, tc.hi)
		if nlo != tc.nlo || nhi != tc.nhi || touched != tc.touched {
			t.Errorf("MapRegion(%d, %d) = %d, %d, %v; want %d, %d, %v", tc.lo, tc.hi, nlo, nhi, touched, tc.nlo, tc.nhi, tc.touched)
		}
	}
}

package textdiff

import (
	"math/rand"
	"strings"
	"testing"
)

// TestLineCountsAgreeWithHunks: the counts are those of the hunks of the
// whole texts (what a diff shows), for texts that share a start, an end,
// both or neither, with and without a last line break, and empty ones;
// the same from bytes as from strings.
func TestLineCountsAgreeWithHunks(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	pieces := []string{"a\n", "b\n", "a", "b", "\n", "ab\n", "", "c\n"}
	text := func() string {
		var b strings.Builder
		for n := r.Intn(6); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		return b.String()
	}
	for i := 0; i < 20000; i++ {
		pre, mid1, mid2, suf := text(), text(), text(), text()
		a, b := pre+mid1+suf, pre+mid2+suf
		var wantAdd, wantRem int
		if a != b {
			for _, h := range LineHunks(SplitLines(a), SplitLines(b)) {
				wantRem += h.A1 - h.A0
				wantAdd += h.B1 - h.B0
			}
		}
		add, rem := LineCounts(a, b)
		badd, brem := LineCounts([]byte(a), []byte(b))
		if add != wantAdd || rem != wantRem || badd != add || brem != rem {
			t.Fatalf("LineCounts(%q, %q) = +%d -%d (bytes +%d -%d), the hunks say +%d -%d", a, b, add, rem, badd, brem, wantAdd, wantRem)
		}
	}
}

package textdiff

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// This file is the project's one line-diff engine. Everything that talks
// about changed lines — the unified diff text of a plan, the line counts of
// a turn, the "Revert this hunk" action (both offering it and applying it),
// the editor's minimal TextEdits, three-way merges and blame — is computed
// from Hunks, so what is offered is what is applied.

// Hunk replaces lines [A0, A1) of a text a with lines [B0, B1) of a text b.
// Lines end after each "\n" (see SplitLines). A0 == A1 is a pure insertion
// before line A0 of a; B0 == B1 a pure deletion.
type Hunk struct{ A0, A1, B0, B1 int }

const (
	// hunkTimeout bounds the diff. When it is hit the hunks are still
	// correct, only coarser; it is explicit because go-diff's default
	// makes the output depend on the machine's speed.
	hunkTimeout = 2 * time.Second
	// maxDistinctLines is past what go-diff's line mode can number (one
	// rune per distinct line; it panics past ~1.11 M): bigger texts are
	// one hunk replacing everything.
	maxDistinctLines = 1_000_000
)

// SplitLines splits s after each "\n", keeping the breaks; the last line
// has none when s does not end with one. An empty s has no lines. A "\r\n"
// stays inside its line, as in git.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Hunks returns the changed line hunks that turn a into b, in order and
// never overlapping: go-diff's line mode, which gives the smallest correct
// edits.
func Hunks(a, b string) []Hunk {
	if a == b {
		return nil
	}
	return LineHunks(SplitLines(a), SplitLines(b))
}

// LineHunks is Hunks for texts already split by SplitLines.
func LineHunks(a, b []string) []Hunk {
	// Equal lines at both ends are common and cheap to skip.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma) == 0 && len(mb) == 0 {
		return nil
	}
	shift := func(hs []Hunk) []Hunk {
		for i := range hs {
			hs[i].A0 += pre
			hs[i].A1 += pre
			hs[i].B0 += pre
			hs[i].B1 += pre
		}
		return hs
	}
	if len(ma) == 0 || len(mb) == 0 {
		return shift([]Hunk{{0, len(ma), 0, len(mb)}})
	}
	ids := make(map[string]rune, len(ma))
	encode := func(lines []string) ([]rune, bool) {
		rs := make([]rune, len(lines))
		for i, l := range lines {
			r, seen := ids[l]
			if !seen {
				if len(ids) >= maxDistinctLines {
					return nil, false
				}
				r = lineRune(len(ids))
				ids[l] = r
			}
			rs[i] = r
		}
		return rs, true
	}
	ra, okA := encode(ma)
	rb, okB := encode(mb)
	if !okA || !okB {
		return shift([]Hunk{{0, len(ma), 0, len(mb)}})
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = hunkTimeout
	diffs := dmp.DiffMainRunes(ra, rb, false)

	var hunks []Hunk
	ai, bi := 0, 0
	open := false
	var cur Hunk
	for _, d := range diffs {
		n := utf8.RuneCountInString(d.Text)
		if d.Type == diffmatchpatch.DiffEqual {
			if open {
				cur.A1, cur.B1 = ai, bi
				hunks = append(hunks, cur)
				open = false
			}
			ai += n
			bi += n
			continue
		}
		if !open {
			cur, open = Hunk{A0: ai, B0: bi}, true
		}
		if d.Type == diffmatchpatch.DiffDelete {
			ai += n
		} else {
			bi += n
		}
	}
	if open {
		cur.A1, cur.B1 = ai, bi
		hunks = append(hunks, cur)
	}
	return shift(hunks)
}

// lineRune maps the n-th distinct line to a valid rune, skipping the
// surrogate range so the rune survives conversion to a string.
func lineRune(n int) rune {
	r := rune(n)
	if r >= 0xD800 {
		r += 0x800
	}
	return r
}

// Touches reports whether the hunk touches lines first..last (0-based,
// inclusive) of its a side. A pure insertion sits between two lines and
// touches the lines on either side of its gap.
func (h Hunk) Touches(first, last int) bool {
	if last < first {
		first, last = last, first
	}
	if h.A0 == h.A1 {
		return first <= h.A0 && h.A0-1 <= last
	}
	return h.A0 <= last && first <= h.A1-1
}

// HunksTouching keeps the hunks of a → b that touch lines first..last of a.
func HunksTouching(hunks []Hunk, first, last int) []Hunk {
	var out []Hunk
	for _, h := range hunks {
		if h.Touches(first, last) {
			out = append(out, h)
		}
	}
	return out
}

// ApplyHunks returns a with the given hunks of a → b applied (b's lines in
// place of a's). hunks must come from Hunks(a, b), in order; any subset
// may be given.
func ApplyHunks(a, b []string, hunks []Hunk) string {
	var sb strings.Builder
	at := 0
	for _, h := range hunks {
		for _, l := range a[at:h.A0] {
			sb.WriteString(l)
		}
		for _, l := range b[h.B0:h.B1] {
			sb.WriteString(l)
		}
		at = h.A1
	}
	for _, l := range a[at:] {
		sb.WriteString(l)
	}
	return sb.String()
}

// RevertHunks returns before with only the hunks of before → after that
// touch lines first..last (0-based, inclusive, in before) replaced by
// after's lines: "Revert this hunk" both decides with Touches and applies
// with this, so an offered hunk is always the one reverted.
func RevertHunks(before, after []byte, first, last int) []byte {
	la, lb := SplitLines(string(before)), SplitLines(string(after))
	hs := HunksTouching(LineHunks(la, lb), first, last)
	if len(hs) == 0 {
		return before
	}
	return []byte(ApplyHunks(la, lb, hs))
}

// LineOfProtocolLine converts a line number in the Language Server
// Protocol's sense (where "\n", "\r\n" and a lone "\r" each end a line) to
// the line of text as SplitLines counts them (only "\n" ends a line). Lines
// past the end map past the end.
func LineOfProtocolLine(text string, line int) int {
	n, at := 0, 0
	for i := 0; i < len(text) && n < line; i++ {
		switch text[i] {
		case '\n':
			n++
			at = i + 1
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue // the "\n" ends this line
			}
			n++
			at = i + 1
		}
	}
	// Lines past the end count on from the last line.
	return strings.Count(text[:at], "\n") + (line - n)
}

// RevertsAny reports whether reverting the hunks of current → target that
// touch protocol lines first..last of current changes anything: the
// "Revert this hunk" action is offered exactly when the rewind it runs
// would change the file.
func RevertsAny(current, target []byte, first, last int) bool {
	c := string(current)
	f, l := LineOfProtocolLine(c, first), LineOfProtocolLine(c, last)
	return string(RevertHunks(current, target, f, l)) != c
}

package lsp

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

const (
	// diffTimeout bounds the line diff. When it is hit the edits are still
	// correct, only coarser; it is explicit because go-diff's default makes
	// the output depend on the machine's speed for no benefit.
	diffTimeout = 2 * time.Second
	// maxDiffLines is the line count past which a document is replaced
	// whole: go-diff encodes each distinct line as one rune, and the rune
	// space (minus surrogates) holds about 1.1 M of them.
	maxDiffLines = 1_000_000
)

// splitLines splits text into lines that keep their terminators ("\n",
// "\r\n" or a lone "\r"); the last line has none when the text does not end
// with one. An empty text has no lines.
func splitLines(text string) []string {
	n := strings.Count(text, "\n") + 1
	if n < 16 {
		n = 16
	}
	lines := make([]string, 0, n)
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '\n' && c != '\r' {
			continue
		}
		i += lineEndAt(text, i) - 1
		lines = append(lines, text[start:i+1])
		start = i + 1
	}
	if start < len(text) {
		lines = append(lines, text[start:])
	}
	if len(lines) == 0 {
		return nil
	}
	return lines
}

// lineRune maps the n-th distinct line to a valid rune, skipping the
// surrogate range so the rune survives conversion to a string.
func lineRune(n int) (rune, bool) {
	r := rune(n)
	if r >= 0xD800 {
		r += 0x800
	}
	return r, r <= utf8.MaxRune
}

// lineHunk replaces lines [A0, A1) of the old text with lines [B0, B1) of
// the new text.
type lineHunk struct{ A0, A1, B0, B1 int }

// diffLines computes the line hunks turning a into b. ok is false when the
// texts are too large to diff by line; the caller then replaces a whole.
func diffLines(a, b []string) (hunks []lineHunk, ok bool) {
	if len(a)+len(b) > 2*maxDiffLines {
		return nil, false
	}
	ids := make(map[string]rune, len(a))
	encode := func(lines []string) ([]rune, bool) {
		rs := make([]rune, len(lines))
		for i, l := range lines {
			r, seen := ids[l]
			if !seen {
				var valid bool
				if r, valid = lineRune(len(ids)); !valid {
					return nil, false
				}
				ids[l] = r
			}
			rs[i] = r
		}
		return rs, true
	}
	ra, okA := encode(a)
	rb, okB := encode(b)
	if !okA || !okB {
		return nil, false
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	diffs := dmp.DiffMainRunes(ra, rb, false)

	ai, bi := 0, 0
	var cur *lineHunk
	flush := func() {
		if cur != nil {
			cur.A1, cur.B1 = ai, bi
			hunks = append(hunks, *cur)
			cur = nil
		}
	}
	for _, d := range diffs {
		n := utf8.RuneCountInString(d.Text)
		if d.Type == diffmatchpatch.DiffEqual {
			flush()
			ai += n
			bi += n
			continue
		}
		if cur == nil {
			cur = &lineHunk{A0: ai, B0: bi}
		}
		if d.Type == diffmatchpatch.DiffDelete {
			ai += n
		} else {
			bi += n
		}
	}
	flush()
	return hunks, true
}

// endPosition is the position of the end of text, whose lines are lines.
func endPosition(lines []string, enc encoding) Position {
	if len(lines) == 0 {
		return Position{}
	}
	last := lines[len(lines)-1]
	if n := len(last); last[n-1] == '\n' || last[n-1] == '\r' {
		return Position{Line: len(lines)}
	}
	return Position{Line: len(lines) - 1, Character: unitsIn(last, enc)}
}

// computeEdits returns minimal line-level edits that turn a into b. Every
// edit starts at the beginning of a line; only an edit reaching the end of a
// text without a final line break ends mid-line. Very large texts get one
// edit replacing everything.
func computeEdits(a, b string, enc encoding) []TextEdit {
	if a == b {
		return []TextEdit{}
	}
	la, lb := splitLines(a), splitLines(b)
	hunks, ok := diffLines(la, lb)
	if !ok {
		return []TextEdit{{Range: Range{End: endPosition(la, enc)}, NewText: b}}
	}
	pos := func(line int) Position {
		if line >= len(la) {
			return endPosition(la, enc)
		}
		return Position{Line: line}
	}
	edits := make([]TextEdit, 0, len(hunks))
	for _, h := range hunks {
		edits = append(edits, TextEdit{
			Range:   Range{Start: pos(h.A0), End: pos(h.A1)},
			NewText: strings.Join(lb[h.B0:h.B1], ""),
		})
	}
	return edits
}

// applyEdits applies edits, all relative to text, as a client would. Edits
// must not overlap; edits at the same start keep their order.
func applyEdits(text string, edits []TextEdit, enc encoding) (string, error) {
	type span struct {
		start, end int
		newText    string
		idx        int
	}
	spans := make([]span, len(edits))
	for i, e := range edits {
		s, err := offsetAt(text, e.Range.Start, enc)
		if err != nil {
			return "", fmt.Errorf("edit %d: start: %w", i, err)
		}
		end, err := offsetAt(text, e.Range.End, enc)
		if err != nil {
			return "", fmt.Errorf("edit %d: end: %w", i, err)
		}
		if end < s {
			return "", fmt.Errorf("edit %d: end %d:%d before start %d:%d", i,
				e.Range.End.Line, e.Range.End.Character, e.Range.Start.Line, e.Range.Start.Character)
		}
		spans[i] = span{s, end, e.NewText, i}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var sb strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.start < last {
			return "", fmt.Errorf("edit %d overlaps the edit before it", sp.idx)
		}
		sb.WriteString(text[last:sp.start])
		sb.WriteString(sp.newText)
		last = sp.end
	}
	sb.WriteString(text[last:])
	return sb.String(), nil
}

// editableText reports whether content can travel as a TextEdit: valid
// UTF-8 without NUL bytes. Anything else is restored on disk.
func editableText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c == 0 {
			return false
		}
	}
	return true
}

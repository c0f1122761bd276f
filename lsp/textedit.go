package lsp

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rewind-lsp/rewind-lsp/textdiff"
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

// computeEdits returns minimal line-level edits that turn a into b, from
// the project's one hunk engine (textdiff.LineHunks) over the protocol's
// lines. Every edit starts at the beginning of a line; only an edit
// reaching the end of a text without a final line break ends mid-line.
func computeEdits(a, b string, enc encoding) []TextEdit {
	if a == b {
		return []TextEdit{}
	}
	la, lb := splitLines(a), splitLines(b)
	hunks := textdiff.LineHunks(la, lb)
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

package testkit

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ApplyEdits is the editor's own edit application, written independently
// of the server's: strict about positions (an edit past the end of a line,
// inside a surrogate pair or between "\r" and "\n" is an error), so a wrong
// position from the server fails the test instead of being clamped.
// Positions count UTF-16 code units, or bytes with useUTF8.
func ApplyEdits(text string, edits []TextEdit, useUTF8 bool) (string, error) {
	type span struct {
		s, e int
		t    string
	}
	lines := editorLines(text)
	var spans []span
	for _, te := range edits {
		s, err := editorOffset(text, lines, te.Range.Start, useUTF8)
		if err != nil {
			return "", err
		}
		en, err := editorOffset(text, lines, te.Range.End, useUTF8)
		if err != nil {
			return "", err
		}
		if en < s {
			return "", fmt.Errorf("range end before start: %+v", te.Range)
		}
		spans = append(spans, span{s, en, te.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].s < spans[j].s })
	var sb strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.s < last {
			return "", fmt.Errorf("overlapping edits")
		}
		sb.WriteString(text[last:sp.s])
		sb.WriteString(sp.t)
		last = sp.e
	}
	sb.WriteString(text[last:])
	return sb.String(), nil
}

// editorLine is the content range of one line (without its terminator).
type editorLine struct{ start, end int }

func editorLines(text string) []editorLine {
	var lines []editorLine
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			lines = append(lines, editorLine{start, i})
			start = i + 1
		case '\r':
			lines = append(lines, editorLine{start, i})
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	return append(lines, editorLine{start, len(text)})
}

func editorOffset(text string, lines []editorLine, pos Position, useUTF8 bool) (int, error) {
	if pos.Line >= len(lines) {
		return 0, fmt.Errorf("line %d past the end (%d lines)", pos.Line, len(lines))
	}
	l := lines[pos.Line]
	content := text[l.start:l.end]
	if useUTF8 {
		if pos.Character > len(content) || !utf8.ValidString(content[:pos.Character]) {
			return 0, fmt.Errorf("bad utf-8 character %d on line %d", pos.Character, pos.Line)
		}
		return l.start + pos.Character, nil
	}
	units := utf16.Encode([]rune(content))
	if pos.Character > len(units) {
		return 0, fmt.Errorf("character %d past the end of line %d (%d units)", pos.Character, pos.Line, len(units))
	}
	prefix := string(utf16.Decode(units[:pos.Character]))
	if strings.ContainsRune(prefix, utf8.RuneError) && !strings.ContainsRune(content, utf8.RuneError) {
		return 0, fmt.Errorf("character %d on line %d splits a surrogate pair", pos.Character, pos.Line)
	}
	return l.start + len(prefix), nil
}

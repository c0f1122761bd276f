package lsp

import (
	"fmt"
	"unicode/utf8"
)

// encoding is the unit of Position.Character negotiated with the client.
type encoding int

const (
	// encUTF16 counts UTF-16 code units: the protocol's default.
	encUTF16 encoding = iota
	// encUTF8 counts bytes, when the client offers "utf-8".
	encUTF8
)

// String is the protocol name of the encoding.
func (e encoding) String() string {
	if e == encUTF8 {
		return "utf-8"
	}
	return "utf-16"
}

// Line ends, as the protocol defines them: "\n", "\r\n" and a lone "\r" all
// end a line. An offset is never placed between the "\r" and "\n" of a
// "\r\n", nor inside a UTF-8 sequence.

// lineEndAt reports the length of the line terminator starting at byte i of
// text (0 when there is none).
func lineEndAt(text string, i int) int {
	switch text[i] {
	case '\n':
		return 1
	case '\r':
		if i+1 < len(text) && text[i+1] == '\n' {
			return 2
		}
		return 1
	}
	return 0
}

// lineStart returns the byte offset where line starts, or ok=false when the
// text has fewer lines.
func lineStart(text string, line int) (int, bool) {
	if line == 0 {
		return 0, true
	}
	n := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '\n' && c != '\r' {
			continue
		}
		i += lineEndAt(text, i) - 1
		n++
		if n == line {
			return i + 1, true
		}
	}
	return len(text), false
}

// lineContentEnd returns the offset of the first line terminator at or after
// start, or the end of text.
func lineContentEnd(text string, start int) int {
	for i := start; i < len(text); i++ {
		if text[i] == '\n' || text[i] == '\r' {
			return i
		}
	}
	return len(text)
}

// unitsOf is the width of one rune of n bytes in enc. Invalid UTF-8 bytes
// count as one unit each (they read as U+FFFD, which is one UTF-16 unit).
func unitsOf(r rune, size int, enc encoding) int {
	if enc == encUTF8 {
		return size
	}
	if r >= 0x10000 && size == 4 {
		return 2
	}
	return 1
}

// offsetAt converts pos to a byte offset in text. A character past the end
// of its line means the end of the line (before its terminator); a line past
// the end of the text means the end of the text. A character inside a rune
// (the middle of a surrogate pair or of a UTF-8 sequence) is moved back to
// the start of that rune.
func offsetAt(text string, pos Position, enc encoding) (int, error) {
	if pos.Line < 0 || pos.Character < 0 {
		return 0, fmt.Errorf("invalid position %d:%d: negative", pos.Line, pos.Character)
	}
	start, ok := lineStart(text, pos.Line)
	if !ok {
		return len(text), nil
	}
	end := lineContentEnd(text, start)
	units := 0
	for i := start; i < end; {
		if units >= pos.Character {
			return i, nil
		}
		r, size := utf8.DecodeRuneInString(text[i:end])
		w := unitsOf(r, size, enc)
		if units+w > pos.Character {
			return i, nil // inside this rune: its start
		}
		units += w
		i += size
	}
	return end, nil
}

// positionAt converts a byte offset in text to a position. An offset past
// the text is the end of the text; an offset between "\r" and "\n" is the
// end of that line's content; an offset inside a rune is that rune's start.
func positionAt(text string, off int, enc encoding) Position {
	if off > len(text) {
		off = len(text)
	}
	if off < 0 {
		off = 0
	}
	line, start := 0, 0
	for i := 0; i < off; i++ {
		c := text[i]
		if c != '\n' && c != '\r' {
			continue
		}
		n := lineEndAt(text, i)
		if i+n > off { // off sits between "\r" and "\n"
			off = i
			break
		}
		i += n - 1
		line++
		start = i + 1
	}
	units := 0
	for i := start; i < off; {
		r, size := utf8.DecodeRuneInString(text[i:])
		if i+size > off {
			break // off is inside this rune: count up to its start
		}
		units += unitsOf(r, size, enc)
		i += size
	}
	return Position{Line: line, Character: units}
}

// unitsIn is the length of s in enc units.
func unitsIn(s string, enc encoding) int {
	if enc == encUTF8 {
		return len(s)
	}
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		n += unitsOf(r, size, enc)
		i += size
	}
	return n
}

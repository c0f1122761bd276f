package lsp

import (
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestOffsetAt(t *testing.T) {
	text := "a😀b\r\nxé\ry\n\nlast"
	tests := []struct {
		pos  Position
		enc  encoding
		want int
	}{
		{Position{0, 0}, encUTF16, 0},
		{Position{0, 1}, encUTF16, 1},
		{Position{0, 2}, encUTF16, 1}, // inside the surrogate pair: rune start
		{Position{0, 3}, encUTF16, 5},
		{Position{0, 4}, encUTF16, 6},  // end of line content, before \r\n
		{Position{0, 99}, encUTF16, 6}, // clamped to the line
		{Position{1, 0}, encUTF16, 8},
		{Position{1, 2}, encUTF16, 11},
		{Position{2, 0}, encUTF16, 12}, // after the lone \r
		{Position{3, 0}, encUTF16, 14},
		{Position{4, 0}, encUTF16, 15},
		{Position{4, 4}, encUTF16, 19},
		{Position{9, 0}, encUTF16, 19}, // past the end
		{Position{0, 5}, encUTF8, 5},
		{Position{0, 3}, encUTF8, 1}, // inside the UTF-8 sequence
		{Position{1, 3}, encUTF8, 11},
	}
	for _, tt := range tests {
		got, err := offsetAt(text, tt.pos, tt.enc)
		if err != nil || got != tt.want {
			t.Errorf("offsetAt(%v, %v) = %d, %v; want %d", tt.pos, tt.enc, got, err, tt.want)
		}
	}
	if _, err := offsetAt(text, Position{-1, 0}, encUTF16); err == nil {
		t.Error("negative line: want an error")
	}
}

func TestPositionAt(t *testing.T) {
	text := "a😀b\r\nxé\ry\n"
	tests := []struct {
		off  int
		enc  encoding
		want Position
	}{
		{0, encUTF16, Position{0, 0}},
		{5, encUTF16, Position{0, 3}},
		{6, encUTF16, Position{0, 4}},
		{7, encUTF16, Position{0, 4}}, // between \r and \n
		{8, encUTF16, Position{1, 0}},
		{11, encUTF16, Position{1, 2}},
		{12, encUTF16, Position{2, 0}},
		{14, encUTF16, Position{3, 0}},
		{99, encUTF16, Position{3, 0}},
		{11, encUTF8, Position{1, 3}},
	}
	for _, tt := range tests {
		if got := positionAt(text, tt.off, tt.enc); got != tt.want {
			t.Errorf("positionAt(%d, %v) = %v; want %v", tt.off, tt.enc, got, tt.want)
		}
	}
}

// utf16Units is an independent count of UTF-16 units, for the fuzz target.
func utf16Units(s string) int {
	return len(utf16.Encode([]rune(s)))
}

// FuzzPosition checks that byte offsets at rune boundaries survive a round
// trip through positions in both encodings, that positions never split a
// "\r\n", and that the character count agrees with unicode/utf16.
func FuzzPosition(f *testing.F) {
	f.Add("a😀b\r\nxé\ry\n\nlast", 3)
	f.Add("\r\n\r\r\n\n", 2)
	f.Add("𝄞\r𝄞\n", 5)
	f.Add("\xff\xfe\r\n", 1)
	f.Fuzz(func(t *testing.T, text string, off int) {
		if len(text) == 0 {
			off = 0
		} else {
			off = ((off % (len(text) + 1)) + len(text) + 1) % (len(text) + 1)
		}
		for _, enc := range []encoding{encUTF16, encUTF8} {
			pos := positionAt(text, off, enc)
			back, err := offsetAt(text, pos, enc)
			if err != nil {
				t.Fatalf("offsetAt(%v): %v", pos, err)
			}
			if back > off {
				t.Fatalf("%v: offset %d -> %v -> %d: moved forward", enc, off, pos, back)
			}
			if back > 0 && back < len(text) && text[back-1] == '\r' && text[back] == '\n' {
				t.Fatalf("%v: offset %d lands inside \\r\\n", enc, back)
			}
			boundary := off == len(text) || utf8.RuneStart(text[off]) && utf8.ValidString(text)
			crlfMiddle := off > 0 && off < len(text) && text[off-1] == '\r' && text[off] == '\n'
			if boundary && !crlfMiddle && back != off {
				t.Fatalf("%v: offset %d -> %v -> %d", enc, off, pos, back)
			}
			if enc == encUTF16 && utf8.ValidString(text) && boundary && !crlfMiddle {
				start, _ := lineStart(text, pos.Line)
				if want := utf16Units(text[start:off]); pos.Character != want {
					t.Fatalf("character %d, utf16 says %d", pos.Character, want)
				}
			}
		}
	})
}

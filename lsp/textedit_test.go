package lsp

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

func TestSplitLines(t *testing.T) {
	got := splitLines("a\r\nb\rc\n\nd")
	want := []string{"a\r\n", "b\r", "c\n", "\n", "d"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("splitLines = %q; want %q", got, want)
	}
	if got := splitLines(""); len(got) != 0 {
		t.Fatalf("splitLines(\"\") = %q", got)
	}
}

func TestComputeEdits(t *testing.T) {
	tests := []struct {
		name, a, b string
		want       []TextEdit
	}{
		{"equal", "x\n", "x\n", []TextEdit{}},
		{"modify middle", "a\nb\nc\n", "a\nB\nc\n",
			[]TextEdit{{Range{Position{1, 0}, Position{2, 0}}, "B\n"}}},
		{"append at end", "a\n", "a\nb\n",
			[]TextEdit{{Range{Position{1, 0}, Position{1, 0}}, "b\n"}}},
		{"no final newline", "a\nb", "a\nc",
			[]TextEdit{{Range{Position{1, 0}, Position{1, 1}}, "c"}}},
		{"emoji before change", "😀x\nb\n", "😀x\nc\n",
			[]TextEdit{{Range{Position{1, 0}, Position{2, 0}}, "c\n"}}},
		{"last line astral", "a\n😀", "b\n😀",
			[]TextEdit{{Range{Position{0, 0}, Position{1, 0}}, "b\n"}}},
		{"delete all", "a\n😀", "",
			[]TextEdit{{Range{Position{0, 0}, Position{1, 2}}, ""}}},
		{"from empty", "", "a\n",
			[]TextEdit{{Range{Position{0, 0}, Position{0, 0}}, "a\n"}}},
		{"crlf", "a\r\nb\r\nc\r\n", "a\r\nc\r\n",
			[]TextEdit{{Range{Position{1, 0}, Position{2, 0}}, ""}}},
		{"lone cr", "a\rb\rc", "a\rB\rc",
			[]TextEdit{{Range{Position{1, 0}, Position{2, 0}}, "B\r"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := computeEdits(tt.a, tt.b, encUTF16)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("computeEdits = %+v; want %+v", got, tt.want)
			}
			checkApply(t, tt.a, tt.b, encUTF16)
			checkApply(t, tt.a, tt.b, encUTF8)
		})
	}
}

func checkApply(t *testing.T, a, b string, enc encoding) {
	t.Helper()
	edits := computeEdits(a, b, enc)
	got, err := applyEdits(a, edits, enc)
	if err != nil {
		t.Fatalf("%v: applyEdits: %v (edits %+v)", enc, err, edits)
	}
	if got != b {
		t.Fatalf("%v: applyEdits(computeEdits(a, b), a) = %q; want %q (edits %+v)", enc, got, b, edits)
	}
}

func TestComputeEditsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "b", "😀", "é", "\n", "\r\n", "\r", "x\n", "𝄞"}
	gen := func() string {
		var sb strings.Builder
		for n := rng.Intn(30); n > 0; n-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		return sb.String()
	}
	for i := 0; i < 3000; i++ {
		checkApply(t, gen(), gen(), encoding(i%2))
	}
}

func TestComputeEditsMinimal(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&a, "line %d of the file\n", i)
		if i%100 == 7 {
			fmt.Fprintf(&b, "changed line %d\n", i)
		} else {
			fmt.Fprintf(&b, "line %d of the file\n", i)
		}
	}
	edits := computeEdits(a.String(), b.String(), encUTF16)
	if len(edits) != 10 {
		t.Fatalf("got %d edits; want 10", len(edits))
	}
	for _, e := range edits {
		if e.Range.End.Line-e.Range.Start.Line != 1 {
			t.Fatalf("edit %+v spans more than the changed line", e)
		}
	}
}

// FuzzEdits checks Apply(ComputeEdits(a, b), a) == b in both encodings.
func FuzzEdits(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("a\r\nb", "a\rb\r\n")
	f.Add("😀\n𝄞", "𝄞\n😀\n")
	f.Add("", "x")
	f.Add("\r", "\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, enc := range []encoding{encUTF16, encUTF8} {
			edits := computeEdits(a, b, enc)
			got, err := applyEdits(a, edits, enc)
			if err != nil {
				t.Fatalf("%v: %v", enc, err)
			}
			if got != b {
				t.Fatalf("%v: got %q; want %q (edits %+v)", enc, got, b, edits)
			}
		}
	})
}

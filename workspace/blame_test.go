package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/filehistory"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// ws is a sandbox with its workspace open, for tests that play turns.
type ws struct {
	*testkit.Sandbox
	t testing.TB
	s *Workspace
}

func newWS(t testing.TB) *ws {
	sb := testkit.NewSandbox(t)
	s, err := Open(sb.Root, sb.Store, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &ws{Sandbox: sb, t: t, s: s}
}

// turn plays one agent turn that runs edit.
func (w *ws) turn(prompt string, edit func()) {
	w.t.Helper()
	ctx := context.Background()
	if _, err := w.s.TurnStart(ctx, TurnRequest{Prompt: prompt, Source: "cli", Session: "sess-a"}); err != nil {
		w.t.Fatal(err)
	}
	edit()
	if end, _, err := w.s.TurnEnd(ctx, TurnRequest{}); err != nil || end == nil {
		w.t.Fatalf("turn end: %v", err)
	}
}

// blame renders the blame of rel's disk content as "line:turn" for every
// owned line.
func (w *ws) blame(rel string) string {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.Root, rel))
	rs, berr := w.s.Blame(rel, data, err == nil)
	if berr != nil {
		w.t.Fatal(berr)
	}
	return renderBlame(rs)
}

func renderBlame(rs []filehistory.Range) string {
	var parts []string
	for _, r := range rs {
		for l := r.StartLine; l < r.EndLine; l++ {
			parts = append(parts, fmt.Sprintf("%d:%d", l, r.Turn.Number))
		}
	}
	return strings.Join(parts, " ")
}

// TestBlameTurnsAndPerson: the lines each turn wrote are its own until
// someone changes them; lines the person wrote and lines from before the
// first turn are nobody's.
func TestBlameTurnsAndPerson(t *testing.T) {
	w := newWS(t)
	w.Write("f.txt", "a\nb\nc\nd\ne\n")
	w.turn("one", func() { w.Write("f.txt", "A\nb\nc\nd\ne\n") })
	w.turn("two", func() { w.Write("f.txt", "A\nb\nC\nd\ne\n") })
	if got := w.blame("f.txt"); got != "0:1 2:2" {
		t.Fatalf("after two turns: %q", got)
	}
	w.Write("f.txt", "A\nb\nC!\nd\ne\n") // the person edits turn 2's line
	if got := w.blame("f.txt"); got != "0:1" {
		t.Fatalf("after the person's edit: %q", got)
	}
	w.turn("three", func() { w.Write("f.txt", "A\nb\nC!\nd\nE\nnew\n") })
	if got := w.blame("f.txt"); got != "0:1 4:3 5:3" {
		t.Fatalf("after turn three: %q", got)
	}
	// An open buffer's text is what blame describes.
	rs, err := w.s.Blame("f.txt", []byte("top\nA\nb\nC!\nd\nE\nnew\n"), true)
	if err != nil || renderBlame(rs) != "1:1 5:3 6:3" {
		t.Fatalf("with a buffer holding one more line on top: %q %v", renderBlame(rs), err)
	}
	if rs[0].Turn.Start.Prompt != "one" || rs[0].Turn.Start.Session != "sess-a" || rs[0].Turn.End == nil {
		t.Fatalf("range turn: %+v", rs[0].Turn.Start)
	}
}

// TestBlameAfterRewindAndUndo: a rewind brings back earlier lines with
// their owners, and undo gives the rewound lines back to their turns.
func TestBlameAfterRewindAndUndo(t *testing.T) {
	ctx := context.Background()
	w := newWS(t)
	w.Write("f.txt", "a\nb\nc\n")
	w.turn("one", func() { w.Write("f.txt", "A\nb\nc\n") })
	w.turn("two", func() { w.Write("f.txt", "A2\nB\nc\n") })
	if _, err := w.s.Rewind(ctx, RewindRequest{Target: "2"}, nil, ApplyOnDisk(w.Root)); err != nil {
		t.Fatal(err)
	}
	if got := w.blame("f.txt"); got != "0:1" {
		t.Fatalf("after rewinding turn 2: %q", got)
	}
	if _, err := w.s.Undo(ctx, UndoRequest{Caller: Caller{Actor: "t"}}, nil, ApplyOnDisk(w.Root)); err != nil {
		t.Fatal(err)
	}
	if got := w.blame("f.txt"); got != "0:2 1:2" {
		t.Fatalf("after undo: %q", got)
	}
	// Rewound again, then a later turn: the line turn 1 wrote is turn 1's
	// again, though turn 2 had changed it.
	if _, err := w.s.Rewind(ctx, RewindRequest{Target: "2"}, nil, ApplyOnDisk(w.Root)); err != nil {
		t.Fatal(err)
	}
	w.turn("three", func() { w.Write("f.txt", "A\nb\nC\n") })
	if got := w.blame("f.txt"); got != "0:1 2:3" {
		t.Fatalf("after the rewind and turn 3: %q", got)
	}
}

// TestBlameLineEnds: ranges count protocol lines, where a lone "\r" ends a
// line too; binary files and missing files have no owned lines.
func TestBlameLineEnds(t *testing.T) {
	w := newWS(t)
	w.Write("f.txt", "x\r\n")
	w.turn("one", func() { w.Write("f.txt", "x\r\nold\rmac\nnew\n") })
	if got := w.blame("f.txt"); got != "1:1 2:1 3:1" {
		t.Fatalf("lone CR: %q", got)
	}
	w.turn("bin", func() { w.Write("b.bin", "a\x00b\n") })
	if got := w.blame("b.bin"); got != "" {
		t.Fatalf("binary: %q", got)
	}
	if rs, err := w.s.Blame("missing.txt", nil, false); err != nil || len(rs) != 0 {
		t.Fatalf("missing: %v %v", rs, err)
	}
}

// TestBlameIncremental: a cached blame is extended by later turns and
// gives the same answer as a fresh one.
func TestBlameIncremental(t *testing.T) {
	w := newWS(t)
	w.Write("f.txt", "0\n1\n2\n3\n4\n5\n6\n7\n")
	for i := 0; i < 8; i++ {
		i := i
		w.turn(fmt.Sprint("turn ", i), func() {
			lines := strings.Split(strings.TrimSuffix(w.Read("f.txt"), "\n"), "\n")
			lines[i] = fmt.Sprintf("line %d by turn %d", i, i+1)
			w.Write("f.txt", strings.Join(lines, "\n")+"\n")
		})
		cached := w.blame("f.txt")
		fresh, err := Open(w.Root, w.s.Dir(), 0)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(w.Root, "f.txt"))
		rs, err := fresh.Blame("f.txt", data, true)
		if err != nil || renderBlame(rs) != cached {
			t.Fatalf("after %d turns: cached %q, fresh %q (%v)", i+1, cached, renderBlame(rs), err)
		}
		var want []string
		for l := 0; l <= i; l++ {
			want = append(want, fmt.Sprintf("%d:%d", l, l+1))
		}
		if cached != strings.Join(want, " ") {
			t.Fatalf("after %d turns: %q, want %q", i+1, cached, strings.Join(want, " "))
		}
	}
}

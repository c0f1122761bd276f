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

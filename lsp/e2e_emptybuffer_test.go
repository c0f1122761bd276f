package lsp

import (
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestNeovimEmptyBuffer: Neovim keeps the buffer of an empty file as one empty line and
// reports its text as "\n". That buffer holds the empty file: it is no
// conflict and no change, a rewind leaves it alone, and an undo that fills
// the file edits the buffer and applies.
func TestNeovimEmptyBuffer(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("empty.txt", "")
	w.Write("a.txt", "a\n")
	srv, c := testkit.StartServer(w)
	e := testkit.NewEditor(t, c, testkit.NeovimLike)
	e.Server = srv
	e.SetClientName("Neovim")
	e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store})
	openAsNeovim := func(rel string) { e.OpenText(w.Abs(rel), "\n", "text") }
	openAsNeovim("empty.txt")

	// A turn that leaves empty.txt alone: the open buffer is no change.
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "change a"}, nil)
	w.Write("a.txt", "A\n")
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	var plan commands.Plan
	e.MustCmd(commands.NamePreview, map[string]any{"target": "1"}, &plan)
	if len(plan.Files) != 1 || plan.Files[0].Path != "a.txt" || plan.Files[0].Conflict {
		t.Fatalf("plan with an empty buffer open: %+v; want only a.txt, no conflict", plan.Files)
	}

	// The suite's case: a turn fills the closed file, a rewind empties it,
	// Neovim opens it ("\n"), undo fills it again.
	e.Close(w.Abs("empty.txt"))
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "fill it"}, nil)
	w.Write("empty.txt", "filled\n")
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"target": "~1"}, &rr)
	waitSaved(t, e)
	if !rr.Applied || w.State()["empty.txt"].Data != "" {
		t.Fatalf("rewind emptying the file: applied=%v %s, empty.txt %q", rr.Applied, rr.FailureReason, w.State()["empty.txt"].Data)
	}
	openAsNeovim("empty.txt")
	e.MustCmd(commands.NameUndo, map[string]any{}, &rr)
	if !rr.Applied {
		t.Fatalf("undo with the empty file open in Neovim: %s", rr.FailureReason)
	}
	waitSaved(t, e)
	if got, _ := e.Text(w.Abs("empty.txt")); got != "filled\n" {
		t.Fatalf("buffer after the undo: %q", got)
	}
	if got := w.State()["empty.txt"].Data; got != "filled\n" {
		t.Fatalf("empty.txt after the undo: %q", got)
	}
	e.MustCmd(commands.NamePreview, map[string]any{"target": "turn:2:end"}, &plan)
	if len(plan.Files) != 0 {
		t.Fatalf("after the undo the plan to the end of turn 2 has %+v", plan.Files)
	}
}

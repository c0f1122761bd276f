package lsp

import (
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// TestNeovimEmptyBuffer: Neovim keeps the buffer of an empty file as one empty line and
// reports its text as "\n". That buffer holds the empty file: it is no
// conflict and no change, a rewind leaves it alone, and an undo that fills
// the file edits the buffer and applies.
func TestNeovimEmptyBuffer(t *testing.T) {
	w := newWsp(t)
	w.write("empty.txt", "", 0o644)
	w.write("a.txt", "a\n", 0o644)
	srv, c := startBinary(t, w.home)
	e := newEditor(t, c, neovimLike)
	e.srv, e.clientName = srv, "Neovim"
	e.initialize([]string{w.root}, map[string]any{"storeDir": w.store})
	openAsNeovim := func(rel string) {
		b := &buffer{uri: uriFromPath(w.abs(rel)), text: "\n", version: 1, synced: true}
		e.mu.Lock()
		e.bufs[w.abs(rel)] = b
		e.mu.Unlock()
		e.c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": b.uri, "languageId": "text", "version": b.version, "text": b.text}})
	}
	openAsNeovim("empty.txt")

	// A turn that leaves empty.txt alone: the open buffer is no change.
	e.mustCmd(commands.NameTurnStart, map[string]any{"prompt": "change a"}, nil)
	w.write("a.txt", "A\n", 0o644)
	e.mustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	var plan commands.Plan
	e.mustCmd(commands.NamePreview, map[string]any{"target": "1"}, &plan)
	if len(plan.Files) != 1 || plan.Files[0].Path != "a.txt" || plan.Files[0].Conflict {
		t.Fatalf("plan with an empty buffer open: %+v; want only a.txt, no conflict", plan.Files)
	}

	// The suite's case: a turn fills the closed file, a rewind empties it,
	// Neovim opens it ("\n"), undo fills it again.
	e.mu.Lock()
	delete(e.bufs, w.abs("empty.txt"))
	e.mu.Unlock()
	e.c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uriFromPath(w.abs("empty.txt"))}})
	e.mustCmd(commands.NameTurnStart, map[string]any{"prompt": "fill it"}, nil)
	w.write("empty.txt", "filled\n", 0o644)
	e.mustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	var rr commands.RewindResult
	e.mustCmd(commands.NameRewind, map[string]any{"target": "~1"}, &rr)
	waitSaved(t, e)
	if !rr.Applied || w.state()["empty.txt"].Data != "" {
		t.Fatalf("rewind emptying the file: applied=%v %s, empty.txt %q", rr.Applied, rr.FailureReason, w.state()["empty.txt"].Data)
	}
	openAsNeovim("empty.txt")
	e.mustCmd(commands.NameUndo, map[string]any{}, &rr)
	if !rr.Applied {
		t.Fatalf("undo with the empty file open in Neovim: %s", rr.FailureReason)
	}
	waitSaved(t, e)
	if got, _ := e.text(w.abs("empty.txt")); got != "filled\n" {
		t.Fatalf("buffer after the undo: %q", got)
	}
	if got := w.state()["empty.txt"].Data; got != "filled\n" {
		t.Fatalf("empty.txt after the undo: %q", got)
	}
	e.mustCmd(commands.NamePreview, map[string]any{"target": "turn:2:end"}, &plan)
	if len(plan.Files) != 0 {
		t.Fatalf("after the undo the plan to the end of turn 2 has %+v", plan.Files)
	}
}

package lsp

import (
	"encoding/json"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// TestHunkActionNextToDeletedLine: a turn deleted line "b" of a/b/c. The
// hunk action is offered on the lines around the gap, and running it brings
// "b" back: the action is offered only where running it changes the file
// (one engine both offers and applies it).
func TestHunkActionNextToDeletedLine(t *testing.T) {
	w := newWsp(t)
	w.write("f.txt", "a\nb\nc\n", 0o644)
	_, e := startServer(t, w, vscodeLike)
	e.open(w.abs("f.txt"))
	e.mustCmd(commands.NameTurnStart, map[string]any{"prompt": "drop b"}, nil)
	w.write("f.txt", "a\nc\n", 0o644)
	e.reload(w.abs("f.txt"))
	e.mustCmd(commands.NameTurnEnd, map[string]any{}, nil)

	uri := uriFromPath(w.abs("f.txt"))
	hunkAction := func(line int) *codeAction {
		var list []codeAction
		params := map[string]any{"textDocument": map[string]any{"uri": uri},
			"range": Range{Position{line, 0}, Position{line, 0}}, "context": map[string]any{"diagnostics": []any{}}}
		if err := e.c.call("textDocument/codeAction", params, &list); err != nil {
			t.Fatal(err)
		}
		for i := range list {
			if list[i].Title == "Revert this hunk to before turn 1" {
				return &list[i]
			}
		}
		return nil
	}
	a := hunkAction(0)
	if a == nil {
		t.Fatal("no hunk action on the line before the deleted line")
	}
	if hunkAction(1) == nil {
		t.Fatal("no hunk action on the line after the deleted line")
	}
	var arg map[string]any
	json.Unmarshal(mustJSON(a.Command.Arguments[0]), &arg)
	var rr commands.RewindResult
	e.mustCmd(a.Command.Command, arg, &rr)
	if !rr.Applied || len(rr.Plan.Files) != 1 {
		t.Fatalf("hunk revert: applied=%v reason=%q files=%+v", rr.Applied, rr.FailureReason, rr.Plan.Files)
	}
	waitSaved(t, e)
	if got, _ := e.text(w.abs("f.txt")); got != "a\nb\nc\n" {
		t.Fatalf("after the hunk revert the buffer holds %q; want the deleted line back", got)
	}
}

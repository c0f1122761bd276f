package lsp

import (
	"encoding/json"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/env"
)

// TestHunkActionNextToDeletedLine: a turn deleted line "b" of a/b/c. The
// hunk action is offered on the lines around the gap, and running it brings
// "b" back: the action is offered only where running it changes the file
// (one engine both offers and applies it).
func TestHunkActionNextToDeletedLine(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("f.txt", "a\nb\nc\n")
	_, e := startServer(t, w, testkit.VSCodeLike)
	e.Open(w.Abs("f.txt"))
	env.OverEditor(t, w, e).Turn("drop b", map[string]string{"f.txt": "a\nc\n"})

	uri := testkit.URI(w.Abs("f.txt"))
	hunkAction := func(line int) *codeAction {
		var list []codeAction
		params := map[string]any{"textDocument": map[string]any{"uri": uri},
			"range": Range{Position{line, 0}, Position{line, 0}}, "context": map[string]any{"diagnostics": []any{}}}
		if err := e.Conn.Call("textDocument/codeAction", params, &list); err != nil {
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
	e.MustCmd(a.Command.Command, arg, &rr)
	if !rr.Applied || len(rr.Plan.Files) != 1 {
		t.Fatalf("hunk revert: applied=%v reason=%q files=%+v", rr.Applied, rr.FailureReason, rr.Plan.Files)
	}
	waitSaved(t, e)
	if got, _ := e.Text(w.Abs("f.txt")); got != "a\nb\nc\n" {
		t.Fatalf("after the hunk revert the buffer holds %q; want the deleted line back", got)
	}
}

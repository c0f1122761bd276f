package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestStepHoverAndRevertStepHere: a turn whose two file-tool calls, reported
// through rewind.toolCall, each wrote one line of a file. Hover on the
// first line names step 1 and links its revert; the code actions on it
// offer "Revert step 1 of turn 1 here", which takes back that line alone
// (step 2's line stays), and undo brings it back.
func TestStepHoverAndRevertStepHere(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("f.txt", "a\nb\nc\n")
	_, e := startServer(t, w, testkit.VSCodeLike)
	f := w.Abs("f.txt")
	e.Open(f)
	uri := testkit.URI(f)
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "shout a and c", "session": "S"}, nil)
	for i, text := range []string{"A\nb\nc\n", "A\nb\nC\n"} {
		id := []string{"call-1", "call-2"}[i]
		e.MustCmd(commands.NameToolCall, map[string]any{"session": "S", "tool": "Edit", "toolUse": id, "phase": "pre", "paths": []string{"f.txt"}}, nil)
		w.Write("f.txt", text)
		e.Reload(f)
		e.MustCmd(commands.NameToolCall, map[string]any{"session": "S", "tool": "Edit", "toolUse": id, "phase": "post", "paths": []string{"f.txt"}, "detail": "f.txt"}, nil)
	}
	e.MustCmd(commands.NameTurnEnd, map[string]any{"session": "S"}, nil)

	var raw json.RawMessage
	if err := e.Conn.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": Position{0, 0}}, &raw); err != nil {
		t.Fatal(err)
	}
	var h hoverResult
	json.Unmarshal(raw, &h)
	if !strings.Contains(h.Contents.Value, `Agent turn 1, step 1: Edit f\.txt`) || !strings.Contains(h.Contents.Value, "Revert step 1 of turn 1 in this file") {
		t.Fatalf("hover on step 1's line: %s", raw)
	}

	var list []codeAction
	if err := e.Conn.Call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": Range{Position{0, 0}, Position{0, 0}}, "context": map[string]any{"diagnostics": []any{}}}, &list); err != nil {
		t.Fatal(err)
	}
	var a *codeAction
	var titles []string
	for i := range list {
		titles = append(titles, list[i].Title)
		if list[i].Title == "Revert step 1 of turn 1 here (Edit f.txt)" {
			a = &list[i]
		}
	}
	if a == nil {
		t.Fatalf("no step action on step 1's line: %q", titles)
	}
	var arg map[string]any
	json.Unmarshal(mustJSON(a.Command.Arguments[0]), &arg)
	var rr commands.RewindResult
	e.MustCmd(a.Command.Command, arg, &rr)
	if !rr.Applied {
		t.Fatalf("revert step here: %q", rr.FailureReason)
	}
	if got, _ := e.Text(f); got != "a\nb\nC\n" {
		t.Fatalf("after reverting step 1 at line 0: %q (step 2's line must stay)", got)
	}
	e.MustCmd(commands.NameUndo, map[string]any{}, &rr)
	if got, _ := e.Text(f); got != "A\nb\nC\n" {
		t.Fatalf("after undo: %q", got)
	}
}

package workspace_test

import (
	"testing"

	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// An agent whose hooks cannot tell when a prompt is sent (droid exec,
// Cline) opens the prompt's turn at whichever of its events comes first:
// each later event of the same prompt finds the turn there, open or ended,
// and a turn end that arrives after the next prompt's turn opened ends
// nothing.
func TestEnsureOpensOneTurnPerPrompt(t *testing.T) {
	f := newSessFixture(t)
	ensure := func(prompt, id string) int {
		t.Helper()
		e, err := f.s.TurnStart(f.ctx, workspace.TurnRequest{Prompt: prompt, Session: "s", Source: "hook", Agent: "droid", PromptID: id, Ensure: true})
		if err != nil {
			t.Fatal(err)
		}
		return e.Turn
	}
	endOf := func(id string) int {
		t.Helper()
		end, _, err := f.s.TurnEnd(f.ctx, workspace.TurnRequest{Session: "s", PromptID: id})
		if err != nil {
			t.Fatal(err)
		}
		if end == nil {
			return 0
		}
		return end.Turn
	}
	if n := ensure("first", "p1"); n != 1 {
		t.Fatalf("first prompt opened turn %d", n)
	}
	f.write("a.txt", "one\n")
	if n := ensure("first", "p1"); n != 1 {
		t.Fatalf("a second event of the first prompt gave turn %d, want 1 again", n)
	}
	if n := endOf("p1"); n != 1 {
		t.Fatalf("the first prompt's end ended turn %d", n)
	}
	if n := ensure("first", "p1"); n != 1 {
		t.Fatalf("an event of the first prompt after its end gave turn %d, want 1", n)
	}
	if n := ensure("second", "p2"); n != 2 {
		t.Fatalf("the second prompt opened turn %d", n)
	}
	if n := endOf("p1"); n != 0 {
		t.Fatalf("a late end of the first prompt ended turn %d", n)
	}
	f.write("b.txt", "two\n")
	if n := endOf("p2"); n != 2 {
		t.Fatalf("the second prompt's end ended turn %d", n)
	}
	h := f.history()
	if open := h.OpenTurnOf("s"); open != nil {
		t.Fatalf("turn %d is still open", open.Turn)
	}
	if n := len(h.Session("s")); n != 4 {
		t.Errorf("the session has %d entries, want 2 turn starts and 2 ends", n)
	}
}

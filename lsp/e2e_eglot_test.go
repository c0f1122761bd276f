package lsp

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestEglotAnswersBeforeItsChange: an
// eglot-like client answers workspace/applyEdit with applied:true and sends
// the matching didChange only later (1.5 s, and 3 s: longer than the server
// ever waits). The rewind and its undo report applied:true, and the
// `via: disk` part is done when they answer: a file the agent created is
// deleted and one it deleted recreated (the client has no resource
// operations), a binary file restored. Once the editor reported its changes
// and saved, the tree is exactly the target and nothing is a conflict.
func TestEglotAnswersBeforeItsChange(t *testing.T) {
	for _, delay := range []time.Duration{1500 * time.Millisecond, 3 * time.Second} {
		t.Run(fmt.Sprint(delay), func(t *testing.T) { eglotAnswersBeforeItsChange(t, delay) })
	}
}

func eglotAnswersBeforeItsChange(t *testing.T, delay time.Duration) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "alpha\nbeta\n")
	w.Write("b.txt", "one\ntwo\n")
	w.Write("gone.txt", "deleted by the agent\n")
	w.Write("bin.dat", "\x00binary\x01")
	before := w.State()
	_, e := startServer(t, w, testkit.EglotLike)
	e.SetSave(false) // Emacs saves when the user says so
	e.SetEchoDelay(delay)
	e.Open(w.Abs("a.txt"))
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "agent turn"}, nil)
	w.Write("a.txt", "alpha\nBETA\n")
	w.Write("b.txt", "one\nTWO\n")
	w.Write("new.txt", "created by the agent\n")
	w.Remove("gone.txt")
	w.Write("bin.dat", "\x00binary by the agent\x02")
	e.Reload(w.Abs("a.txt"))
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	after := w.State()

	step := func(name string, want map[string]testkit.File, call func(*commands.RewindResult)) {
		t.Helper()
		echoed := e.Echoed()
		var rr commands.RewindResult
		call(&rr)
		early := e.Echoed() == echoed
		if !rr.Applied {
			t.Fatalf("%s with an eglot-like client: applied:false, %s", name, rr.FailureReason)
		}
		// The server's own part is done when it answers.
		got := w.State()
		for _, p := range []string{"new.txt", "gone.txt", "bin.dat"} {
			if jsonStr(got[p]) != jsonStr(want[p]) {
				t.Errorf("%s: %s is %s when the server answered; want %s", name, p, jsonStr(got[p]), jsonStr(want[p]))
			}
		}
		for _, p := range []string{"a.txt", "b.txt"} {
			if text, _ := e.Text(w.Abs(p)); text != want[p].Data {
				t.Errorf("%s: buffer %s = %q; want %q", name, p, text, want[p].Data)
			}
		}
		if delay > 2*time.Second && !early {
			t.Errorf("%s: the server answered only after the editor's didChange (%v later)", name, delay)
		}
		// The editor reports its changes, the user saves.
		deadline := time.Now().Add(delay + 5*time.Second)
		for {
			done := e.Echoed() > echoed
			if done || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		e.SaveAll()
		w.WantState(want, name)
		var plan commands.Plan
		e.MustCmd(commands.NamePreview, map[string]any{"target": "turn:1:end"}, &plan)
		for _, f := range plan.Files {
			if f.Conflict {
				t.Errorf("after the %s, %s is a conflict", name, f.Path)
			}
		}
	}
	step("rewind", before, func(rr *commands.RewindResult) {
		e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, rr)
	})
	step("undo", after, func(rr *commands.RewindResult) {
		e.MustCmd(commands.NameUndo, map[string]any{}, rr)
	})
	if _, err := os.Stat(w.Abs("new.txt")); err != nil {
		t.Fatalf("undo did not bring back the agent's file: %v", err)
	}
}

package lsp

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
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
	w := newWsp(t)
	w.write("a.txt", "alpha\nbeta\n", 0o644)
	w.write("b.txt", "one\ntwo\n", 0o644)
	w.write("gone.txt", "deleted by the agent\n", 0o644)
	w.write("bin.dat", "\x00binary\x01", 0o644)
	before := w.state()
	_, e := startServer(t, w, eglotLike)
	e.mu.Lock()
	e.save, e.echoDelay = false, delay // Emacs saves when the user says so
	e.mu.Unlock()
	e.open(w.abs("a.txt"))
	e.mustCmd(commands.NameTurnStart, map[string]any{"prompt": "agent turn"}, nil)
	w.write("a.txt", "alpha\nBETA\n", 0o644)
	w.write("b.txt", "one\nTWO\n", 0o644)
	w.write("new.txt", "created by the agent\n", 0o644)
	w.remove("gone.txt")
	w.write("bin.dat", "\x00binary by the agent\x02", 0o644)
	e.reload(w.abs("a.txt"))
	e.mustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	after := w.state()

	step := func(name string, want map[string]fstate, call func(*commands.RewindResult)) {
		t.Helper()
		e.mu.Lock()
		echoed := e.echoed
		e.mu.Unlock()
		var rr commands.RewindResult
		call(&rr)
		e.mu.Lock()
		early := e.echoed == echoed
		e.mu.Unlock()
		if !rr.Applied {
			t.Fatalf("%s with an eglot-like client: applied:false, %s", name, rr.FailureReason)
		}
		// The server's own part is done when it answers.
		got := w.state()
		for _, p := range []string{"new.txt", "gone.txt", "bin.dat"} {
			if jsonStr(got[p]) != jsonStr(want[p]) {
				t.Errorf("%s: %s is %s when the server answered; want %s", name, p, jsonStr(got[p]), jsonStr(want[p]))
			}
		}
		for _, p := range []string{"a.txt", "b.txt"} {
			if text, _ := e.text(w.abs(p)); text != want[p].Data {
				t.Errorf("%s: buffer %s = %q; want %q", name, p, text, want[p].Data)
			}
		}
		if delay > 2*time.Second && !early {
			t.Errorf("%s: the server answered only after the editor's didChange (%v later)", name, delay)
		}
		// The editor reports its changes, the user saves.
		deadline := time.Now().Add(delay + 5*time.Second)
		for {
			e.mu.Lock()
			done := e.echoed > echoed
			e.mu.Unlock()
			if done || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		e.saveAll()
		w.wantState(want, name)
		var plan commands.Plan
		e.mustCmd(commands.NamePreview, map[string]any{"target": "turn:1:end"}, &plan)
		for _, f := range plan.Files {
			if f.Conflict {
				t.Errorf("after the %s, %s is a conflict", name, f.Path)
			}
		}
	}
	step("rewind", before, func(rr *commands.RewindResult) {
		e.mustCmd(commands.NameRewind, map[string]any{"target": "1"}, rr)
	})
	step("undo", after, func(rr *commands.RewindResult) {
		e.mustCmd(commands.NameUndo, map[string]any{}, rr)
	})
	if _, err := os.Stat(w.abs("new.txt")); err != nil {
		t.Fatalf("undo did not bring back the agent's file: %v", err)
	}
}

package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// startEditor starts the root's language server as an editor starts it,
// with a plain editor on it, and waits until the server serves the root's
// command line (its socket).
func startEditor(t *testing.T, w *agentWS) *testkit.Editor {
	t.Helper()
	srv, c := testkit.StartServer(w.Sandbox)
	e := testkit.NewEditor(t, c, testkit.PlainClient)
	e.Server = srv
	e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store})
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(w.Store, "server.sock")); err == nil {
			return e
		}
		if time.Now().After(deadline) {
			t.Fatal("the language server never listened on its socket")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMCPRewindLeavesTheEditorsChanges: with a language server running,
// the agent's rewind to its checkpoint counts the changes since as its
// own, except files the person saved from the editor or holds unsaved
// since: those are conflicts, the rewind is refused and lists them, and
// nothing is restored (never forced).
func TestMCPRewindLeavesTheEditorsChanges(t *testing.T) {
	w := newAgentWS(t)
	w.Write("agent.txt", "agent 0\n")
	w.Write("unsaved.txt", "unsaved 0\n")
	w.Write("saved.txt", "saved 0\n")
	ed := startEditor(t, w)
	ed.Open(w.Abs("unsaved.txt"))
	ed.Open(w.Abs("saved.txt"))
	cs := w.connect()
	ok(t, cs, "checkpoint", map[string]any{"goal": "try something"})

	w.Write("agent.txt", "agent 1\n") // the agent's own change
	ed.Change(w.Abs("unsaved.txt"), "unsaved 1, typed in the editor\n")
	ed.Change(w.Abs("saved.txt"), "saved 1\n")
	ed.Save(w.Abs("saved.txt"))
	time.Sleep(300 * time.Millisecond) // the notifications reach the server before the rewind does

	text, isErr := call(t, cs, "rewind", map[string]any{"report": "it did not work"})
	listed := map[string]bool{}
	if i := strings.LastIndex(text, ": "); i >= 0 {
		for _, f := range strings.Split(text[i+2:], ", ") {
			listed[f] = true
		}
	}
	if !isErr || !listed["unsaved.txt"] || !listed["saved.txt"] || listed["agent.txt"] {
		t.Fatalf("rewind with the editor's changes since: %q (error %v), want a conflict naming unsaved.txt and saved.txt only", text, isErr)
	}
	t.Logf("refused: %s", text)
	if w.Read("agent.txt") != "agent 1\n" || w.Read("saved.txt") != "saved 1\n" || w.Read("unsaved.txt") != "unsaved 0\n" {
		t.Fatal("a refused rewind changed files")
	}
}

package lsp

import (
	"os"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestEditorRewindRemovesEmptiedFolders: after a rewind through the editor,
// the folders only the agent's created files lived in are gone, as on the
// command line: the tree is exactly the target's.
func TestEditorRewindRemovesEmptiedFolders(t *testing.T) {
	for _, kind := range []testkit.EditorKind{testkit.VSCodeLike, testkit.NeovimLike, testkit.PlainClient} {
		t.Run(string(kind), func(t *testing.T) {
			w := testkit.NewSandbox(t)
			w.Write("main.go", "package main\n")
			_, e := startServer(t, w, kind)
			e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "add a util"}, nil)
			w.Write("src/util/strings.go", "package util\n")
			w.Write("tests/util_test.go", "package tests\n")
			e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
			var rr commands.RewindResult
			e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
			if !rr.Applied {
				t.Fatalf("rewind: %s", rr.FailureReason)
			}
			waitSaved(t, e)
			for _, dir := range []string{"src", "tests"} {
				if _, err := os.Stat(w.Abs(dir)); err == nil {
					t.Errorf("%s/ is still there after the rewind", dir)
				}
			}
			if _, err := os.Stat(w.Abs("main.go")); err != nil {
				t.Fatal("main.go is gone")
			}
		})
	}
}

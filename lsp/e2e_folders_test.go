package lsp

import (
	"os"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// TestEditorRewindRemovesEmptiedFolders: after a rewind through the editor,
// the folders only the agent's created files lived in are gone, as on the
// command line: the tree is exactly the target's.
func TestEditorRewindRemovesEmptiedFolders(t *testing.T) {
	for _, kind := range []editorKind{vscodeLike, neovimLike, plainClient} {
		t.Run(string(kind), func(t *testing.T) {
			w := newWsp(t)
			w.write("main.go", "package main\n", 0o644)
			_, e := startServer(t, w, kind)
			e.mustCmd(commands.NameTurnStart, map[string]any{"prompt": "add a util"}, nil)
			w.write("src/util/strings.go", "package util\n", 0o644)
			w.write("tests/util_test.go", "package tests\n", 0o644)
			e.mustCmd(commands.NameTurnEnd, map[string]any{}, nil)
			var rr commands.RewindResult
			e.mustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
			if !rr.Applied {
				t.Fatalf("rewind: %s", rr.FailureReason)
			}
			waitSaved(t, e)
			for _, dir := range []string{"src", "tests"} {
				if _, err := os.Stat(w.abs(dir)); err == nil {
					t.Errorf("%s/ is still there after the rewind", dir)
				}
			}
			if _, err := os.Stat(w.abs("main.go")); err != nil {
				t.Fatal("main.go is gone")
			}
		})
	}
}

package env_test

import (
	"testing"

	"github.com/rewind-lsp/rewind-lsp/testkit/env"
)

// TestLocalTurnsRewindUndoRevert: the environment over the command set in
// this process plays turns, rewinds, undoes and reverts as a script.
func TestLocalTurnsRewindUndoRevert(t *testing.T) {
	e := env.Local(t)
	e.Write("f.txt", "a\nb\nc\n")
	if end := e.Turn("one", map[string]string{"f.txt": "A\nb\nc\n"}); end.Turn != 1 || len(end.Changed) != 1 {
		t.Fatalf("turn one ended %+v", end)
	}
	e.Turn("two", map[string]string{"f.txt": "A\nb\nC\n", "g.txt": "new\n"})
	e.Rewind("2")
	e.WantFiles(map[string]string{"f.txt": "A\nb\nc\n"}, "after rewinding turn 2")
	e.Undo()
	e.WantFiles(map[string]string{"f.txt": "A\nb\nC\n", "g.txt": "new\n"}, "after the undo")
	e.Revert("1")
	e.WantFiles(map[string]string{"f.txt": "a\nb\nC\n", "g.txt": "new\n"}, "after reverting turn 1")
}

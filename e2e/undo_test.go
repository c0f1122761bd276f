package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestForcedUndoIsUndoable: rewind; the user edits a
// rewound file; undo is refused; undo --force overwrites the edit — and the
// next undo (of the undo: a redo) brings the edit back, so nothing a forced
// undo overwrote is out of reach.
func TestForcedUndoIsUndoable(t *testing.T) {
	w := newWS(t)
	w.Write("a.txt", "v1\n")
	w.turn("agent", func() { w.Write("a.txt", "agent v2\n") })
	w.ok("rewind", "1")
	if w.Read("a.txt") != "v1\n" {
		t.Fatalf("rewind: %q", w.Read("a.txt"))
	}
	w.Write("a.txt", "v1\nthe user's precious line\n")
	if r := w.run("undo"); r.code != 3 || !strings.Contains(r.stderr, "a.txt") {
		t.Fatalf("undo over a user's edit: exit %d %s", r.code, r.stderr)
	}
	w.ok("undo", "--force")
	if w.Read("a.txt") != "agent v2\n" {
		t.Fatalf("forced undo: %q", w.Read("a.txt"))
	}
	r := w.ok("undo")
	if w.Read("a.txt") != "v1\nthe user's precious line\n" {
		t.Fatalf("undo of the forced undo did not bring the user's edit back: %q\n%s", w.Read("a.txt"), r.stdout)
	}
	// And that redo is itself undoable, with no false conflict.
	w.ok("undo")
	if w.Read("a.txt") != "agent v2\n" {
		t.Fatalf("undo of the redo: %q", w.Read("a.txt"))
	}
	if r := w.run("fsck"); r.code != 0 {
		t.Fatalf("fsck: %s", r.stderr)
	}
}

// TestReadOnlyCommandsCreateNoStore: status and log in a folder that has no
// store answer without creating one.
func TestReadOnlyCommandsCreateNoStore(t *testing.T) {
	w := newWS(t)
	store := filepath.Join(w.Store, "not-yet")
	run := func(args ...string) result {
		t.Helper()
		c := w.Command(append([]string{"--root", w.Root, "--store", store}, args...))
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return result{stdout: string(out)}
	}
	if r := run("status"); !strings.Contains(r.stdout, "turns:     0") {
		t.Errorf("status: %s", r.stdout)
	}
	if r := run("--json", "log"); !strings.Contains(r.stdout, `"turns": []`) {
		t.Errorf("log: %s", r.stdout)
	}
	if _, err := os.Stat(store); err == nil {
		t.Fatal("a read-only command created the store")
	}
	if ents, _ := os.ReadDir(w.Root); len(ents) != 0 {
		t.Fatalf("a read-only command wrote into the workspace: %v", ents)
	}
}

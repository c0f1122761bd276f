package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// TestUndoSkipsRewindsTheEditorDidNotApply: a rewind the editor refused
// (applied:false, nothing changed) is recorded, but undo passes over it to
// the rewind before.
func TestUndoSkipsRewindsTheEditorDidNotApply(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	f := filepath.Join(root, "f.txt")
	os.WriteFile(f, []byte("v1\n"), 0o644)
	s, err := Open(root, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	s.TurnStart(ctx, TurnRequest{Prompt: "one"})
	os.WriteFile(f, []byte("v2\n"), 0o644)
	s.TurnEnd(ctx, TurnRequest{})
	disk := ApplyOnDisk(root)
	refuse := func(context.Context, string, []snapshot.FileOp, string) error {
		return &NotAppliedError{Reason: "the editor did not apply the edit"}
	}

	out, err := s.Rewind(ctx, RewindRequest{Target: "1"}, nil, refuse)
	if err != nil || out.Applied || out.FailureReason == "" {
		t.Fatalf("refused rewind: %v %+v", err, out)
	}
	if _, err := s.Undo(ctx, UndoRequest{Caller: Caller{Actor: "t"}}, nil, disk); err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Fatalf("undo of a rewind that changed nothing: %v", err)
	}
	// An applied rewind, then a refused one: undo takes back the applied one.
	if out, err := s.Rewind(ctx, RewindRequest{Target: "1"}, nil, disk); err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	if out, err := s.Rewind(ctx, RewindRequest{Target: "turn:1:end"}, nil, refuse); err != nil || out.Applied {
		t.Fatalf("second rewind should be refused: %v %+v", err, out)
	}
	if out, err := s.Undo(ctx, UndoRequest{Caller: Caller{Actor: "t"}}, nil, disk); err != nil || !out.Applied {
		t.Fatalf("undo: %v %+v", err, out)
	}
	if b, _ := os.ReadFile(f); string(b) != "v2\n" {
		t.Fatalf("after undo f.txt = %q, want the state before the applied rewind", b)
	}
}

// TestRecoveryRewritesFilesLeftEmpty: a power loss during a rewind, after
// a file's new name reached the disk but before its content did (Writer's
// contents are written out at the operation's sync), leaves the file
// empty. The next command finishes the rewind and writes it, as it writes
// a file still in its state from before; a file someone else changed
// since is left.
func TestRecoveryRewritesFilesLeftEmpty(t *testing.T) {
	w := newWS(t)
	w.Write("a.txt", "a1\n")
	w.Write("b.txt", "b1\n")
	w.Write("c.txt", "c1\n")
	w.Write("d.txt", "d1\n")
	w.turn("one", func() {
		for _, f := range []string{"a", "b", "c", "d"} {
			w.Write(f+".txt", f+"2\n")
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	lost := func(c context.Context, label string, ops []snapshot.FileOp, tag string) error {
		if len(ops) != 4 {
			t.Fatalf("the rewind changes %d files, want 4", len(ops))
		}
		if err := ApplyOnDisk(w.Root)(c, label, ops[:1], tag); err != nil { // a.txt written
			return err
		}
		w.Write("b.txt", "") // its name switched, its content lost
		w.Write("c.txt", "someone else's\n")
		cancel() // d.txt not reached
		return c.Err()
	}
	if _, err := w.s.Rewind(ctx, RewindRequest{Target: "1"}, nil, lost); err == nil {
		t.Fatal("an interrupted rewind reported no error")
	}
	if n, err := w.s.Recover(context.Background()); err != nil || n != 1 {
		t.Fatalf("recover: %d %v", n, err)
	}
	for f, want := range map[string]string{"a.txt": "a1\n", "b.txt": "b1\n", "c.txt": "someone else's\n", "d.txt": "d1\n"} {
		if got := w.Read(f); got != want {
			t.Errorf("after recovery %s = %q, want %q", f, got, want)
		}
	}
}

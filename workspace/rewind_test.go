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
		return &NotApplied{Reason: "the editor did not apply the edit"}
	}

	out, err := s.Rewind(ctx, RewindRequest{Target: "1"}, nil, refuse)
	if err != nil || out.Applied || out.FailureReason == "" {
		t.Fatalf("refused rewind: %v %+v", err, out)
	}
	if _, err := s.Undo(ctx, UndoRequest{Actor: "t"}, nil, disk); err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Fatalf("undo of a rewind that changed nothing: %v", err)
	}
	// An applied rewind, then a refused one: undo takes back the applied one.
	if out, err := s.Rewind(ctx, RewindRequest{Target: "1"}, nil, disk); err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	if out, err := s.Rewind(ctx, RewindRequest{Target: "turn:1:end"}, nil, refuse); err != nil || out.Applied {
		t.Fatalf("second rewind should be refused: %v %+v", err, out)
	}
	if out, err := s.Undo(ctx, UndoRequest{Actor: "t"}, nil, disk); err != nil || !out.Applied {
		t.Fatalf("undo: %v %+v", err, out)
	}
	if b, _ := os.ReadFile(f); string(b) != "v2\n" {
		t.Fatalf("after undo f.txt = %q, want the state before the applied rewind", b)
	}
}

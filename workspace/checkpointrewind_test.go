package workspace_test

import (
	"slices"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// TestRewindToCheckpoint: an agent's own rewind tool (oh-my-pi's) after
// its checkpoint tool. Session A checkpoints, writes d.txt, x.txt and y.txt
// and runs a shell that writes s.txt; then the person changes x.txt, and
// another session B writes y.txt and its own b.txt. The rewind restores
// what A changed and nobody changed after it (d.txt, s.txt), leaves x.txt
// and y.txt alone and lists them, never touches b.txt, keeps A's turn
// open, records the report, and is undoable; the checkpoint is then no
// longer active, so a second rewind finds none.
func TestRewindToCheckpoint(t *testing.T) {
	f := newSessFixture(t)
	f.write("a.txt", "a\n")
	f.write("x.txt", "x\n")
	start := f.start("A", "try d")
	if _, err := f.s.RewindToCheckpoint(f.ctx, workspace.CheckpointRewindRequest{Session: "A", Report: "r"}, nil, workspace.ApplyOnDisk(f.root)); err != nil {
		t.Fatal(err)
	}
	cp, err := f.s.Checkpoint(f.ctx, workspace.CheckpointRequest{Caller: workspace.Caller{Actor: "hook", Session: "A"}, Goal: "try d", Agent: true})
	if err != nil {
		t.Fatal(err)
	}
	f.write("d.txt", "d\n")
	f.write("x.txt", "x by A\n")
	f.write("y.txt", "y by A\n")
	f.tool("A", "d.txt", "x.txt", "y.txt")
	f.shell("A", "t1", func() { f.write("s.txt", "s\n") })
	f.write("x.txt", "x by the person\n")
	f.start("B", "other work")
	f.write("y.txt", "y by B\n")
	f.write("b.txt", "b\n")
	f.tool("B", "y.txt", "b.txt")

	out, err := f.s.RewindToCheckpoint(f.ctx, workspace.CheckpointRewindRequest{Caller: workspace.Caller{Actor: "hook"}, Session: "A", Report: "d was wrong"}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || out == nil || !out.Applied || out.Checkpoint == nil || out.Checkpoint.ID != cp.ID {
		t.Fatalf("rewind to the checkpoint: %v %+v", err, out)
	}
	var restored []string
	for _, op := range out.Diff.Ops {
		restored = append(restored, string(op.Change)+" "+op.Path)
	}
	if want := []string{"delete d.txt", "delete s.txt"}; !slices.Equal(restored, want) {
		t.Errorf("restored %v, want %v", restored, want)
	}
	if want := []string{"x.txt", "y.txt"}; !slices.Equal(out.Kept, want) || !slices.Equal(out.Entry.Kept, want) {
		t.Errorf("kept %v (entry %v), want %v", out.Kept, out.Entry.Kept, want)
	}
	for rel, want := range map[string]string{"a.txt": "a\n", "x.txt": "x by the person\n", "y.txt": "y by B\n", "b.txt": "b\n"} {
		if got := f.read(rel); got != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
	if f.exists("d.txt") || f.exists("s.txt") {
		t.Error("d.txt or s.txt is still there")
	}
	h := f.history()
	if o := h.OpenTurnOf("A"); o == nil || o.ID != start.ID || out.Entry.InTurn != start.ID {
		t.Error("the agent's own rewind ended its turn, or is not recorded in it")
	}
	if e := out.Entry; e.Kind != journal.KindRewind || e.Target != "@"+cp.Label || e.TargetEntry != cp.ID || e.Report != "d was wrong" {
		t.Errorf("the rewind entry %+v", e)
	}
	again, err := f.s.RewindToCheckpoint(f.ctx, workspace.CheckpointRewindRequest{Session: "A", Report: "again"}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || again != nil && again.Checkpoint != nil {
		t.Errorf("a second rewind: %v %+v", err, again)
	}

	un, err := f.s.Undo(f.ctx, workspace.UndoRequest{Caller: workspace.Caller{Actor: "t", Session: "A"}}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || !un.Applied {
		t.Fatalf("undo: %v %+v", err, un)
	}
	if f.read("d.txt") != "d\n" || f.read("s.txt") != "s\n" || f.read("x.txt") != "x by the person\n" {
		t.Error("undo did not bring back exactly what the rewind restored")
	}
}

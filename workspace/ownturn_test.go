package workspace_test

import (
	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// tool records one tool call of session that wrote paths (a Write or
// Edit), after the file was written.
func (f *sessFixture) tool(session string, paths ...string) {
	f.t.Helper()
	if _, err := f.s.RecordTool(f.ctx, workspace.ToolCall{Session: session, Tool: "Write", Phase: journal.PhasePost, Paths: paths}); err != nil {
		f.t.Fatal(err)
	}
}

// shell runs edit as a Bash call of session, captured before and after.
func (f *sessFixture) shell(session, id string, edit func()) {
	f.t.Helper()
	if _, err := f.s.RecordTool(f.ctx, workspace.ToolCall{Session: session, Tool: "Bash", ToolUse: id, Phase: journal.PhasePre, Capture: true}); err != nil {
		f.t.Fatal(err)
	}
	edit()
	if _, err := f.s.RecordTool(f.ctx, workspace.ToolCall{Session: session, Tool: "Bash", ToolUse: id, Phase: journal.PhasePost, Capture: true}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *sessFixture) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(f.root, rel))
	return err == nil
}

// TestAgentOwnRewindKeepsTurn: an agent that, in one prompt, checkpoints,
// writes d.txt, rewinds to its checkpoint and writes e.txt keeps its turn
// open through its own rewind: the turn ends at its Stop with e.txt only,
// e.txt is no conflict, blame and revert of the session see it. Another
// session's open turn ends at the rewind, as for any rewind.
func TestAgentOwnRewindKeepsTurn(t *testing.T) {
	f := newSessFixture(t)
	f.write("a.txt", "a\n")
	start := f.start("A", "try d, then e")
	f.start("B", "other work")
	cp, err := f.s.Checkpoint(f.ctx, workspace.CheckpointRequest{Caller: workspace.Caller{Actor: "mcp"}, Label: "agent-1", Goal: "try d"})
	if err != nil {
		t.Fatal(err)
	}
	f.write("d.txt", "d\n")
	f.tool("A", "d.txt")
	out, err := f.s.Rewind(f.ctx, workspace.RewindRequest{Caller: workspace.Caller{Actor: "mcp", Session: "A"}, Target: "@agent-1", Report: "d was wrong", OwnSince: cp.ID},
		nil, workspace.ApplyOnDisk(f.root))
	if err != nil || !out.Applied {
		t.Fatalf("own rewind: %v %+v", err, out)
	}
	if f.exists("d.txt") {
		t.Fatal("d.txt is still there after the rewind")
	}
	if out.Entry.InTurn != start.ID {
		t.Fatalf("the rewind entry names turn %q, want %q", out.Entry.InTurn, start.ID)
	}
	h := f.history()
	if h.OpenTurnOf("A") == nil || h.OpenTurnOf("A").ID != start.ID {
		t.Fatal("the agent's own rewind ended its turn")
	}
	if h.OpenTurnOf("B") != nil {
		t.Fatal("another session's turn stayed open through the rewind")
	}

	f.shell("A", "t1", func() { f.write("e.txt", "e\n") })
	// Before the turn ends, a rewind by the agent itself does not take its
	// own write for the person's.
	plan, err := f.s.Preview(f.ctx, workspace.RewindRequest{Caller: workspace.Caller{Session: "A"}, Target: "1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cs := plan.Diff.Conflicts(); len(cs) != 0 {
		t.Fatalf("the agent's own writes are conflicts for its own rewind: %v", cs)
	}

	end, st := f.end("A")
	if end == nil || st.ID != start.ID {
		t.Fatalf("Stop after the own rewind ended %+v, want the turn %s", st, start.ID)
	}
	if want := []journal.Change{{Path: "e.txt", Change: fileop.Create, Added: 1}}; !reflect.DeepEqual(end.Changed, want) {
		t.Fatalf("the turn changed %+v, want %+v (the net change from its start)", end.Changed, want)
	}
	if !end.Attributed || !reflect.DeepEqual(end.Wrote, []string{"d.txt", "e.txt"}) {
		t.Fatalf("the turn wrote %v (attributed %v)", end.Wrote, end.Attributed)
	}

	// e.txt is recorded: a rewind to the turn's start by anyone sees no
	// conflict in it.
	plan, err = f.s.Preview(f.ctx, workspace.RewindRequest{Target: "1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cs := plan.Diff.Conflicts(); len(cs) != 0 {
		t.Fatalf("conflicts after the turn ended: %v", cs)
	}
	ranges, err := f.s.Blame("e.txt", []byte("e\n"), true)
	if err != nil || len(ranges) != 1 || ranges[0].Turn.Start.ID != start.ID {
		t.Fatalf("blame of e.txt: %+v, %v", ranges, err)
	}
	rv, err := f.s.Revert(f.ctx, workspace.RevertRequest{Caller: workspace.Caller{Actor: "t"}, Session: "A"}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || !rv.Applied {
		t.Fatalf("revert --session A: %v %+v", err, rv)
	}
	if f.exists("e.txt") || !f.exists("a.txt") {
		t.Fatal("revert --session A did not take e.txt back, or took more")
	}
}

// TestAgentOwnUndoAndRevertKeepTurn: an agent's own undo and revert keep
// its turn open too, and what they changed counts as the turn's; the
// person's edit stays a conflict for the agent's own rewind.
func TestAgentOwnUndoAndRevertKeepTurn(t *testing.T) {
	f := newSessFixture(t)
	f.write("a.txt", "a0\n")
	f.start("A", "one")
	f.write("a.txt", "a1\n")
	f.tool("A", "a.txt")
	f.end("A")

	start := f.start("A", "two")
	f.shell("A", "t1", func() { f.write("b.txt", "b\n") })
	// The agent reverts turn 1 from its shell: a.txt goes back to a0.
	rv, err := f.s.Revert(f.ctx, workspace.RevertRequest{Caller: workspace.Caller{Actor: "cli", Session: "A"}, Target: "1"}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || !rv.Applied || rv.Entry.InTurn != start.ID {
		t.Fatalf("own revert: %v %+v", err, rv)
	}
	if f.history().OpenTurnOf("A") == nil {
		t.Fatal("the agent's own revert ended its turn")
	}
	// Then undoes it: a.txt is a1 again, the turn still open.
	un, err := f.s.Undo(f.ctx, workspace.UndoRequest{Caller: workspace.Caller{Actor: "cli", Session: "A"}}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || !un.Applied || un.Entry.InTurn != start.ID {
		t.Fatalf("own undo: %v %+v", err, un)
	}
	if f.history().OpenTurnOf("A") == nil {
		t.Fatal("the agent's own undo ended its turn")
	}
	// The person edits c.txt meanwhile; the agent's own rewind to the turn's
	// start refuses: c.txt is not the agent's.
	f.write("c.txt", "the person's\n")
	out, err := f.s.Rewind(f.ctx, workspace.RewindRequest{Caller: workspace.Caller{Actor: "cli", Session: "A"}, Target: "2"}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || out.Applied {
		t.Fatalf("own rewind over the person's edit: %v %+v", err, out)
	}
	if cs := out.Diff.Conflicts(); !reflect.DeepEqual(cs, []string{"c.txt"}) {
		t.Fatalf("conflicts %v, want only the person's c.txt", cs)
	}
	end, _ := f.end("A")
	if end == nil || !reflect.DeepEqual(end.Wrote, []string{"a.txt", "b.txt"}) {
		t.Fatalf("turn two wrote %+v", end)
	}

	// Without a caller session, an undo ends the open turns like a rewind.
	f.start("A", "three")
	if _, err := f.s.Undo(f.ctx, workspace.UndoRequest{Caller: workspace.Caller{Actor: "editor"}, Force: true}, nil, workspace.ApplyOnDisk(f.root)); err != nil {
		t.Fatal(err)
	}
	if f.history().OpenTurnOf("A") != nil {
		t.Fatal("the person's undo left the agent's turn open")
	}
}

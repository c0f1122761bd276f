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

// agentRewindFixture plays two turns of session A — turn 1 writes a.txt
// (its Write) and b.txt (its shell); turn 2 edits a.txt, writes c.txt and
// b.txt from the shell — then the person edits c.txt, and A's third prompt
// starts. It returns the starts of turn 2 and of the third prompt.
func agentRewindFixture(t *testing.T, claudeRestores bool) (*sessFixture, *journal.Entry, *journal.Entry) {
	f := newSessFixture(t)
	f.write("a.txt", "a0\n")
	f.start("A", "one")
	f.write("a.txt", "a1\n")
	f.tool("A", "a.txt")
	f.shell("A", "t1", func() { f.write("b.txt", "b1\n") })
	f.end("A")
	two := f.start("A", "two")
	f.write("a.txt", "a2\n")
	f.tool("A", "a.txt")
	f.shell("A", "t2", func() { f.write("c.txt", "c2\n"); f.write("b.txt", "b2\n") })
	f.end("A")
	f.write("c.txt", "the person's\n")
	if claudeRestores { // its Edit's file, whole
		f.write("a.txt", "a1\n")
	}
	three := f.start("A", "three")
	return f, two, three
}

func (f *sessFixture) read(rel string) string {
	f.t.Helper()
	if !f.exists(rel) {
		return "<missing>"
	}
	data, err := os.ReadFile(filepath.Join(f.root, rel))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(data)
}

// TestAgentRewindRestoredCode: Claude Code rewound session A to before
// turn 2 and restored a.txt; completing it restores b.txt (its shell's),
// leaves c.txt (the person changed it since) and lists it, records the
// conversation rewind, and carries the open prompt on as turn 2 on the new
// branch, its start state with b.txt restored. Another session's open turn
// ends. Recording it twice does nothing; undo takes back b.txt only.
func TestAgentRewindRestoredCode(t *testing.T) {
	f, two, three := agentRewindFixture(t, true)
	f.start("B", "other work")
	out, err := f.s.CompleteAgentRewind(f.ctx, workspace.AgentRewindRequest{Caller: workspace.Caller{Actor: "hook"}, Agent: "claude-code", Session: "A", Turn: three.ID, Dropped: two.ID, Tracked: []string{"a.txt"}}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || out == nil || !out.Applied || !out.Restored {
		t.Fatalf("complete: %v %+v", err, out)
	}
	if got := f.read("a.txt") + f.read("b.txt") + f.read("c.txt"); got != "a1\nb1\nthe person's\n" {
		t.Fatalf("a, b, c = %q", got)
	}
	e := out.Entry
	if e.Mode != journal.ModeBoth || e.Agent != "claude-code" || e.Session != "A" || e.TargetEntry != two.ID ||
		!reflect.DeepEqual(e.Files, []string{"b.txt"}) || !reflect.DeepEqual(e.Kept, []string{"c.txt"}) || e.Offered != nil {
		t.Fatalf("the rewind entry: %+v", e)
	}
	h := f.history()
	open := h.OpenTurnOf("A")
	if open == nil || open.ID != out.Turn.ID || open.Continues != three.ID || open.Turn != 2 || open.Prompt != "three" {
		t.Fatalf("the open turn: %+v", open)
	}
	if h.OpenTurnOf("B") != nil {
		t.Fatal("B's turn stayed open across the conversation rewind")
	}
	if h.OnBranch(two.ID) || h.OnBranch(three.ID) {
		t.Fatal("the dropped turn or the superseded start is still on the branch")
	}
	again, err := f.s.CompleteAgentRewind(f.ctx, workspace.AgentRewindRequest{Caller: workspace.Caller{Actor: "hook"}, Agent: "claude-code", Session: "A", Turn: three.ID, Dropped: two.ID, Tracked: []string{"a.txt"}}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || again != nil {
		t.Fatalf("recorded twice: %v %+v", err, again)
	}

	// The prompt goes on: what it writes is its turn's, net of the rewind.
	f.shell("A", "t3", func() { f.write("d.txt", "d\n") })
	end, _ := f.end("A")
	if want := []journal.Change{{Path: "d.txt", Change: fileop.Create, Added: 1}}; end == nil || !reflect.DeepEqual(end.Changed, want) ||
		!reflect.DeepEqual(end.Wrote, []string{"d.txt"}) {
		t.Fatalf("the carried-on turn ended with %+v", end)
	}
	var nums []int
	for _, tu := range f.history().Turns(0, 0) {
		nums = append(nums, tu.Number)
	}
	if !reflect.DeepEqual(nums, []int{1, 2}) {
		t.Fatalf("turns on the branch %v", nums)
	}
	// Undo takes back what rewind-lsp restored; the conversation stays.
	if _, err := f.s.Undo(f.ctx, workspace.UndoRequest{Caller: workspace.Caller{Actor: "t"}}, nil, workspace.ApplyOnDisk(f.root)); err != nil {
		t.Fatal(err)
	}
	if f.read("b.txt") != "b2\n" || len(f.history().Turns(0, 0)) != 2 {
		t.Fatalf("after undo: b.txt %q, turns %d", f.read("b.txt"), len(f.history().Turns(0, 0)))
	}
	// Session A hears of it at its next prompt.
	if got := f.notices("A"); len(got) == 0 || got[0].ID != e.ID {
		t.Fatalf("A's notices: %v", got)
	}
}

// TestAgentRewindRestoredNothing: the agent moved only its conversation
// back: no file changes, the files a code rewind would restore are
// offered, and undo has nothing of it to take back.
func TestAgentRewindRestoredNothing(t *testing.T) {
	f, two, three := agentRewindFixture(t, false)
	out, err := f.s.CompleteAgentRewind(f.ctx, workspace.AgentRewindRequest{Caller: workspace.Caller{Actor: "hook"}, Agent: "claude-code", Session: "A", Turn: three.ID, Dropped: two.ID, Tracked: []string{"a.txt"}}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || out == nil || out.Restored {
		t.Fatalf("complete: %v %+v", err, out)
	}
	if got := f.read("a.txt") + f.read("b.txt") + f.read("c.txt"); got != "a2\nb2\nthe person's\n" {
		t.Fatalf("files changed: a, b, c = %q", got)
	}
	if e := out.Entry; e.Mode != journal.ModeConversation || e.Files != nil || !reflect.DeepEqual(e.Offered, []string{"a.txt", "b.txt", "c.txt"}) {
		t.Fatalf("the rewind entry: %+v", e)
	}
	if open := f.history().OpenTurnOf("A"); open == nil || open.Snapshot != three.Snapshot || open.Turn != 2 {
		t.Fatalf("the carried-on turn: %+v", open)
	}
	if _, err := f.s.Undo(f.ctx, workspace.UndoRequest{Caller: workspace.Caller{Actor: "t"}}, nil, workspace.ApplyOnDisk(f.root)); err == nil {
		t.Fatal("undo took back the agent's own conversation rewind")
	}
	// The turn that carries on names the same prompt: no notice for it.
	if got := f.notices("A"); len(got) != 0 {
		t.Fatalf("A was told %v", got)
	}
}

// TestAgentRewindMovedOn: a request for a turn that is no longer the
// session's open one records nothing; a dropped entry that is not an
// earlier turn of the session is an error.
func TestAgentRewindMovedOn(t *testing.T) {
	f, two, three := agentRewindFixture(t, true)
	f.end("A")
	if out, err := f.s.CompleteAgentRewind(f.ctx, workspace.AgentRewindRequest{Session: "A", Turn: three.ID, Dropped: two.ID}, nil, workspace.ApplyOnDisk(f.root)); err != nil || out != nil {
		t.Fatalf("after the turn ended: %v %+v", err, out)
	}
	four := f.start("A", "four")
	if _, err := f.s.CompleteAgentRewind(f.ctx, workspace.AgentRewindRequest{Session: "A", Turn: four.ID, Dropped: four.ID}, nil, workspace.ApplyOnDisk(f.root)); err == nil {
		t.Fatal("a turn dropped by itself was accepted")
	}
	if _, err := f.s.CompleteAgentRewind(f.ctx, workspace.AgentRewindRequest{Session: "B", Turn: four.ID, Dropped: two.ID}, nil, workspace.ApplyOnDisk(f.root)); err != nil {
		t.Fatalf("another session's request: %v", err)
	}
}

// TestAgentRewindInFork: session F, a fork of A made at the point before
// A's turn 2 (Claude Code's --fork-session, or /branch then Esc Esc), sends
// its first prompt after Claude Code put a.txt back. The rewind is F's: its
// dropped turn is A's turn 2, whose shell's b.txt comes back and whose c.txt,
// changed since by the person, is left; F's prompt carries on as turn 2,
// and F hears of it at its next prompt, A does not.
func TestAgentRewindInFork(t *testing.T) {
	f, two, three := agentRewindFixture(t, true)
	f.end("A") // A's third prompt ended: the fork is made afterwards
	fork := f.start("F", "three, forked")
	// Another agent's session has no fork of Claude Code's turns.
	if _, err := f.s.CompleteAgentRewind(f.ctx, workspace.AgentRewindRequest{Agent: "codex", Session: "G", Turn: f.start("G", "x").ID, Dropped: two.ID},
		nil, workspace.ApplyOnDisk(f.root)); err == nil {
		t.Fatal("a Claude Code turn was taken for one another agent's session dropped")
	}
	out, err := f.s.CompleteAgentRewind(f.ctx, workspace.AgentRewindRequest{Caller: workspace.Caller{Actor: "hook"}, Agent: "claude-code", Session: "F", Turn: fork.ID, Dropped: two.ID, Tracked: []string{"a.txt"}}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || out == nil || !out.Applied || !out.Restored {
		t.Fatalf("complete: %v %+v", err, out)
	}
	if got := f.read("a.txt") + f.read("b.txt") + f.read("c.txt"); got != "a1\nb1\nthe person's\n" {
		t.Fatalf("a, b, c = %q", got)
	}
	if e := out.Entry; e.Session != "F" || e.TargetEntry != two.ID || !reflect.DeepEqual(e.Files, []string{"b.txt"}) ||
		!reflect.DeepEqual(e.Kept, []string{"c.txt"}) {
		t.Fatalf("the rewind entry: %+v", e)
	}
	h := f.history()
	if open := h.OpenTurnOf("F"); open == nil || open.Continues != fork.ID || open.Turn != 2 || open.Session != "F" {
		t.Fatalf("the fork's open turn: %+v", open)
	}
	if h.OnBranch(two.ID) || h.OnBranch(three.ID) {
		t.Fatal("A's dropped turns are still on the branch")
	}
	f.start("F", "four")
	if got := f.notices("F"); len(got) == 0 || got[0].ID != out.Entry.ID {
		t.Fatalf("F's notices: %v", got)
	}
}

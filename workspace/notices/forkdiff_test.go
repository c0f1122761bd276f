package notices_test

import (
	"reflect"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"github.com/rewind-lsp/rewind-lsp/workspace/notices"
)

// TestForkNotice: after a conversation rewind to turn 2, the fork's first
// prompt is told which files differ from before turn 2 and who changed
// them (turn 2 and turn 3 of the session, the person); its second prompt
// is not told again. After a both rewind the fork needs no notice.
func TestForkNotice(t *testing.T) {
	f := newSessFixture(t)
	f.write("a.txt", "a0\n")
	f.write("c.txt", "c0\n")
	f.start("A", "one")
	f.write("a.txt", "a1\n")
	f.end("A")
	f.start("A", "two")
	f.write("b.txt", "b2\n")
	f.end("A")
	f.write("c.txt", "the person's\n")
	f.start("A", "three")
	f.write("b.txt", "b3\n")
	f.end("A")

	out, err := f.s.Rewind(f.ctx, workspace.RewindRequest{Caller: workspace.Caller{Actor: "cli"}, Target: "2", Mode: journal.ModeConversation}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || !out.Applied {
		t.Fatal(err, out)
	}
	if _, err := notices.RecordFork(f.s, "F", "cli", "claude-code", "/t/F.jsonl", out.Entry); err != nil {
		t.Fatal(err)
	}
	f.start("F", "go on from turn one")
	n := f.take("F", "")
	if n.Fork == nil || n.Fork.Target.Turn != 2 {
		t.Fatalf("the fork's first prompt got no fork difference: %+v", n)
	}
	if !reflect.DeepEqual(n.Fork.Files, []string{"b.txt", "c.txt"}) {
		t.Fatalf("files that differ from before turn 2: %v", n.Fork.Files)
	}
	if want := map[string][]string{"b.txt": {"turn 2", "turn 3"}, "c.txt": {"user"}}; !reflect.DeepEqual(n.Fork.By, want) {
		t.Fatalf("who changed them: %v, want %v", n.Fork.By, want)
	}
	f.end("F")
	f.start("F", "and then")
	if n := f.take("F", ""); !n.Empty() {
		t.Fatalf("the fork was told twice: %+v", n)
	}

	// The original session has nothing to hear: no file changed.
	if got := f.notices("A"); len(got) != 0 {
		t.Fatalf("the original session was told %v", got)
	}

	// A both rewind restores the files with the conversation.
	out, err = f.s.Rewind(f.ctx, workspace.RewindRequest{Caller: workspace.Caller{Actor: "cli"}, Target: "2", Mode: journal.ModeBoth, Force: true}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || !out.Applied {
		t.Fatal(err, out)
	}
	if _, err := notices.RecordFork(f.s, "G", "cli", "claude-code", "/t/G.jsonl", out.Entry); err != nil {
		t.Fatal(err)
	}
	f.start("G", "from turn one, files too")
	if n := f.take("G", ""); !n.Empty() {
		t.Fatalf("a both fork was told %+v", n.Fork)
	}
}

// TestForkNoticeNamesOperations: a fork's file changed since its fork
// point by the dropped turn, then by a revert and its undo, names each of
// them, in order.
func TestForkNoticeNamesOperations(t *testing.T) {
	f := newSessFixture(t)
	apply := workspace.ApplyOnDisk(f.root)
	f.write("a.txt", "x\ny\n")
	f.start("A", "one")
	f.write("a.txt", "X1\ny\n")
	f.end("A")
	f.start("A", "two")
	f.write("a.txt", "X1\nY2\n")
	f.end("A")
	out, err := f.s.Rewind(f.ctx, workspace.RewindRequest{Target: "2", Mode: journal.ModeConversation, Caller: workspace.Caller{Actor: "cli"}}, nil, apply)
	if err != nil || !out.Applied {
		t.Fatal(err, out)
	}
	if _, err := notices.RecordFork(f.s, "F", "cli", "claude-code", "/t/F.jsonl", out.Entry); err != nil {
		t.Fatal(err)
	}
	if out, err := f.s.Revert(f.ctx, workspace.RevertRequest{Target: "1", Caller: workspace.Caller{Actor: "t"}}, nil, apply); err != nil || !out.Applied {
		t.Fatal(err, out)
	}
	if _, err := f.s.Undo(f.ctx, workspace.UndoRequest{Caller: workspace.Caller{Actor: "t"}}, nil, apply); err != nil {
		t.Fatal(err)
	}
	f.start("F", "go on")
	n := f.take("F", "")
	if n.Fork == nil || !reflect.DeepEqual(n.Fork.Files, []string{"a.txt"}) {
		t.Fatalf("fork difference: %+v", n.Fork)
	}
	if want := []string{"turn 2", "revert", "undo"}; !reflect.DeepEqual(n.Fork.By["a.txt"], want) {
		t.Fatalf("who changed a.txt: %v, want %v", n.Fork.By["a.txt"], want)
	}
}

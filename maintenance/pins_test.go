package maintenance

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// TestAgentCheckpointsArePinnedWhileActive: an agent's checkpoint is kept
// whatever retention keeps while it is the agent's active one — its
// connection open, nothing newer from it, not rewound to — and dropped like
// any state after; a person's labeled checkpoint stays pinned throughout.
func TestAgentCheckpointsArePinnedWhileActive(t *testing.T) {
	t.Setenv("REWIND_LSP_GC_GRACE", "0")
	ctx := context.Background()
	root, store := t.TempDir(), t.TempDir()
	s, err := workspace.Open(root, store, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := New(s, Retention{})
	write := func(content string) { os.WriteFile(filepath.Join(root, "a.txt"), []byte(content), 0o644) }
	turn := func(content string) {
		s.TurnStart(ctx, workspace.TurnRequest{Prompt: content})
		write(content)
		s.TurnEnd(ctx, workspace.TurnRequest{})
	}
	conn, release, err := HoldConnection(store)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ckp := func(req workspace.CheckpointRequest) *journal.Entry {
		t.Helper()
		e, err := s.Checkpoint(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	write("person's\n")
	person := ckp(workspace.CheckpointRequest{Caller: workspace.Caller{Actor: "cli"}, Label: "mine"})
	write("agent one\n")
	one := ckp(workspace.CheckpointRequest{Caller: workspace.Caller{Actor: "mcp"}, Agent: true, Conn: conn})
	if one.Label != "agent-1" {
		t.Fatalf("the agent's checkpoint is labeled %q", one.Label)
	}
	turn("later 1\n")
	turn("later 2\n")
	gone := func(e *journal.Entry) bool {
		t.Helper()
		if _, err := m.Retain(Retention{MaxSnapshots: 1}); err != nil { // keep only the newest state besides the pinned ones
			t.Fatal(err)
		}
		h, err := s.History()
		if err != nil {
			t.Fatal(err)
		}
		return h.Gone(e.Snapshot)
	}
	if gone(one) || gone(person) {
		t.Fatal("an active agent checkpoint or a person's checkpoint was dropped")
	}
	// A newer checkpoint of the same connection replaces it as the active one.
	write("agent two\n")
	two := ckp(workspace.CheckpointRequest{Caller: workspace.Caller{Actor: "mcp"}, Agent: true, Conn: conn})
	if two.Label != "agent-2" {
		t.Fatalf("the second agent checkpoint is labeled %q", two.Label)
	}
	turn("later 3\n")
	if !gone(one) {
		t.Fatal("agent-1 stayed pinned after agent-2 replaced it")
	}
	if gone(two) {
		t.Fatal("the active agent-2 was dropped")
	}
	// The connection ends: its checkpoint is no longer active.
	release()
	turn("later 4\n")
	if !gone(two) {
		t.Fatal("agent-2 stayed pinned after its connection ended")
	}
	if gone(person) {
		t.Fatal("the person's labeled checkpoint was dropped")
	}
	// A rewind to an agent's checkpoint ends its pin too.
	conn2, release2, err := HoldConnection(store)
	if err != nil {
		t.Fatal(err)
	}
	defer release2()
	write("agent three\n")
	three := ckp(workspace.CheckpointRequest{Caller: workspace.Caller{Actor: "mcp"}, Agent: true, Conn: conn2})
	turn("later 5\n")
	if out, err := s.Rewind(ctx, workspace.RewindRequest{Caller: workspace.Caller{Actor: "mcp"}, Target: "@" + three.Label}, nil, workspace.ApplyOnDisk(root)); err != nil || !out.Applied {
		t.Fatalf("rewind to %s: %v %+v", three.Label, err, out)
	}
	turn("later 6\n")
	turn("later 7\n")
	if !gone(three) {
		t.Fatal("agent-3 stayed pinned after the agent rewound to it")
	}
}

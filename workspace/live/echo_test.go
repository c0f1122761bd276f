package live

import (
	"context"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// TestAgentDeletesAFileMadeAfterARewind: a rewind, then a hook's turn that
// makes new.txt, then — within seconds, no turn open — an agent deletes
// new.txt and edits keep.txt. The rewind never touched new.txt (its target
// has none): the deletion is the agent's, and the automatic turn lists it.
func TestAgentDeletesAFileMadeAfterARewind(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	ctx := context.Background()
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "one", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("turn one\n"), 0o644)
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "1"}, nil, workspace.ApplyOnDisk(root))
	if err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "two", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "new.txt"), []byte("made by turn two\n"), 0o644)
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	// The agent, with no turn open.
	os.Remove(filepath.Join(root, "new.txt"))
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("by the agent\n"), 0o644)
	if got := lastTurnChanges(t, s, 3); got != "keep.txt modify, new.txt delete" {
		t.Fatalf("the automatic turn changed [%s], want keep.txt modify, new.txt delete", got)
	}
}

// TestAgentUndoesARewindAtOnce: a rewind written on disk brings back
// new.txt, which the last turn deleted; a second later — no turn open —
// the agent deletes it again and edits keep.txt. The rewind was done when
// it returned: the file gone again is the agent's change, not a state on
// the rewind's way, and the automatic turn lists both files.
func TestAgentUndoesARewindAtOnce(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	ctx := context.Background()
	os.WriteFile(filepath.Join(root, "new.txt"), []byte("made before the checkpoint\n"), 0o644)
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "one", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "new.txt"))
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "1"}, nil, workspace.ApplyOnDisk(root))
	if err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	// The agent, with no turn open.
	os.Remove(filepath.Join(root, "new.txt"))
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("by the agent\n"), 0o644)
	if got := lastTurnChanges(t, s, 2); got != "keep.txt modify, new.txt delete" {
		t.Fatalf("the automatic turn changed [%s], want keep.txt modify, new.txt delete", got)
	}
}

// lastTurnChanges waits until the workspace holds n turns, the last one
// ended, and says what that one changed ("path change, …", sorted).
func lastTurnChanges(t *testing.T, s *workspace.Workspace, n int) string {
	t.Helper()
	waitUntil(t, "an ended automatic turn", func() bool {
		ts := turns(t, s)
		return len(ts) == n && ts[n-1].End != nil
	})
	var got []string
	for _, c := range turns(t, s)[n-1].End.Changed {
		got = append(got, c.Path+" "+c.Change)
	}
	sort.Strings(got)
	return strings.Join(got, ", ")
}

// TestAgentDeletesARewoundFileTheEditorSaved: a rewind applied by an
// editor (which writes the file after it answered, then says it saved);
// the decisions lag behind the disk (a slow editor check on another
// file), and the agent deletes the file right after the editor saved it.
// The rewind was over at the save: the deletion is the agent's, in an
// automatic turn.
func TestAgentDeletesARewoundFileTheEditorSaved(t *testing.T) {
	var tr *Tracker
	s, tr, root := trackedWorkspace(t, TrackOptions{IsEditor: func(rel string, data []byte) bool {
		if rel == "slow.txt" {
			time.Sleep(400 * time.Millisecond)
		}
		return false
	}})
	ctx := context.Background()
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "one", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("turn one\n"), 0o644)
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	saved := make(chan struct{})
	editor := func(_ context.Context, _ string, ops []snapshot.FileOp, _ string) error {
		go func() { // the editor saves after it answered
			time.Sleep(50 * time.Millisecond)
			for _, op := range ops {
				os.WriteFile(filepath.Join(root, op.Path), op.After, 0o644)
				tr.EditorSaved(op.Path, op.After)
			}
			close(saved)
		}()
		return nil
	}
	os.WriteFile(filepath.Join(root, "slow.txt"), []byte("the decisions lag\n"), 0o644)
	time.Sleep(50 * time.Millisecond) // slow.txt's batch is being judged
	out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "1", Paths: []string{"keep.txt"}}, nil, editor)
	if err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	<-saved
	os.Remove(filepath.Join(root, "keep.txt")) // the agent, no turn open
	if got := lastTurnChanges(t, s, 2); got != "keep.txt delete" {
		t.Fatalf("the automatic turn changed [%s], want keep.txt delete", got)
	}
}

// TestAgentPutsBackWhatARewindWrote: a rewind writes keep.txt; a hook's
// turn makes it executable; then, with no turn open, the agent makes it
// plain again — the very state the rewind wrote, within the minute the
// rewind's writes are remembered. The turn recorded the file since: going
// back is the agent's change.
func TestAgentPutsBackWhatARewindWrote(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	ctx := context.Background()
	keep := filepath.Join(root, "keep.txt")
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "one", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(keep, []byte("turn one\n"), 0o644)
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	if out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "1"}, nil, workspace.ApplyOnDisk(root)); err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "two", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.Chmod(keep, 0o755)
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	os.Chmod(keep, 0o644) // the agent, no turn open
	if got := lastTurnChanges(t, s, 3); got != "keep.txt modify" {
		t.Fatalf("the automatic turn changed [%s], want keep.txt modify", got)
	}
}

// TestUndoOverAFolderMadeAFile: a rewind removes dir/ (dir/a.txt,
// dir/b.txt); a turn then makes dir a file. Undoing the rewind would write
// dir/a.txt and dir/b.txt below what is now a file: it is refused as a
// conflict naming them, and nothing is written.
func TestUndoOverAFolderMadeAFile(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	ctx := context.Background()
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "one", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "dir"), 0o755)
	os.WriteFile(filepath.Join(root, "dir", "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(root, "dir", "b.txt"), []byte("b\n"), 0o644)
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("turn one\n"), 0o644)
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	if out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "1"}, nil, workspace.ApplyOnDisk(root)); err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "two", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "dir"), []byte("a file now\n"), 0o644)
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	out, err := s.Undo(ctx, workspace.UndoRequest{}, nil, workspace.ApplyOnDisk(root))
	if err != nil {
		t.Fatal(err)
	}
	if out.Applied || !strings.Contains(out.FailureReason, "dir/a.txt") {
		t.Fatalf("undo: applied %v (%s), want a refusal naming dir/a.txt", out.Applied, out.FailureReason)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "keep.txt")); string(b) != "before\n" {
		t.Errorf("the refused undo wrote keep.txt: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "dir")); string(b) != "a file now\n" {
		t.Errorf("the refused undo changed dir: %q", b)
	}
}

// TestFolderMovedInRightAfterARewindIsAnAgentsChange: a rewind removes
// dir/ (its only file); seconds later an agent with no hooks puts a new
// dir/ in place whole (made elsewhere and moved in, as the watcher sees a
// folder whose files were made before it could watch it). The folder's
// file is the agent's: an automatic turn lists it.
func TestFolderMovedInRightAfterARewindIsAnAgentsChange(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	ctx := context.Background()
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "one", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "dir"), 0o755)
	os.WriteFile(filepath.Join(root, "dir", "a.txt"), []byte("a\n"), 0o644)
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	if out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "1"}, nil, workspace.ApplyOnDisk(root)); err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	made := filepath.Join(t.TempDir(), "dir")
	os.MkdirAll(made, 0o755)
	os.WriteFile(filepath.Join(made, "new.txt"), []byte("the agent's\n"), 0o644)
	if err := os.Rename(made, filepath.Join(root, "dir")); err != nil {
		t.Skipf("cannot move a folder into the root: %v", err)
	}
	if got := lastTurnChanges(t, s, 2); got != "dir/new.txt create" {
		t.Fatalf("the automatic turn changed [%s], want dir/new.txt create", got)
	}
}

// TestFoldersARewindMadeAreNotTheAgentsTurn: an editor applies a rewind
// that brings back dir/ with its files (it writes them after it answered);
// right after, an agent with no hooks edits keep.txt. The automatic turn
// holds the agent's edit only: the rewind's folder is part of its start.
func TestFoldersARewindMadeAreNotTheAgentsTurn(t *testing.T) {
	var tr *Tracker
	s, tr, root := trackedWorkspace(t, TrackOptions{})
	ctx := context.Background()
	os.MkdirAll(filepath.Join(root, "dir", "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "dir", "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(root, "dir", "sub", "b.txt"), []byte("b\n"), 0o644)
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "one", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "dir"))
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	saved := make(chan struct{})
	editor := func(_ context.Context, _ string, ops []snapshot.FileOp, _ string) error {
		go func() { // the editor saves after it answered
			time.Sleep(50 * time.Millisecond)
			for _, op := range ops {
				p := filepath.Join(root, filepath.FromSlash(op.Path))
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, op.After, 0o644)
				tr.EditorSaved(op.Path, op.After)
			}
			close(saved)
		}()
		return nil
	}
	if out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "1"}, nil, editor); err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	<-saved
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("by the agent\n"), 0o644) // no turn open
	if got := lastTurnChanges(t, s, 2); got != "keep.txt modify" {
		t.Fatalf("the automatic turn changed [%s], want keep.txt modify", got)
	}
}

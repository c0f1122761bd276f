package live

import (
	"context"
	"fmt"
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
		got = append(got, c.Path+" "+string(c.Change))
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

// folderTurns records a hook's turn that makes dir/new.txt, then one that
// edits it, and reverts the second: the revert writes dir/new.txt (and
// removes nothing) seconds before the agent's change in the tests below.
func folderTurns(t *testing.T, s *workspace.Workspace, root string) {
	t.Helper()
	ctx := context.Background()
	newTxt := filepath.Join(root, "dir", "new.txt")
	for i, text := range []string{"in a new folder\n", "in a new folder\nedited\n"} {
		if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: fmt.Sprint("turn ", i+1), Source: "hook"}); err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(newTxt), 0o755)
		os.WriteFile(newTxt, []byte(text), 0o644)
		if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.Revert(ctx, workspace.RevertRequest{Target: "2"}, nil, workspace.ApplyOnDisk(root))
	if err != nil || !r.Applied {
		t.Fatalf("revert 2: %v %+v", err, r)
	}
	if b, _ := os.ReadFile(newTxt); string(b) != "in a new folder\n" {
		t.Fatalf("dir/new.txt after the revert: %q", b)
	}
}

// TestFolderMadeAFileRightAfterARevertIsTheAgents: a revert writes
// dir/new.txt; seconds later, no turn open, a shell replaces the folder dir
// with a file of that name and then edits keep.txt. The revert wrote in
// the folder but never removed it, nor wrote the file: the automatic turn
// holds the file dir, dir/new.txt gone and keep.txt, and its start none of
// them.
func TestFolderMadeAFileRightAfterARevertIsTheAgents(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	folderTurns(t, s, root)
	// The shell, with no turn open.
	os.RemoveAll(filepath.Join(root, "dir"))
	os.WriteFile(filepath.Join(root, "dir"), []byte("a folder became this file\n"), 0o644)
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("by the agent\n"), 0o644)
	if got := lastTurnChanges(t, s, 3); got != "dir create, dir/new.txt delete, keep.txt modify" {
		t.Fatalf("the automatic turn changed [%s], want dir create, dir/new.txt delete, keep.txt modify", got)
	}
}

// TestFolderRemovedRightAfterARevertIsTheAgents: as above, but the shell
// removes the folder and leaves nothing in its place.
func TestFolderRemovedRightAfterARevertIsTheAgents(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	folderTurns(t, s, root)
	os.RemoveAll(filepath.Join(root, "dir")) // the shell, no turn open
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("by the agent\n"), 0o644)
	if got := lastTurnChanges(t, s, 3); got != "dir/new.txt delete, keep.txt modify" {
		t.Fatalf("the automatic turn changed [%s], want dir/new.txt delete, keep.txt modify", got)
	}
}

// TestFolderEmptiedByARewindAndAnAgent: a rewind removes dir/a.txt (a
// turn made it) and leaves dir/b.txt; right after, no turn open, the
// agent removes dir/b.txt and the folder, then edits keep.txt. The folder
// went partly by the rewind, partly by the agent: the automatic turn's
// start holds dir/b.txt still, and the turn its deletion.
func TestFolderEmptiedByARewindAndAnAgent(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	ctx := context.Background()
	os.MkdirAll(filepath.Join(root, "dir"), 0o755)
	os.WriteFile(filepath.Join(root, "dir", "b.txt"), []byte("b\n"), 0o644)
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "one", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "dir", "a.txt"), []byte("a\n"), 0o644)
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	if out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "1"}, nil, workspace.ApplyOnDisk(root)); err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	// The agent, with no turn open.
	os.RemoveAll(filepath.Join(root, "dir"))
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("by the agent\n"), 0o644)
	if got := lastTurnChanges(t, s, 2); got != "dir/b.txt delete, keep.txt modify" {
		t.Fatalf("the automatic turn changed [%s], want dir/b.txt delete, keep.txt modify", got)
	}
}

// TestFolderGoneAfterARevertIsNoRewindsDoing judges the changes of the
// tests above one by one, with no automatic turn to capture them
// meanwhile: a revert wrote dir/new.txt seconds ago; the folder removed,
// or made a file, is a new change all the same, since the revert removed
// nothing in it, nor wrote the file; and so is a folder that takes that
// file's place again.
func TestFolderGoneAfterARevertIsNoRewindsDoing(t *testing.T) {
	s, tr, root := trackedWorkspace(t, TrackOptions{NoAutoTurns: true})
	folderTurns(t, s, root)
	dir := filepath.Join(root, "dir")
	os.RemoveAll(dir)
	if !tr.agentChange("dir") {
		t.Error("the folder removed after the revert is not judged a new change")
	}
	os.WriteFile(dir, []byte("a folder became this file\n"), 0o644)
	if !tr.agentChange("dir") {
		t.Error("the file that took the folder's place after the revert is not judged a new change")
	}
	if !tr.agentChange("dir/new.txt") {
		t.Error("dir/new.txt, gone with its folder, is not judged a new change")
	}
	// A hook's turn records the file; then a folder takes its place again,
	// empty, then with a file in it.
	ctx := context.Background()
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "three", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	os.Remove(dir)
	os.Mkdir(dir, 0o755)
	if !tr.agentChange("dir") {
		t.Error("the folder that took the file's place is not judged a new change")
	}
	os.WriteFile(filepath.Join(dir, "other.txt"), []byte("made in the folder\n"), 0o644)
	if !tr.agentChange("dir") {
		t.Error("the folder that took the file's place, a file in it, is not judged a new change")
	}
}

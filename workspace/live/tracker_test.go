package live

import (
	"context"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func trackedWorkspace(t *testing.T, opts TrackOptions) (*workspace.Workspace, *Tracker, string) {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("before\n"), 0o644)
	os.WriteFile(filepath.Join(root, "gone.txt"), []byte("delete me\n"), 0o644)
	s, err := workspace.Open(root, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Quiet == 0 {
		opts.Quiet = 300 * time.Millisecond
	}
	tr := Track(s, opts)
	t.Cleanup(tr.Close)
	<-tr.Ready()
	return s, tr, root
}

func turns(t *testing.T, s *workspace.Workspace) []journal.Turn {
	h, err := s.History()
	if err != nil {
		t.Fatal(err)
	}
	return h.Turns(0, 0)
}

// TestAutoTurnFromAnotherProcess: an agent (a separate process, no hooks)
// writes, deletes and renames files; an auto turn appears after the quiet
// period with exactly those files, and its start is the state before.
func TestAutoTurnFromAnotherProcess(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	agent := exec.Command("sh", "-c", "echo after > keep.txt; rm gone.txt; echo new > made.txt; mv made.txt renamed.txt; mkdir -p dir/sub; echo deep > dir/sub/f.txt")
	agent.Dir = root
	if out, err := agent.CombinedOutput(); err != nil {
		t.Fatalf("agent: %v %s", err, out)
	}
	waitUntil(t, "an ended auto turn", func() bool {
		ts := turns(t, s)
		return len(ts) == 1 && ts[0].End != nil
	})
	tt := turns(t, s)[0]
	if tt.Start.Source != journal.SourceAuto {
		t.Errorf("source %q", tt.Start.Source)
	}
	got := map[string]string{}
	for _, c := range tt.End.Changed {
		got[c.Path] = string(c.Change)
	}
	want := map[string]string{"keep.txt": "modify", "gone.txt": "delete", "renamed.txt": "create", "dir/sub/f.txt": "create"}
	if len(got) != len(want) {
		t.Fatalf("changed %v, want %v", got, want)
	}
	for p, c := range want {
		if got[p] != c {
			t.Errorf("%s: %q, want %q", p, got[p], c)
		}
	}
	// Rewinding to its start restores the state before the first write.
	out, err := s.Rewind(context.Background(), workspace.RewindRequest{Target: "1"}, nil, workspace.ApplyOnDisk(root))
	if err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "keep.txt")); string(b) != "before\n" {
		t.Errorf("keep.txt %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "renamed.txt")); err == nil {
		t.Errorf("renamed.txt survived the rewind")
	}
	// The rewind's own writes never become a turn.
	time.Sleep(600 * time.Millisecond)
	if n := len(turns(t, s)); n != 1 {
		t.Errorf("%d turns after the rewind's own writes, want 1", n)
	}
}

func TestEditorSavesAreNotTurns(t *testing.T) {
	editor := map[string]string{"keep.txt": "typed by the person\n"}
	s, _, root := trackedWorkspace(t, TrackOptions{IsEditor: func(rel string, data []byte) bool {
		return editor[rel] == string(data)
	}})
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("typed by the person\n"), 0o644)
	time.Sleep(800 * time.Millisecond)
	if n := len(turns(t, s)); n != 0 {
		t.Fatalf("an editor save became %d turns", n)
	}
}

func TestHookTurnSuppressesAutoTurns(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	if _, err := s.TurnStart(context.Background(), workspace.TurnRequest{Prompt: "by hook", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("agent\n"), 0o644)
	time.Sleep(800 * time.Millisecond)
	ts := turns(t, s)
	if len(ts) != 1 || ts[0].End != nil || ts[0].Start.Source != journal.SourceHook {
		t.Fatalf("turns %+v", ts)
	}
	end, _, err := s.TurnEnd(context.Background(), workspace.TurnRequest{})
	if err != nil || end == nil || len(end.Changed) != 1 {
		t.Fatalf("turn end: %v %+v", err, end)
	}
}

func TestPollingFallbackRecordsTurn(t *testing.T) {
	s, tr, root := trackedWorkspace(t, TrackOptions{MaxWatches: 1, PollInterval: 100 * time.Millisecond})
	os.MkdirAll(filepath.Join(root, "a"), 0o755)
	if tr.Mode() != "poll" {
		// The limit is one folder: the root alone fits, the new folder not.
		waitUntil(t, "polling", func() bool { return tr.Mode() == "poll" })
	}
	os.WriteFile(filepath.Join(root, "a", "x.txt"), []byte("agent\n"), 0o644)
	waitUntil(t, "an auto turn while polling", func() bool {
		ts := turns(t, s)
		return len(ts) == 1 && ts[0].End != nil && len(ts[0].End.Changed) == 1
	})
}

// TestCloseWaitsForAutoTurnEnd: an automatic turn whose quiet period ran out
// just before the tracker closes (its end waits for the journal lock) is
// still ended before Close returns, so a server that closes a root and
// exits records it, and nothing writes to the store after Close (a test's
// temporary store is deleted right after it).
func TestCloseWaitsForAutoTurnEnd(t *testing.T) {
	s, tr, root := trackedWorkspace(t, TrackOptions{})
	// Hold the journal lock while the automatic turn is open, so its end
	// (after the 300 ms quiet period) waits for it. Under load the turn may
	// end before the lock is taken: then another change opens another.
	var l *journal.Lock
	for try := 0; l == nil; try++ {
		if try == 10 {
			t.Fatal("the automatic turn always ended before the journal lock was taken")
		}
		os.WriteFile(filepath.Join(root, "keep.txt"), []byte(fmt.Sprintf("agent %d\n", try)), 0o644)
		waitUntil(t, "an open automatic turn", func() bool {
			ts := turns(t, s)
			return len(ts) == try+1 && ts[try].End == nil
		})
		lock, err := s.Journal().Lock()
		if err != nil {
			t.Fatal(err)
		}
		if ts := turns(t, s); ts[try].End == nil {
			l = lock
		} else {
			lock.Unlock()
		}
	}
	n := len(turns(t, s))
	waitUntil(t, "the automatic turn's end waiting for the lock", func() bool { return goroutineIn("(*Tracker).endAuto") })
	closed := make(chan struct{})
	go func() {
		tr.Close()
		close(closed)
	}()
	waitUntil(t, "Close waiting for the automatic turn's end", func() bool {
		select {
		case <-closed:
			l.Unlock()
			t.Fatal("Close returned while the automatic turn's end was under way")
		default:
		}
		return goroutineWaitingIn("(*Tracker).Close")
	})
	l.Unlock()
	<-closed
	if ts := turns(t, s); ts[n-1].End == nil {
		t.Fatalf("the automatic turn was left open: %+v", ts[n-1])
	}
}

// goroutineIn reports whether some goroutine is running fn (a function name
// as stack traces print it).
func goroutineIn(fn string) bool {
	return strings.Contains(allStacks(), "."+fn+"(")
}

// goroutineWaitingIn reports whether some goroutine is blocked in a select
// or channel operation in fn itself.
func goroutineWaitingIn(fn string) bool {
	for _, g := range strings.Split(allStacks(), "\n\n") {
		header, rest, _ := strings.Cut(g, "\n")
		top, _, _ := strings.Cut(rest, "\n")
		if (strings.Contains(header, "[select") || strings.Contains(header, "[chan receive")) && strings.Contains(top, "."+fn+"(") {
			return true
		}
	}
	return false
}

func allStacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// TestAutoTurnRightAfterRetention: retention has just run (it lets go of
// the running server's in-memory tree, so the next capture walks the
// root) when an agent with no hooks edits a file. The automatic turn's
// start is the state before the edit, so the turn lists it.
func TestAutoTurnRightAfterRetention(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	s.ResetCaches() // what retention does once it has run
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("by the agent\n"), 0o644)
	if got := lastTurnChanges(t, s, 1); got != "keep.txt modify" {
		t.Fatalf("the automatic turn changed [%s], want keep.txt modify", got)
	}
}

// TestSaveBeforeAgentWhileDecisionsLag: the decisions lag behind the disk
// (the editor is slow to say whether it saved a file), so when an agent
// with no hooks changes files right after a hook's turn, the change that
// opens the automatic turn is judged while the person's save made just
// before it still waits for its turn. The save is the person's: the
// automatic turn lists the agent's files only.
func TestSaveBeforeAgentWhileDecisionsLag(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{IsEditor: func(rel string, data []byte) bool {
		if rel == "slow.txt" {
			time.Sleep(400 * time.Millisecond)
		}
		return rel == "keep.txt" && string(data) == "typed by the person\n"
	}})
	ctx := context.Background()
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "one", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "slow.txt"), []byte("turn one\n"), 0o644)
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // slow.txt's batch is being judged
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("typed by the person\n"), 0o644)
	time.Sleep(50 * time.Millisecond)
	os.WriteFile(filepath.Join(root, "slow.txt"), []byte("by the agent\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("by the agent\n"), 0o644)
	if got := lastTurnChanges(t, s, 2); got != "b.txt create, slow.txt modify" {
		t.Fatalf("the automatic turn changed [%s], want the agent's b.txt and slow.txt", got)
	}
}

// TestEmptyFoldersAreNoTurn: an agent with no hooks makes folders and
// leaves them empty (or empties them again). A snapshot holds files, not
// empty folders: there is nothing to record, and no automatic turn.
func TestEmptyFoldersAreNoTurn(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	if err := os.MkdirAll(filepath.Join(root, "n", "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "n", "a", "b", "f.txt"), []byte("made and deleted\n"), 0o644)
	os.Remove(filepath.Join(root, "n", "a", "b", "f.txt"))
	time.Sleep(time.Second) // three quiet periods
	if ts := turns(t, s); len(ts) != 0 {
		t.Fatalf("empty folders made %d turns: %+v", len(ts), ts[0].Start)
	}
}

// TestChmodOfAFileTheEditorSavedIsAnAgentsChange: the person saved
// keep.txt in the editor (its buffer holds what the file holds); then an
// agent with no hooks makes it executable. The content is the editor's,
// the mode is not (editors keep a file's mode): an automatic turn.
func TestChmodOfAFileTheEditorSavedIsAnAgentsChange(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{IsEditor: func(rel string, data []byte) bool {
		return rel == "keep.txt" && string(data) == "before\n"
	}})
	if err := os.Chmod(filepath.Join(root, "keep.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := lastTurnChanges(t, s, 1); got != "keep.txt modify" {
		t.Fatalf("the automatic turn changed [%s], want keep.txt modify", got)
	}
}

// TestAutoTurnSteps: an agent with no hooks writes, pauses longer than the
// step's quiet period, and writes again: its automatic turn has two steps,
// each with its own file, and rewinding to the second step's start puts
// back the state between them.
func TestAutoTurnSteps(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{Quiet: 1500 * time.Millisecond, StepQuiet: 250 * time.Millisecond})
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("first burst\n"), 0o644)
	time.Sleep(700 * time.Millisecond)
	os.WriteFile(filepath.Join(root, "second.txt"), []byte("second burst\n"), 0o644)
	waitUntil(t, "the automatic turn's end", func() bool {
		ts := turns(t, s)
		return len(ts) == 1 && ts[0].End != nil
	})
	h, _ := s.History()
	steps := h.Steps(turns(t, s)[0].Start)
	if len(steps) != 2 || len(steps[0].Changed) != 1 || steps[0].Changed[0].Path != "keep.txt" ||
		len(steps[1].Changed) != 1 || steps[1].Changed[0].Path != "second.txt" {
		t.Fatalf("steps %+v", steps)
	}
	out, err := s.Rewind(context.Background(), workspace.RewindRequest{Target: "1.2"}, nil, workspace.ApplyOnDisk(root))
	if err != nil || !out.Applied {
		t.Fatalf("rewind 1.2: %v %+v", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "keep.txt")); string(got) != "first burst\n" {
		t.Fatalf("keep.txt after rewind 1.2: %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "second.txt")); err == nil {
		t.Fatal("second.txt is still there after the rewind to before the second step")
	}
	// Its bursts are no agent's calls: the turn wrote every file that
	// changed in it, so a revert of the whole turn takes both back.
	if _, err := s.Undo(context.Background(), workspace.UndoRequest{}, nil, workspace.ApplyOnDisk(root)); err != nil {
		t.Fatal(err)
	}
	if end := turns(t, s)[0].End; end.Attributed {
		t.Fatalf("the automatic turn's end says an agent reported its calls: wrote %v", end.Wrote)
	}
	r, err := s.Revert(context.Background(), workspace.RevertRequest{Target: "1"}, nil, workspace.ApplyOnDisk(root))
	if err != nil || !r.Applied {
		t.Fatalf("revert 1: %v %+v", err, r)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "keep.txt")); string(got) != "before\n" {
		t.Fatalf("keep.txt after the revert of the automatic turn: %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "second.txt")); err == nil {
		t.Fatal("second.txt is still there after the revert of the automatic turn")
	}
}

// TestAgentRewritesAFileThePersonSaved: the person saves keep.txt (no
// capture follows: no turn is open); later an agent with no hooks writes
// slow.txt and then keep.txt, and the decisions lag (the editor is slow to
// say whether it saved slow.txt), so keep.txt's new change waits behind
// the one that opens the automatic turn. The person's save was judged
// before the agent wrote the file: that says nothing of what keep.txt
// holds now, and the turn lists both of the agent's files.
func TestAgentRewritesAFileThePersonSaved(t *testing.T) {
	judging, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s, tr, root := trackedWorkspace(t, TrackOptions{IsEditor: func(rel string, data []byte) bool {
		if rel == "slow.txt" {
			once.Do(func() { close(judging) })
			<-release
		}
		return rel == "keep.txt" && string(data) == "typed by the person\n"
	}})
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("typed by the person\n"), 0o644)
	waitUntil(t, "the person's save judged", func() bool {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		return tr.cleared["keep.txt"]
	})
	os.WriteFile(filepath.Join(root, "slow.txt"), []byte("by the agent\n"), 0o644)
	<-judging
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("by the agent\n"), 0o644)
	waitUntil(t, "the agent's keep.txt among the changes", func() bool {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		return len(tr.queue) > 0
	})
	close(release)
	if got := lastTurnChanges(t, s, 1); got != "keep.txt modify, slow.txt create" {
		t.Fatalf("the automatic turn changed [%s], want keep.txt modify, slow.txt create", got)
	}
}

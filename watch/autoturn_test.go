package watch_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/watch"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"github.com/rewind-lsp/rewind-lsp/workspace/live"
)

// This test lives beside the watcher, not the tracker, because it drives
// the watcher's own hooks (the order of a batch and a Take).

// TestAutoTurnKeepsAChangeOfARecordedFile is the soak's miss, in order: a
// hook's turn writes shell.txt and ends before the tracker judged that
// write, so the judgement finds it recorded (no agent's change). Then,
// with no turn open, the shell writes agent.txt and shell.txt again.
// agent.txt opens an automatic turn; shell.txt's batch is under way when
// the turn's start is taken: it is in the changes already, and its
// OnBatch, which drops the stale judgement, has not run (it is held until
// the turn started, or until the Take waits for it). A Take that does not
// wait pairs shell.txt's new content with the judgement of the old one,
// puts it into the turn's start, and the turn leaves it out.
func TestAutoTurnKeepsAChangeOfARecordedFile(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("before\n"), 0o644)
	s, err := workspace.Open(root, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	guard := func(what string, ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		case <-time.After(10 * time.Second):
			t.Errorf("timed out waiting for %s", what)
			return false
		}
	}
	autoOpen := func() bool {
		h, err := s.History()
		if err != nil {
			return false
		}
		open := h.OpenTurn()
		return open != nil && open.Source == "auto"
	}

	// The shell's second write of shell.txt: its batch is held before it
	// reaches the tracker, until the automatic turn started or a Take waits.
	var holdOnce sync.Once
	held := make(chan struct{})
	waits := make(chan struct{}, 1)
	watch.SetTestHooks(func(paths []string) {
		if !slices.Contains(paths, "shell.txt") {
			return
		}
		data, _ := os.ReadFile(filepath.Join(root, "shell.txt"))
		if string(data) != "two\n" {
			return
		}
		holdOnce.Do(func() {
			select { // a Take that waited before the hold waited for another batch
			case <-waits:
			default:
			}
			close(held)
			deadline := time.Now().Add(10 * time.Second)
			for !autoOpen() && time.Now().Before(deadline) {
				select {
				case <-waits:
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		})
	}, func() {
		select {
		case waits <- struct{}{}:
		default:
		}
	})

	judging, ended := make(chan struct{}), make(chan struct{})
	var judgeOnce, agentOnce sync.Once
	tr := live.Track(s, live.TrackOptions{Quiet: 300 * time.Millisecond,
		IsEditor: func(rel string, data []byte) bool {
			switch {
			case rel == "shell.txt" && string(data) == "one\n":
				// The hook's turn ends before this judgement is made.
				judgeOnce.Do(func() {
					close(judging)
					guard("the hook's turn to end", ended)
				})
			case rel == "agent.txt":
				// shell.txt's second write comes while agent.txt is judged:
				// its batch arrives after agent.txt's.
				agentOnce.Do(func() {
					os.WriteFile(filepath.Join(root, "shell.txt"), []byte("two\n"), 0o644)
					guard("shell.txt's second batch", held)
				})
			}
			return false
		}})
	t.Cleanup(func() { watch.SetTestHooks(nil, nil) }) // after the tracker closed
	t.Cleanup(tr.Close)
	<-tr.Ready()

	ctx := context.Background()
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: "one", Source: "hook"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "shell.txt"), []byte("one\n"), 0o644)
	if !guard("shell.txt's first write to be judged", judging) {
		return
	}
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
	close(ended)

	// No turn open: the shell again.
	os.WriteFile(filepath.Join(root, "agent.txt"), []byte("new\n"), 0o644)

	var auto *journal.Turn
	deadline := time.Now().Add(15 * time.Second)
	for auto == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		h, err := s.History()
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range h.Turns(0, 0) {
			if tt.Start.Source == "auto" && tt.End != nil {
				auto = &tt
			}
		}
	}
	if auto == nil {
		t.Fatal("no automatic turn ended")
	}
	var changed []string
	for _, c := range auto.End.Changed {
		changed = append(changed, c.Path)
	}
	slices.Sort(changed)
	if !slices.Equal(changed, []string{"agent.txt", "shell.txt"}) {
		t.Fatalf("the automatic turn changed %v, want [agent.txt shell.txt]", changed)
	}
}

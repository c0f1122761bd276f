package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestChangesSinceTake: the first Take asks for a full walk; then each
// Take returns exactly what changed since the one before (written,
// removed, chmod'ed — an attribute change counts), nothing twice, and what
// is given back comes again.
func TestChangesSinceTake(t *testing.T) {
	root, store := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(root, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	c := Watch(root, Options{SentinelDir: store})
	defer c.Close()
	if _, full := c.Take(); !full {
		t.Fatal("the first Take did not ask for a full walk")
	}
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("changed"), 0o644)
	os.WriteFile(filepath.Join(root, "new.txt"), []byte("new"), 0o644)
	paths, full := c.Take()
	sort.Strings(paths)
	if full || len(paths) != 2 || paths[0] != "a.txt" || paths[1] != "new.txt" {
		t.Fatalf("Take after two writes: %v full=%v", paths, full)
	}
	if paths, full := c.Take(); full || len(paths) != 0 {
		t.Fatalf("a second Take: %v full=%v", paths, full)
	}
	os.Chmod(filepath.Join(root, "run.sh"), 0o644) // chmod -x
	if paths, _ := c.Take(); len(paths) != 1 || paths[0] != "run.sh" {
		t.Fatalf("Take after chmod -x: %v", paths)
	}
	c.GiveBack([]string{"run.sh"}, false)
	if paths, _ := c.Take(); len(paths) != 1 || paths[0] != "run.sh" {
		t.Fatalf("Take after GiveBack: %v", paths)
	}
}

// TestChangesBatchesAndPolling: batches reach OnBatch as they arrive;
// past the watch limit the changes fall back to rescans (every Take is a
// full walk), PollReason says why as soon as Mode says "poll", and Log
// says so too. The log line is slow here (100 ms, as on a loaded machine
// or behind a busy editor connection): the fallback takes effect without
// waiting for it, so it may arrive after Mode already says "poll".
func TestChangesBatchesAndPolling(t *testing.T) {
	root := t.TempDir()
	var batches atomic.Int32
	var logged atomic.Value
	c := Watch(root, Options{MaxWatches: 1, PollInterval: 50 * time.Millisecond,
		OnBatch: func([]string, bool) { batches.Add(1) },
		Log: func(msg string) {
			time.Sleep(100 * time.Millisecond)
			logged.Store(msg)
		}})
	defer c.Close()
	c.Take()
	os.WriteFile(filepath.Join(root, "f"), []byte("x"), 0o644)
	eventually(t, "a batch", func() bool { return batches.Load() > 0 })
	os.MkdirAll(filepath.Join(root, "sub"), 0o755) // a second folder: past the limit
	eventually(t, "polling", func() bool { return c.Mode() == "poll" })
	if why := c.PollReason(); !strings.Contains(why, "too many folders") {
		t.Fatalf("Mode says poll, PollReason %q: want why", why)
	}
	if _, full := c.Take(); !full {
		t.Fatal("a Take while polling did not ask for a full walk")
	}
	eventually(t, "the fallback to rescans logged", func() bool {
		msg, _ := logged.Load().(string)
		return strings.Contains(msg, "rescanning") && strings.Contains(msg, "too many folders")
	})
}

// TestFileReportsChanges: File calls back once per change of the file,
// made by anyone, and not for other files in its folder; a change made
// right after File returns counts.
func TestFileReportsChanges(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "journal")
	os.WriteFile(p, []byte("one\n"), 0o600)
	var n atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := File(ctx, p, func() { n.Add(1) }, nil)
	os.WriteFile(filepath.Join(dir, "other"), []byte("x"), 0o600)
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("two\n")
	f.Close()
	eventually(t, "the change", func() bool { return n.Load() == 1 })
	time.Sleep(200 * time.Millisecond)
	if got := n.Load(); got != 1 {
		t.Fatalf("%d calls for one append", got)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("File did not stop with its context")
	}
}

// TestTakeWaitsForASlowWatcher: a Take sees a change made before it even
// when the watcher's goroutine gets to its events late, as on a loaded
// machine (here each event waits 200 ms before it is handled): a turn
// boundary right after an agent's last write must not miss it.
func TestTakeWaitsForASlowWatcher(t *testing.T) {
	root, store := t.TempDir(), t.TempDir()
	c := Watch(root, Options{SentinelDir: store})
	defer c.Close()
	c.Take()
	c.tree.eventDelay.Store(int64(200 * time.Millisecond))
	os.WriteFile(filepath.Join(root, "last.txt"), []byte("the agent's last write"), 0o644)
	if paths, full := c.Take(); full || !slices.Contains(paths, "last.txt") {
		t.Fatalf("Take missed a write made before it: %v (full %v)", paths, full)
	}
}

// TestTakeWaitsForABatchUnderWay: a Take never returns a path before
// OnBatch returned for the batch that brought it. OnBatch drops what its
// receiver knew of the path (a judgement of its content before this
// change): a Take that saw the path first would pair the new content with
// the stale judgement. Here OnBatch of late.txt's batch is held until the
// Take waits for it; a Take that returns meanwhile breaks the contract.
func TestTakeWaitsForABatchUnderWay(t *testing.T) {
	root, store := t.TempDir(), t.TempDir()
	var once sync.Once
	held, release := make(chan struct{}), make(chan struct{})
	var delivered atomic.Bool
	c := Watch(root, Options{SentinelDir: store, OnBatch: func(paths []string, full bool) {
		if slices.Contains(paths, "late.txt") {
			once.Do(func() {
				close(held)
				<-release
				delivered.Store(true)
			})
		}
	}})
	defer c.Close()
	c.Take()
	waits := make(chan struct{}, 1)
	flushWaits = func() {
		select {
		case waits <- struct{}{}:
		default:
		}
	}
	defer func() { flushWaits = nil }()
	os.WriteFile(filepath.Join(root, "late.txt"), []byte("x"), 0o644)
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("late.txt's batch never reached OnBatch")
	}
	took := make(chan []string, 1)
	go func() {
		paths, _ := c.Take()
		took <- paths
	}()
	select {
	case paths := <-took:
		close(release)
		t.Fatalf("Take returned %v while the batch that brought late.txt was still being delivered", paths)
	case <-waits:
	}
	close(release)
	if paths := <-took; !slices.Contains(paths, "late.txt") || !delivered.Load() {
		t.Fatalf("Take after the batch under way: %v (its OnBatch returned: %v)", paths, delivered.Load())
	}
}

// TestTakesInARowWaitForASlowWatcher: two Takes in a row, each after a
// write, on a loaded machine (each event waits 50 ms before it is
// handled): the second sees its write though the events of the first
// Take's sentinel are still coming when it starts (one of them must not
// stand for the second's).
func TestTakesInARowWaitForASlowWatcher(t *testing.T) {
	root, store := t.TempDir(), t.TempDir()
	c := Watch(root, Options{SentinelDir: store})
	defer c.Close()
	c.Take()
	c.tree.eventDelay.Store(int64(50 * time.Millisecond))
	for _, name := range []string{"one.txt", "two.txt", "three.txt"} {
		os.WriteFile(filepath.Join(root, name), []byte("the agent's write"), 0o644)
		if paths, full := c.Take(); full || !slices.Contains(paths, name) {
			t.Fatalf("Take missed %s, written before it: %v (full %v)", name, paths, full)
		}
	}
}

package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// collector gathers a watcher's batches.
type collector struct {
	mu    sync.Mutex
	paths map[string]bool
	fulls int
}

func (c *collector) on(paths []string, full bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range paths {
		c.paths[p] = true
	}
	if full {
		c.fulls++
	}
}

func (c *collector) waitFor(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		ok := true
		for _, w := range want {
			ok = ok && c.paths[w]
		}
		c.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var got []string
	for p := range c.paths {
		got = append(got, p)
	}
	sort.Strings(got)
	t.Fatalf("watcher reported %v, want %v among them", got, want)
}

func TestWatcherSeesNewFoldersAndSkipsIgnored(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("node_modules/\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "node_modules", "x"), 0o755)
	col := &collector{paths: map[string]bool{}}
	w := NewTree(root, TreeOptions{OnChange: col.on})
	defer w.Close()
	if w.Mode() != "watch" {
		t.Fatalf("mode %s", w.Mode())
	}
	// A folder created and filled right away: the files inside are seen.
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	time.Sleep(50 * time.Millisecond) // let the new folder's watch be added
	os.WriteFile(filepath.Join(root, "a", "b", "f.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "node_modules", "x", "ignored.js"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "top.txt"), []byte("x"), 0o644)
	col.waitFor(t, "a", "a/b/f.txt", "top.txt")
	col.mu.Lock()
	for p := range col.paths {
		if strings.HasPrefix(p, "node_modules") {
			t.Errorf("ignored path reported: %s", p)
		}
	}
	col.mu.Unlock()
	// A removed folder is reported and dropped.
	os.RemoveAll(filepath.Join(root, "a"))
	col.waitFor(t, "a")
}

func TestWatcherFallsBackToPolling(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	col := &collector{paths: map[string]bool{}}
	var logs []string
	var mu sync.Mutex
	w := NewTree(root, TreeOptions{MaxWatches: 2, PollInterval: 20 * time.Millisecond, OnChange: col.on,
		Log: func(s string) { mu.Lock(); logs = append(logs, s); mu.Unlock() }})
	defer w.Close()
	if w.Mode() != "poll" {
		t.Fatalf("mode %s, want poll past the watch limit", w.Mode())
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		col.mu.Lock()
		n := col.fulls
		col.mu.Unlock()
		if n >= 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if col.fulls < 2 {
		t.Fatalf("polling delivered %d rescans", col.fulls)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logs) != 1 || !strings.Contains(logs[0], "too many folders") {
		t.Fatalf("want one log line saying why, got %q", logs)
	}
}

// TestKqueueBudgetCountsFiles: where a watch costs a descriptor per file
// (kqueue, on macOS and the BSDs), a few folders holding many files pass
// the budget and the watcher polls, saying why; the same tree counted per
// folder is watched.
func TestKqueueBudgetCountsFiles(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b"} {
		for i := 0; i < 20; i++ {
			p := filepath.Join(root, d, fmt.Sprintf("f%02d.go", i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("package x\n"), 0o644)
		}
	}
	perFolder := NewTree(root, TreeOptions{MaxWatches: 30, PollInterval: time.Hour, OnChange: func([]string, bool) {}})
	mode := perFolder.Mode()
	perFolder.Close()
	if mode != "watch" && runtime.GOOS == "linux" {
		t.Fatalf("3 folders under a budget of 30: mode %s", mode)
	}
	old := costOf
	costOf = kqueueCost
	defer func() { costOf = old }()
	var logs []string
	var mu sync.Mutex
	w := NewTree(root, TreeOptions{MaxWatches: 30, PollInterval: time.Hour, OnChange: func([]string, bool) {},
		Log: func(s string) { mu.Lock(); logs = append(logs, s); mu.Unlock() }})
	defer w.Close()
	if w.Mode() != "poll" {
		t.Fatalf("43 descriptors under a budget of 30: mode %s, want poll", w.Mode())
	}
	if r := w.PollReason(); !strings.Contains(r, "too many folders") || !strings.Contains(r, "the limit is 30") {
		t.Fatalf("poll reason %q", r)
	}
}

// TestFolderMadeWhileItsParentIsBeingWatched: an agent makes a/ and, at
// the very moment the watcher lists a/ to watch it, a/late/ inside it.
// Every later change in a/late/ is reported: the folder is either in the
// listing or reported as made after the watch began.
func TestFolderMadeWhileItsParentIsBeingWatched(t *testing.T) {
	root := t.TempDir()
	afterList = func(rel string) {
		if rel == "a" {
			os.Mkdir(filepath.Join(root, "a", "late"), 0o755)
		}
	}
	defer func() { afterList = nil }()
	col := &collector{paths: map[string]bool{}}
	w := NewTree(root, TreeOptions{OnChange: col.on})
	defer w.Close()
	os.Mkdir(filepath.Join(root, "a"), 0o755)
	col.waitFor(t, "a")
	time.Sleep(50 * time.Millisecond) // a/late's event, if any, is handled
	os.WriteFile(filepath.Join(root, "a", "late", "f.txt"), []byte("x"), 0o644)
	col.waitFor(t, "a/late/f.txt")
}

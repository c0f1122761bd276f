package watch

import (
	"sync"
	"time"
)

// Options configure Watch.
type Options struct {
	// MaxWatches bounds the folders watched; past it (or past the kernel's
	// limit) changes come from periodic rescans. 0 means the kernel's limit.
	MaxWatches int
	// PollInterval is the rescan period when polling (default 2s).
	PollInterval time.Duration
	// SentinelDir is a folder outside the root that may be written (the
	// store): Take makes a file of its own there and waits for its event,
	// so every change made before Take is in what it returns.
	SentinelDir string
	// Log receives one line when watching falls back to rescans (after Mode
	// already says "poll": PollReason has the reason at once, the line may
	// come later), and errors of the notification source.
	Log func(msg string)
	// OnBatch, when set, receives every batch as it arrives, one at a
	// time, in order (after it was added to the changes Pending sees, and
	// before any Take returns one of its paths: see the package doc); full
	// means the changed paths are unknown (rescans, lost events). It must
	// not call Take, which would wait for it.
	OnBatch func(paths []string, full bool)
}

// Changes is what changed under a root since the last Take: root-relative
// paths of files and folders, or "everything" (full) when the paths are
// unknown — before the first Take, while polling, after lost events. It is
// safe for concurrent use.
type Changes struct {
	tree    *Tree
	onBatch func(paths []string, full bool)

	mu     sync.Mutex
	dirty  map[string]bool
	full   bool
	closed bool
}

// Watch starts watching root (absolute).
func Watch(root string, opts Options) *Changes {
	c := &Changes{onBatch: opts.OnBatch, dirty: map[string]bool{}, full: true}
	c.tree = NewTree(root, TreeOptions{MaxWatches: opts.MaxWatches, PollInterval: opts.PollInterval,
		Log: opts.Log, SentinelDir: opts.SentinelDir, OnChange: c.record})
	return c
}

func (c *Changes) record(paths []string, full bool) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	for _, p := range paths {
		c.dirty[p] = true
	}
	c.full = c.full || full
	c.mu.Unlock()
	// Outside mu (OnBatch may ask Pending), inside the tree's delivery
	// order: a Take collects before this batch or after OnBatch returned.
	if testHookBatch != nil {
		testHookBatch(paths)
	}
	if c.onBatch != nil {
		c.onBatch(paths, full)
	}
}

// testHookBatch, set by tests, runs when a batch is about to reach OnBatch
// (its paths already are in the changes).
var testHookBatch func(paths []string)

// settleMax bounds Take's wait for the notifications queued before it. The
// sentinel's event comes within a millisecond on an idle machine, but under
// load the watcher's goroutine may run hundreds of milliseconds later (or
// still be busy watching a large folder that just appeared), and a Take
// that returned before would miss the agent's last writes. The bound only
// matters when the sentinel's event never comes, which Settle notices.
const settleMax = 5 * time.Second

// Take returns what changed since the last Take (once the notifications
// the kernel queued before the call are in, and OnBatch returned for each
// of their batches), and forgets it: the changed paths, or full when a
// walk of the whole root is needed instead. A batch under way is waited
// for: Take never returns a path before OnBatch returned for its batch.
func (c *Changes) Take() (paths []string, full bool) {
	c.mu.Lock()
	walk := c.full
	c.mu.Unlock()
	if !walk { // a walk sees every change made before it anyway
		c.tree.Settle(settleMax)
	}
	// Collected in the delivery order: a batch under way is delivered
	// first, its OnBatch returned (see the package doc).
	c.tree.Flush(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.full || c.tree.Mode() == "poll" {
			c.full = false
			c.dirty = map[string]bool{}
			paths, full = nil, true
			return
		}
		paths = make([]string, 0, len(c.dirty))
		for p := range c.dirty {
			paths = append(paths, p)
		}
		c.dirty = map[string]bool{}
	})
	return paths, full
}

// Pending returns the changed paths the next Take would return (nil when
// it would say full), without forgetting them.
func (c *Changes) Pending() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.full {
		return nil
	}
	paths := make([]string, 0, len(c.dirty))
	for p := range c.dirty {
		paths = append(paths, p)
	}
	return paths
}

// GiveBack returns what a Take gave to the changes (a capture of them
// failed), so the next Take has them again.
func (c *Changes) GiveBack(paths []string, full bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range paths {
		c.dirty[p] = true
	}
	c.full = c.full || full
}

// Mode is "watch" while notifications work, "poll" after the fallback to
// rescans.
func (c *Changes) Mode() string { return c.tree.Mode() }

// PollReason says why changes come from rescans ("" while notifications
// work).
func (c *Changes) PollReason() string { return c.tree.PollReason() }

// Close stops watching; no batch arrives after it returns.
func (c *Changes) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.tree.Close()
}

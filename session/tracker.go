package session

import (
	"context"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// TrackOptions configure live tracking of a root (SPEC §5.4).
type TrackOptions struct {
	// Quiet ends an automatic turn after this long without agent changes
	// (autoTurnQuietMs; default 3s).
	Quiet time.Duration
	// MaxWatches and PollInterval are passed to the watcher.
	MaxWatches   int
	PollInterval time.Duration
	// IsEditor reports whether data (nil: the file is gone) is what the
	// editor holds for rel: a save from the editor, the person's edit.
	IsEditor func(rel string, data []byte) bool
	// Log receives messages for the user (the fallback to polling).
	Log func(string)
	// NoAutoTurns disables automatic turns (tracking still narrows
	// captures).
	NoAutoTurns bool
}

// Tracker keeps a running server's captures O(changed) — the watcher's
// changed paths narrow each capture — and records automatic turns: with
// no turn open, disk changes that did not come from the editor, nor from a
// rewind or undo, open an `auto` turn whose start is the state before the
// first change; it ends after a quiet period.
type Tracker struct {
	s    *Session
	opts TrackOptions
	w    *snapshot.Watcher

	// capMu makes taking the changed paths and capturing them one step:
	// two interleaved captures could otherwise return a state older than a
	// change made before the later one started.
	capMu sync.Mutex

	mu       sync.Mutex
	cleared  map[string]bool // dirty paths the decision loop found no agent's change
	dirty    map[string]bool
	full     bool
	autoTurn string // entry id of the automatic turn this tracker opened
	quiet    *time.Timer
	lockFile *os.File // the recorder lock, once held
	closed   bool
	expected map[string]expectation // what a rewind in this process is writing
	queue    []batch                // batches waiting for an automatic-turn decision
	wake     chan struct{}
	ready    chan struct{} // closed once the first capture is done
	done     chan struct{} // closed when the tracker's goroutine ends
	ctx      context.Context
	cancel   context.CancelFunc
}

// Ready is closed once the tracker made its first capture.
func (t *Tracker) Ready() <-chan struct{} { return t.ready }

type batch struct {
	paths []string
	full  bool
}

// Track starts tracking the session's root. Captures of the session then
// use the tracker's changed paths.
func (s *Session) Track(opts TrackOptions) *Tracker {
	if opts.Quiet <= 0 {
		opts.Quiet = 3 * time.Second
	}
	s.capturer.KeepLive()
	t := &Tracker{s: s, opts: opts, dirty: map[string]bool{}, full: true, wake: make(chan struct{}, 1),
		ready: make(chan struct{}), done: make(chan struct{})}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	t.w = snapshot.NewWatcher(s.root, snapshot.WatchOptions{
		MaxWatches: opts.MaxWatches, PollInterval: opts.PollInterval, Log: opts.Log, SentinelDir: s.dir,
		OnChange: t.record,
	})
	s.mu.Lock()
	s.tracker = t
	s.mu.Unlock()
	go t.run()
	return t
}

// Mode is "watch" or "poll", or "starting" until the first capture.
func (t *Tracker) Mode() string {
	select {
	case <-t.ready:
		return t.w.Mode()
	default:
		return "starting"
	}
}

// Close stops tracking.
func (t *Tracker) Close() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.closed = true
	if t.quiet != nil {
		t.quiet.Stop()
	}
	lf := t.lockFile
	t.mu.Unlock()
	t.w.Close()
	t.cancel() // an initial capture still walking stops
	close(t.wake)
	select { // the tracker's goroutine ends before its store is let go
	case <-t.done:
	case <-time.After(10 * time.Second):
	}
	t.s.capturer.Flush()
	if lf != nil {
		lf.Close() // releases the recorder lock
	}
	t.s.mu.Lock()
	if t.s.tracker == t {
		t.s.tracker = nil
	}
	t.s.mu.Unlock()
}

// take returns the changed paths since the last capture (after letting the
// watcher deliver what the kernel queued), and whether a full walk is
// needed instead.
func (t *Tracker) take() ([]string, bool) {
	t.w.Settle(50 * time.Millisecond)
	t.w.Flush()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.full || t.w.Mode() == "poll" {
		t.full = false
		t.dirty = map[string]bool{}
		return nil, true
	}
	paths := make([]string, 0, len(t.dirty))
	for p := range t.dirty {
		paths = append(paths, p)
	}
	t.dirty = map[string]bool{}
	t.cleared = map[string]bool{}
	return paths, false
}

// captureNow captures the disk, narrowed to the changed paths when it can.
func (t *Tracker) captureNow(ctx context.Context) (*snapshot.Result, error) {
	t.capMu.Lock()
	defer t.capMu.Unlock()
	tr := snapshot.NewTracer("settle")
	paths, full := t.take()
	tr.Done()
	var res *snapshot.Result
	var err error
	if full {
		res, err = t.s.capturer.Capture(ctx, nil)
	} else {
		res, err = t.s.capturer.CaptureChanged(ctx, paths)
	}
	if err != nil {
		t.giveBack(paths, full)
		return nil, err
	}
	t.s.noteCapture(res)
	return res, nil
}

// giveBack returns paths to the dirty set after a failed capture.
func (t *Tracker) giveBack(paths []string, full bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range paths {
		t.dirty[p] = true
	}
	t.full = t.full || full
}

// record notes a batch of changed paths at once (so the next capture
// sees them) and queues it for the automatic-turn decision, made on the
// tracker's goroutine: record may run under the journal lock.
func (t *Tracker) record(paths []string, full bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	for _, p := range paths {
		t.dirty[p] = true
	}
	if full {
		t.full = true
	}
	if t.opts.NoAutoTurns {
		return
	}
	t.queue = append(t.queue, batch{paths, full})
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *Tracker) run() {
	defer close(t.done)
	// The first capture is the state before any change the tracker sees.
	t.captureNow(t.ctx)
	// Its walk's garbage is the server's largest; hand the memory back to
	// the system, since a running server then only grows with changes.
	debug.FreeOSMemory()
	close(t.ready)
	for range t.wake {
		for {
			t.mu.Lock()
			if len(t.queue) == 0 || t.closed {
				t.mu.Unlock()
				break
			}
			b := t.queue[0]
			t.queue = t.queue[1:]
			t.mu.Unlock()
			t.decide(b)
		}
	}
}

package live

import (
	"context"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/watch"
)

// TrackOptions configure live tracking of a root: what changed on disk
// narrows captures, and agent changes with no turn open become automatic
// turns.
type TrackOptions struct {
	// Quiet ends an automatic turn after this long without agent changes
	// (autoTurnQuietMs; default 3s).
	Quiet time.Duration
	// StepQuiet ends a step of an automatic turn — a burst of changes —
	// after this long without agent changes (stepQuietMs; default 1s; < 0:
	// an automatic turn is one step).
	StepQuiet time.Duration
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
	s    Host
	opts TrackOptions
	ch   *watch.Changes // what changed since the last capture

	// capMu makes taking the changed paths and capturing them one step:
	// two interleaved captures could otherwise return a state older than a
	// change made before the later one started.
	capMu sync.Mutex

	mu     sync.Mutex
	lastID snapshot.ID // the latest capture of the disk
	// cleared holds the changed paths found no agent's change since their
	// latest batch: a batch that brings a path again drops it, so a
	// judgement never stands for a change made after it (see queueBatch).
	cleared  map[string]bool
	batches  uint64            // the batches queued so far
	newest   map[string]uint64 // for a path with a batch not decided yet, its latest batch's number
	autoTurn journal.EntryID   // entry id of the automatic turn this tracker opened
	quiet    *time.Timer
	step     *time.Timer // ends the automatic turn's burst of changes (StepQuiet)
	// ending counts the quiet timer's endAuto calls under way: Close waits
	// for them, since they write to the store.
	ending   sync.WaitGroup
	lockFile *os.File // the recorder lock, once held
	closed   bool
	expected map[string]expectation        // what a rewind in this process is writing
	ranOps   map[journal.EntryID]time.Time // operations this process ran lately
	queue    []batch                       // batches waiting for an automatic-turn decision
	// rescanAfter paces the rescans of a polling tracker: none starts
	// before it (see pollCheck).
	rescanAfter time.Time
	wake        chan struct{}
	ready       chan struct{} // closed once the first capture is done
	done        chan struct{} // closed when the tracker's goroutine ends
	ctx         context.Context
	cancel      context.CancelFunc
}

// Ready is closed once the tracker made its first capture.
func (t *Tracker) Ready() <-chan struct{} { return t.ready }

type batch struct {
	paths []string
	full  bool
	n     uint64 // its number: the batches queued before it, and one
}

// Host is what live tracking needs of its workspace (a
// *workspace.Workspace): where the root and its store are, its
// transactions, and the place of its live tracking.
type Host interface {
	Root() string
	Dir() string
	Objects() *snapshot.Objects
	Capturer() *snapshot.Capturer
	History() (*journal.History, error)
	Update(ctx context.Context, key string, made func(*journal.Entry) bool, fn func(tx *workspace.Tx) error) error
	RecordTool(ctx context.Context, c workspace.ToolCall) (*journal.Entry, error)
	SetLive(l workspace.Live)
	ClearLive(l workspace.Live)
}

// Track starts tracking the root of workspace s: captures of s then use
// the tracker's changed paths.
func Track(s Host, opts TrackOptions) *Tracker {
	if opts.Quiet <= 0 {
		opts.Quiet = 3 * time.Second
	}
	if opts.StepQuiet == 0 {
		opts.StepQuiet = time.Second
	}
	s.Capturer().KeepLive()
	t := &Tracker{s: s, opts: opts, wake: make(chan struct{}, 1),
		ready: make(chan struct{}), done: make(chan struct{}),
		cleared: map[string]bool{}, newest: map[string]uint64{},
		expected: map[string]expectation{}, ranOps: map[journal.EntryID]time.Time{}}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	t.ch = watch.Watch(s.Root(), watch.Options{
		MaxWatches: opts.MaxWatches, PollInterval: opts.PollInterval, Log: opts.Log, SentinelDir: s.Dir(),
		OnBatch: t.queueBatch,
	})
	s.SetLive(t)
	go t.run()
	return t
}

// Mode is "watch" or "poll", or "starting" until the first capture.
func (t *Tracker) Mode() string {
	select {
	case <-t.ready:
		return t.ch.Mode()
	default:
		return "starting"
	}
}

// PollReason says why changes come from rescans ("" while file-system
// notifications work).
func (t *Tracker) PollReason() string { return t.ch.PollReason() }

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
	if t.step != nil {
		t.step.Stop()
	}
	lf := t.lockFile
	t.mu.Unlock()
	t.ch.Close()
	t.cancel() // an initial capture still walking stops
	close(t.wake)
	// The tracker's goroutine, and an automatic turn's end under way on the
	// quiet timer's, finish before the store is let go: both write to it.
	idle := make(chan struct{})
	go func() {
		<-t.done
		t.ending.Wait()
		close(idle)
	}()
	select {
	case <-idle:
	case <-time.After(10 * time.Second):
	}
	t.s.Capturer().Flush()
	if lf != nil {
		lf.Close() // releases the recorder lock
	}
	t.s.ClearLive(t)
}

// take returns the changed paths since the last capture, and whether a
// full walk is needed instead; the decision loop's notes start afresh, and
// cleared is what they held for the paths returned (nil with full): those
// found no agent's change since their latest batch, as of the take.
func (t *Tracker) take() (paths []string, full bool, cleared map[string]bool) {
	paths, full = t.ch.Take() // the batches it delivers are queued first
	if !full {
		t.mu.Lock()
		cleared = t.cleared
		t.cleared = map[string]bool{}
		t.mu.Unlock()
	}
	return paths, full, cleared
}

// clear notes that rel was found no agent's change by a judgement made
// once n batches were queued, unless a batch bringing rel again came
// since: that change is not judged yet.
func (t *Tracker) clear(rel string, n uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.newest[rel] > n {
		return
	}
	t.cleared[rel] = true
}

// CaptureNow captures the disk, narrowed to the changed paths when it can.
func (t *Tracker) CaptureNow(ctx context.Context) (*snapshot.Result, error) {
	t.capMu.Lock()
	defer t.capMu.Unlock()
	tr := snapshot.NewTracer("settle")
	paths, full, _ := t.take()
	tr.Done()
	var res *snapshot.Result
	var err error
	if full {
		res, err = t.walk(ctx)
	} else {
		res, err = t.s.Capturer().CaptureChanged(ctx, paths)
	}
	if err != nil {
		t.ch.GiveBack(paths, full)
		return nil, err
	}
	t.Walked(res.ID)
	t.captured(paths, full)
	return res, nil
}

// Walked notes id as the latest capture of the disk.
func (t *Tracker) Walked(id snapshot.ID) {
	t.mu.Lock()
	t.lastID = id
	t.mu.Unlock()
}

// lastCaptured is the latest capture of the disk (zero before any).
func (t *Tracker) lastCaptured() snapshot.ID {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastID
}

// queueBatch queues a batch of changes (already part of what the next
// capture takes) for the automatic-turn decision, made on the tracker's
// goroutine: it may arrive while the journal lock is held.
func (t *Tracker) queueBatch(paths []string, full bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || t.opts.NoAutoTurns {
		return
	}
	if full {
		for _, b := range t.queue {
			if b.full {
				return // one rescan waiting covers this one too
			}
		}
	}
	t.batches++
	b := batch{paths, full, t.batches}
	// The paths changed again: what was found of them before no longer
	// says anything of what they hold now.
	for _, p := range paths {
		delete(t.cleared, p)
		t.newest[p] = b.n
	}
	t.queue = append(t.queue, b)
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// logf says something the user should know on the server's log (nothing
// a tracker does fails silently).
func (t *Tracker) logf(format string, a ...any) {
	if t.opts.Log != nil {
		t.opts.Log("rewind-lsp: " + fmt.Sprintf(format, a...))
	}
}

func (t *Tracker) run() {
	defer close(t.done)
	// The first capture is the state before any change the tracker sees.
	if _, err := t.CaptureNow(t.ctx); err != nil && t.ctx.Err() == nil {
		t.logf("first capture of %s: %v (the next turn walks the whole root)", t.s.Root(), err)
	}
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

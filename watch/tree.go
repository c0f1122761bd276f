package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rewind-lsp/rewind-lsp/gitignore"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// TreeOptions configure a Tree.
type TreeOptions struct {
	// MaxWatches bounds the watches: one per folder with inotify (Linux)
	// and on Windows; with kqueue (macOS, the BSDs) one per file and folder,
	// each an open descriptor. Past it (or past the kernel's limit) the
	// watcher falls back to polling. 0 means the kernel's limit (with
	// kqueue, half the open files this process may have).
	MaxWatches int
	// PollInterval is the rescan period when polling (default 2s).
	PollInterval time.Duration
	// OnChange receives batches of changed root-relative paths (files or
	// folders), one at a time, in order. full is true when the changed
	// paths are unknown (polling, or the kernel dropped events): the
	// receiver must compare a full walk. It must not call Flush, which
	// waits for it.
	OnChange func(paths []string, full bool)
	// Log receives one line when the watcher falls back to polling. It is
	// called after Mode already says "poll" (the fallback never waits for a
	// log line); PollReason has the reason from that moment on.
	Log func(msg string)
	// SentinelDir is a folder outside the root that the watcher may write
	// (the store): Settle writes a file there and waits for its event.
	SentinelDir string
}

// Tree reports changes under a root from file-system notifications
// (recursive, ignore rules applied, new folders picked up, removed ones
// dropped; content, creation, removal, rename and attribute changes such
// as a chmod), or by periodic polling when notifications are unavailable.
type Tree struct {
	root string
	opts TreeOptions
	ig   *gitignore.Ignorer
	fw   *fsnotify.Watcher

	// deliverMu orders the deliveries: a batch is handed to OnChange, and
	// OnChange returns, before the next batch is taken from the pending
	// one, and before Flush's collect runs (see Flush).
	deliverMu sync.Mutex

	mu       sync.Mutex
	mode     string         // "watch" or "poll"
	why      string         // why it polls
	watched  map[string]int // watched folders and the watches each costs
	cost     int            // the watches in use
	batch    map[string]bool
	overflow bool
	last     time.Time
	timer    *time.Timer
	done     chan struct{}
	closed   bool

	sentinel string        // the sentinel files' prefix, when a SentinelDir is watched
	settleN  uint64        // sentinel files made (Settle N makes sentinel-N)
	seenN    uint64        // the newest sentinel file whose creation was seen
	settled  chan struct{} // closed and replaced when a sentinel event arrives
	// settleMissed: a Settle ran out of time before its sentinel event came.
	settleMissed bool
	// eventDelay is how long each event waits before it is handled (in
	// nanoseconds; zero but in tests, where it stands for a loaded machine).
	eventDelay atomic.Int64
}

// ErrTooManyWatches is why a watcher polls: the folders (with kqueue, the
// files and folders) outnumber the watch limit.
var ErrTooManyWatches = errors.New("too many folders to watch")

// costOf is the watches a folder of ents costs (a variable so tests can
// count as kqueue does on a system that has inotify).
var costOf = watchCost

// NewTree starts watching root (absolute).
func NewTree(root string, opts TreeOptions) *Tree {
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	w := &Tree{root: root, opts: opts, mode: "watch", watched: map[string]int{}, batch: map[string]bool{}, done: make(chan struct{})}
	ig, err := gitignore.NewIgnorer(root)
	if err == nil {
		w.ig = ig
	}
	w.settled = make(chan struct{})
	fw, err := fsnotify.NewBufferedWatcher(4096)
	if err == nil {
		w.fw = fw
		err = w.addTree("")
	}
	if err == nil && opts.SentinelDir != "" {
		if fw.Add(opts.SentinelDir) == nil {
			// One sentinel per watcher: several servers may share a store.
			w.sentinel = filepath.Join(opts.SentinelDir, fmt.Sprintf("watch-sentinel-%d-%p", os.Getpid(), w))
		}
	}
	if err != nil || w.ig == nil {
		w.poll(err)
		return w
	}
	go w.loop()
	return w
}

// Mode is "watch" while notifications work, "poll" after the fallback.
func (w *Tree) Mode() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mode
}

// PollReason says why the watcher polls ("" while notifications work).
func (w *Tree) PollReason() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mode != "poll" {
		return ""
	}
	return w.why
}

// Close stops watching; no batch is delivered after it returns (one under
// way is waited for).
func (w *Tree) Close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	close(w.done)
	fw := w.fw
	w.mu.Unlock()
	if fw != nil {
		fw.Close()
	}
	w.deliverMu.Lock() // a delivery under way ends; later ones see closed
	w.deliverMu.Unlock()
}

// Settle waits (at most max) until every notification the kernel queued
// before the call has been received and batched, so a capture that follows
// sees every change made before Settle was called. With a sentinel folder
// it makes a sentinel file of its own (named by its number, removed
// after) and waits for its creation's event: the kernel queues events in
// order, so every earlier one has been read by then. A file of its own,
// since one file written by every Settle would give several events per
// write, and one still coming from an earlier Settle would stand for this
// one's, before the changes made in between were read. max bounds
// a wait for a sentinel whose event does not come; once a wait ran out
// before any sentinel event ever came (a folder whose file system sends
// none), Settle stops waiting for them until one does. Without a sentinel
// it waits for a short quiet spell.
func (w *Tree) Settle(max time.Duration) {
	deadline := time.Now().Add(max)
	w.mu.Lock()
	if w.fw == nil {
		w.mu.Unlock()
		return
	}
	if w.sentinel != "" && !(w.seenN == 0 && w.settleMissed) {
		w.settleN++
		n := w.settleN
		w.mu.Unlock()
		name := fmt.Sprintf("%s-%d", w.sentinel, n)
		os.Remove(name) // left by a process of this pid that died: its creation is the event
		if os.WriteFile(name, nil, 0o600) == nil {
			defer os.Remove(name)
			for {
				w.mu.Lock()
				seen, ch := w.seenN, w.settled
				left := time.Until(deadline)
				if seen < n && left <= 0 {
					w.settleMissed = true
				}
				w.mu.Unlock()
				if seen >= n || left <= 0 {
					return
				}
				select {
				case <-ch:
				case <-time.After(left):
				}
			}
		}
		w.mu.Lock()
	}
	w.mu.Unlock()
	for time.Now().Before(deadline) {
		w.mu.Lock()
		quiet := w.fw == nil || (len(w.fw.Events) == 0 && time.Since(w.last) > 2*time.Millisecond)
		w.mu.Unlock()
		if quiet {
			return
		}
		time.Sleep(500 * time.Microsecond)
	}
}

// Flush delivers the pending batch now (after Settle), then runs collect
// (when set) before any later batch is delivered. A batch under way when
// Flush is called — taken from the pending one by the delivery timer, its
// OnChange not returned yet — is waited for: once Flush runs collect,
// every batch queued before the call has been delivered, and OnChange
// returned for it.
func (w *Tree) Flush(collect func()) {
	if !w.deliverMu.TryLock() {
		if flushWaits != nil {
			flushWaits()
		}
		w.deliverMu.Lock()
	}
	defer w.deliverMu.Unlock()
	w.deliverLocked()
	if collect != nil {
		collect()
	}
}

// afterList, when set (tests), runs after a folder was listed to be
// watched.
var afterList func(rel string)

// flushWaits, when set (tests), runs when a Flush waits for a batch under
// way.
var flushWaits func()

// addTree watches folder rel and every folder below that is not ignored.
// The watch comes before the listing: a folder made in between is then
// listed, or reported by the watch, never missed (it would never be
// watched, and no change in it seen).
func (w *Tree) addTree(rel string) error {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	limit := w.opts.MaxWatches
	if limit <= 0 {
		limit = defaultWatchLimit()
	}
	w.mu.Lock()
	fw := w.fw
	w.mu.Unlock()
	if fw == nil {
		return nil // polling already
	}
	if err := fw.Add(abs); err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			return fmt.Errorf("%w: the kernel's limit (fs.inotify.max_user_watches) is reached", ErrTooManyWatches)
		}
		if errors.Is(err, syscall.EMFILE) {
			return fmt.Errorf("%w: %s, and no more files may be open", ErrTooManyWatches, watchesWord)
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil // gone already
		}
		return fmt.Errorf("watch %s: %w", abs, err)
	}
	ents, err := os.ReadDir(abs)
	if afterList != nil {
		afterList(rel)
	}
	if err != nil {
		fw.Remove(abs)
		return nil // removed meanwhile, or unreadable: nothing to watch
	}
	cost := costOf(ents)
	w.mu.Lock()
	if limit > 0 && w.cost-w.watched[rel]+cost > limit {
		w.mu.Unlock()
		fw.Remove(abs)
		return fmt.Errorf("%w (%s; the limit is %d)", ErrTooManyWatches, watchesWord, limit)
	}
	w.cost += cost - w.watched[rel]
	w.watched[rel] = cost
	w.mu.Unlock()
	for _, e := range ents {
		if !e.IsDir() || e.Name() == ".git" {
			continue
		}
		sub := join(rel, e.Name())
		if w.ig.Ignored(sub, true) {
			continue
		}
		if err := w.addTree(sub); err != nil {
			return err
		}
	}
	return nil
}

func (w *Tree) loop() {
	w.mu.Lock()
	fw := w.fw
	w.mu.Unlock()
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-fw.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-fw.Errors:
			if !ok {
				return
			}
			w.mu.Lock()
			w.overflow = true // events may be lost: the next batch says full
			w.mu.Unlock()
			if !errors.Is(err, fsnotify.ErrEventOverflow) && w.opts.Log != nil {
				w.opts.Log("rewind-lsp: file watching error: " + err.Error())
			}
			w.schedule()
		}
	}
}

func (w *Tree) event(ev fsnotify.Event) {
	if d := w.eventDelay.Load(); d > 0 {
		time.Sleep(time.Duration(d))
	}
	if w.sentinel != "" && strings.HasPrefix(ev.Name, w.sentinel+"-") {
		n, err := strconv.ParseUint(ev.Name[len(w.sentinel)+1:], 10, 64)
		if err == nil && ev.Has(fsnotify.Create) {
			// Settle n's file came: every event queued before it was read,
			// for Settle n and for those that began before it.
			w.mu.Lock()
			w.seenN = max(w.seenN, n)
			close(w.settled)
			w.settled = make(chan struct{})
			w.mu.Unlock()
		}
		return
	}
	rel, err := filepath.Rel(w.root, ev.Name)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return
	}
	rel = filepath.ToSlash(rel)
	if snapshot.IsGitPath(rel) {
		return
	}
	fi, statErr := os.Lstat(ev.Name)
	isDir := statErr == nil && fi.IsDir()
	for d := parentDir(rel); d != ""; d = parentDir(d) {
		if w.ig.Ignored(d, true) {
			return
		}
	}
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	if gitignore.IsIgnoreFile(base) {
		w.ig.Invalidate(parentDir(rel))
	} else if w.ig.Ignored(rel, isDir) {
		return
	}
	if isDir && ev.Has(fsnotify.Create) {
		if err := w.addTree(rel); err != nil {
			w.poll(err)
			return
		}
	}
	if (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && statErr != nil {
		w.mu.Lock()
		for d, c := range w.watched {
			if d == rel || strings.HasPrefix(d, rel+"/") {
				w.cost -= c
				delete(w.watched, d)
				if w.fw != nil {
					w.fw.Remove(filepath.Join(w.root, filepath.FromSlash(d)))
				}
			}
		}
		w.mu.Unlock()
	}
	w.mu.Lock()
	w.batch[rel] = true
	w.last = time.Now()
	w.mu.Unlock()
	w.schedule()
}

// schedule delivers the batch after a short pause, so one burst of writes
// arrives as one batch.
func (w *Tree) schedule() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer == nil {
		w.timer = time.AfterFunc(20*time.Millisecond, w.deliver)
	}
}

// deliver hands the pending batch to OnChange (the delivery timer).
func (w *Tree) deliver() {
	w.deliverMu.Lock()
	defer w.deliverMu.Unlock()
	w.deliverLocked()
}

// deliverLocked is deliver with deliverMu held.
func (w *Tree) deliverLocked() {
	w.mu.Lock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	paths := make([]string, 0, len(w.batch))
	for p := range w.batch {
		paths = append(paths, p)
	}
	full := w.overflow
	w.batch = map[string]bool{}
	w.overflow = false
	closed := w.closed
	w.mu.Unlock()
	if closed || (len(paths) == 0 && !full) || w.opts.OnChange == nil {
		return
	}
	w.opts.OnChange(paths, full)
}

// poll falls back to periodic rescans, saying why once. The mode and its
// reason change together under the lock, at once: from then on the
// watches no longer cover the root, so a Take must walk it, even while the
// log line (which goes to the editor and may be slow) is still on its way.
// The line is written outside the lock, after the mode changed.
func (w *Tree) poll(why error) {
	w.mu.Lock()
	if w.mode == "poll" || w.closed {
		w.mu.Unlock()
		return
	}
	w.mode = "poll"
	w.why = "file notifications are unavailable"
	if why != nil {
		w.why = why.Error()
	}
	fw := w.fw
	w.fw = nil
	w.watched = map[string]int{}
	w.cost = 0
	w.mu.Unlock()
	if fw != nil {
		go fw.Close()
	}
	if w.opts.Log != nil {
		msg := "rewind-lsp: file notifications are unavailable; rescanning every " + w.opts.PollInterval.String() +
			" (less often when a rescan is costly)"
		if why != nil {
			msg += " (" + why.Error() + ")"
		}
		w.opts.Log(msg)
	}
	go func() {
		t := time.NewTicker(w.opts.PollInterval)
		defer t.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-t.C:
				w.deliverMu.Lock()
				w.mu.Lock()
				closed := w.closed
				w.mu.Unlock()
				if !closed && w.opts.OnChange != nil {
					w.opts.OnChange(nil, true)
				}
				w.deliverMu.Unlock()
			}
		}
	}()
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "/" + name
}

// parentDir is the folder holding root-relative path p ("" for the root).
func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

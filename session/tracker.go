package session

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"golang.org/x/sys/unix"
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
}

// Ready is closed once the tracker made its first capture.
func (t *Tracker) Ready() <-chan struct{} { return t.ready }

// expectation is the content a rewind or undo is about to give a path.
type expectation struct {
	gone   bool
	id     snapshot.ID
	window time.Time // until then any change of the path is the rewind's
	until  time.Time // until then the target content is the rewind's
}

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
	t := &Tracker{s: s, opts: opts, dirty: map[string]bool{}, full: true, wake: make(chan struct{}, 1), ready: make(chan struct{})}
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
	close(t.wake)
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
	paths, full := t.take()
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
	// The first capture is the state before any change the tracker sees.
	t.captureNow(context.Background())
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

// decide opens or extends an automatic turn for a batch of changes.
func (t *Tracker) decide(b batch) {
	if b.full {
		t.pollCheck()
		return
	}
	agent := t.agentPaths(b.paths)
	isAgent := map[string]bool{}
	for _, p := range agent {
		isAgent[p] = true
	}
	t.mu.Lock()
	if t.cleared == nil {
		t.cleared = map[string]bool{}
	}
	for _, p := range b.paths {
		if !isAgent[p] {
			t.cleared[p] = true
		}
	}
	t.mu.Unlock()
	if len(agent) > 0 {
		t.agentChanged(agent)
	}
}

// agentPaths keeps the paths whose current content is a new change (not
// what the latest capture saw, nor what a rewind or undo wrote) that the
// editor did not save either.
func (t *Tracker) agentPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		data, isDir, ok := t.read(p)
		if !ok || !t.isNew(p, data, isDir) {
			continue
		}
		if !isDir && t.opts.IsEditor != nil && data != nil && t.opts.IsEditor(p, data) {
			continue
		}
		// IsEditor may have waited: look again at what is known now.
		if t.stillNew(p) {
			out = append(out, p)
		}
	}
	return out
}

// stillNew reads rel again and reports whether it is a new change.
func (t *Tracker) stillNew(rel string) bool {
	data, isDir, ok := t.read(rel)
	return ok && t.isNew(rel, data, isDir)
}

// read returns rel's content (a link's target; nil when it is gone) or
// that it is a folder; ok is false for an unreadable file.
func (t *Tracker) read(rel string) (data []byte, isDir, ok bool) {
	abs := filepath.Join(t.s.root, filepath.FromSlash(rel))
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, true
	case err != nil:
		return nil, false, false
	case fi.IsDir():
		return nil, true, true
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		return []byte(target), false, err == nil
	}
	data, err = os.ReadFile(abs)
	return data, false, err == nil
}

// isNew reports whether rel (data, or a folder) is a change nobody has
// recorded. A folder is new when the latest capture had none there; its
// files have events of their own, or the capture walks it.
func (t *Tracker) isNew(rel string, data []byte, isDir bool) bool {
	t.s.mu.Lock()
	last := t.s.lastID
	t.s.mu.Unlock()
	wasDir := snapshot.IsDir(t.s.objects, last, rel)
	if isDir || wasDir {
		// A folder that came or went: new, unless a rewind or undo is
		// writing or removing files in it.
		return isDir != wasDir && !t.rewindTouches(rel)
	}
	if t.expectedWrite(rel, data) || t.recorded(last, rel, data) {
		return false
	}
	if h, err := t.s.History(); err == nil && t.isRewindEcho(h, rel, data) {
		return false
	}
	return true
}

// recorded reports whether rel already holds what the latest capture saw:
// a change a turn's end (or any capture) recorded before this batch was
// looked at is no new change.
func (t *Tracker) recorded(last snapshot.ID, rel string, data []byte) bool {
	if last.IsZero() {
		return false
	}
	e, ok, err := snapshot.Lookup(t.s.objects, last, rel)
	if err != nil {
		return false
	}
	if !ok {
		return data == nil
	}
	return data != nil && e.Kind != snapshot.KindSkipped && e.ID == snapshot.Sum(data)
}

// expect notes what a rewind or undo of this process is about to write, so
// those changes (and the editor's echoes of them) are never an agent's.
func (t *Tracker) expect(ops []snapshot.FileOp) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.expected == nil {
		t.expected = map[string]expectation{}
	}
	now := time.Now()
	for k, e := range t.expected {
		if now.After(e.until) {
			delete(t.expected, k)
		}
	}
	for _, op := range ops {
		t.expected[op.Path] = expectation{gone: op.Change == "delete", id: snapshot.Sum(op.After),
			window: now.Add(echoWindow), until: now.Add(time.Minute)}
	}
}

// echoWindow is how long after a rewind any change to the files it
// touches is taken for the rewind's own: an editor applies a rewind in
// steps (creates an empty file, fills its buffer, saves it later).
const echoWindow = 5 * time.Second

func (t *Tracker) expectedWrite(rel string, data []byte) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.expected[rel]
	if !ok || time.Now().After(e.until) {
		return false
	}
	if time.Now().Before(e.window) {
		return true // within the echo window: any intermediate state
	}
	if e.gone {
		return data == nil
	}
	return data != nil && snapshot.Sum(data) == e.id
}

// rewindTouches reports whether a recent rewind or undo (this process's
// or, from the journal, another's) changes files below folder rel.
func (t *Tracker) rewindTouches(rel string) bool {
	prefix := rel + "/"
	t.mu.Lock()
	for p, e := range t.expected {
		if strings.HasPrefix(p, prefix) && time.Now().Before(e.until) {
			t.mu.Unlock()
			return true
		}
	}
	t.mu.Unlock()
	h, err := t.s.History()
	if err != nil {
		return false
	}
	cutoff := time.Now().Add(-30 * time.Second)
	for i := len(h.Entries) - 1; i >= 0 && !h.Entries[i].Time.Before(cutoff); i-- {
		e := h.Entries[i]
		if e.Kind != KindRewind && e.Kind != KindUndo {
			continue
		}
		for _, f := range e.Files {
			if strings.HasPrefix(f, prefix) {
				return true
			}
		}
	}
	return false
}

// isRewindEcho reports whether rel holds what a recent rewind or undo
// (from any process) made it, so the change is that rewind's, not an
// agent's.
func (t *Tracker) isRewindEcho(h *History, rel string, data []byte) bool {
	cutoff := time.Now().Add(-30 * time.Second)
	for i := len(h.Entries) - 1; i >= 0; i-- {
		e := h.Entries[i]
		if e.Time.Before(cutoff) {
			return false
		}
		if (e.Kind != KindRewind && e.Kind != KindUndo) || e.Snapshot == "" {
			continue
		}
		if time.Since(e.Time) < echoWindow {
			for _, f := range e.Files {
				if f == rel {
					return true // another process's rewind, still being applied
				}
			}
		}
		id, err := snapshot.ParseID(e.Snapshot)
		if err != nil {
			continue
		}
		ent, ok, err := snapshot.Lookup(t.s.objects, id, rel)
		if err != nil {
			continue
		}
		if !ok {
			return data == nil
		}
		return data != nil && ent.ID == snapshot.Sum(data)
	}
	return false
}

// holdRecorder takes the root's recorder lock if no other live process
// holds it: one automatic-turn recorder at a time; a dead holder's lock is
// released by the kernel and taken over here.
func (t *Tracker) holdRecorder() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lockFile != nil {
		return true
	}
	f, err := os.OpenFile(filepath.Join(t.s.dir, "recorder.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return false
	}
	f.Truncate(0)
	f.WriteAt([]byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0)
	t.lockFile = f
	return true
}

// agentChanged opens an automatic turn, or extends the one open.
func (t *Tracker) agentChanged(agent []string) {
	t.mu.Lock()
	mine := t.autoTurn
	t.mu.Unlock()
	h, err := t.s.History()
	if err != nil {
		return
	}
	open := h.OpenTurn()
	if open != nil {
		if open.ID == mine {
			t.restartQuiet()
		}
		return // a hook, the command line or a command owns this turn
	}
	if !t.holdRecorder() {
		return
	}
	var started *Entry
	err = t.s.locked(func(l *Lock, h *History) error {
		if h.OpenTurn() != nil {
			return nil // someone opened a turn meanwhile
		}
		// A turn may have ended (and recorded these changes) meanwhile.
		var still []string
		for _, p := range agent {
			if t.stillNew(p) {
				still = append(still, p)
			}
		}
		if agent = still; len(agent) == 0 {
			return nil
		}
		set := map[string]bool{}
		for _, p := range agent {
			set[p] = true
		}
		// The start is the state before the agent's first change: the live
		// tree with every pending change except the agent's applied.
		t.capMu.Lock()
		defer t.capMu.Unlock()
		// Only changes already found to be no agent's go into the start;
		// the agent's and those not looked at yet stay for the turn's end.
		t.mu.Lock()
		cleared := t.cleared
		t.mu.Unlock()
		paths, full := t.take()
		var keep, later []string
		for _, p := range paths {
			if !set[p] && cleared[p] {
				keep = append(keep, p)
			} else {
				later = append(later, p)
			}
		}
		t.giveBack(later, false)
		var res *snapshot.Result
		var err error
		if full {
			res, err = t.s.capturer.Capture(context.Background(), nil)
		} else {
			res, err = t.s.capturer.CaptureChanged(context.Background(), keep)
		}
		if err != nil {
			t.giveBack(paths, full)
			return err
		}
		t.s.noteCapture(res)
		started = &Entry{Parent: h.Leaf(), Kind: KindTurnStart, Actor: "server", Snapshot: res.ID.String(),
			Turn: h.NextTurn(), Prompt: autoPrompt(agent), Source: "auto"}
		return l.Append(started)
	})
	if err != nil || started == nil {
		if err != nil && t.opts.Log != nil {
			t.opts.Log("rewind-lsp: automatic turn: " + err.Error())
		}
		return
	}
	t.mu.Lock()
	t.autoTurn = started.ID
	t.mu.Unlock()
	t.restartQuiet()
}

func autoPrompt(paths []string) string {
	sort.Strings(paths)
	s := "changes on disk: " + paths[0]
	if len(paths) > 1 {
		s += " and others"
	}
	return s
}

func (t *Tracker) restartQuiet() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	if t.quiet != nil {
		t.quiet.Stop()
	}
	t.quiet = time.AfterFunc(t.opts.Quiet, t.endAuto)
}

// endAuto ends the automatic turn after the quiet period, if it is still
// the open one.
func (t *Tracker) endAuto() {
	t.mu.Lock()
	mine := t.autoTurn
	t.mu.Unlock()
	if mine == "" {
		return
	}
	_ = t.s.locked(func(l *Lock, h *History) error {
		open := h.OpenTurn()
		if open == nil || open.ID != mine {
			return nil
		}
		res, err := t.s.capture(context.Background(), h, nil)
		if err != nil {
			return err
		}
		_, err = t.s.endTurn(l, h, open, res, TurnRequest{Actor: "server", Summary: ""})
		return err
	})
	t.mu.Lock()
	if t.autoTurn == mine {
		t.autoTurn = ""
	}
	t.mu.Unlock()
}

// pollCheck compares a full walk with the last capture when polling: any
// difference not from the editor or a rewind is an agent's change.
func (t *Tracker) pollCheck() {
	t.s.mu.Lock()
	prev := t.s.lastID
	t.s.mu.Unlock()
	res, err := t.s.capturer.Capture(context.Background(), nil)
	if err != nil {
		return
	}
	if prev.IsZero() {
		t.s.noteCapture(res)
		return
	}
	diffs, err := snapshot.DiffTrees(t.s.objects, prev, res.ID)
	if err != nil || len(diffs) == 0 {
		return
	}
	var paths []string
	for _, d := range diffs {
		paths = append(paths, d.Path)
	}
	agent := t.agentPaths(paths)
	if len(agent) == 0 {
		t.s.noteCapture(res)
		return
	}
	t.mu.Lock()
	mine := t.autoTurn
	t.mu.Unlock()
	h, err := t.s.History()
	if err != nil {
		return
	}
	if open := h.OpenTurn(); open != nil {
		if open.ID == mine {
			t.restartQuiet()
		}
		return
	}
	if !t.holdRecorder() {
		return
	}
	var started *Entry
	_ = t.s.locked(func(l *Lock, h *History) error {
		if h.OpenTurn() != nil {
			return nil
		}
		started = &Entry{Parent: h.Leaf(), Kind: KindTurnStart, Actor: "server", Snapshot: prev.String(),
			Turn: h.NextTurn(), Prompt: autoPrompt(agent), Source: "auto"}
		return l.Append(started)
	})
	t.s.noteCapture(res)
	if started != nil {
		t.mu.Lock()
		t.autoTurn = started.ID
		t.mu.Unlock()
		t.restartQuiet()
	}
}

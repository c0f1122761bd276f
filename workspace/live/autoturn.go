package live

import (
	"context"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/osfile"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// Automatic turns: with no turn open, an agent's changes open an `auto`
// turn whose start is the state before the first change; it ends after a
// quiet period. One process per root records them (the recorder lock).

// holdRecorder takes the root's recorder lock if no other live process
// holds it: one automatic-turn recorder at a time; a dead holder's lock is
// released by the kernel and taken over here.
func (t *Tracker) holdRecorder() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lockFile != nil {
		return true
	}
	f, err := osfile.OpenFile(filepath.Join(t.s.Dir(), "recorder.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false
	}
	if ok, err := osfile.TryLock(f, osfile.Exclusive); !ok || err != nil {
		f.Close()
		return false
	}
	f.Truncate(0)
	f.WriteAt([]byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0)
	t.lockFile = f
	return true
}

// mayOpen reports whether an automatic turn may open now: no turn is open
// (the tracker's own is extended instead) and this process is the root's
// recorder.
func (t *Tracker) mayOpen() bool {
	t.mu.Lock()
	mine := t.autoTurn
	t.mu.Unlock()
	h, err := t.s.History()
	if err != nil {
		t.logf("automatic turn: reading the journal: %v", err)
		return false
	}
	if open := h.OpenTurn(); open != nil {
		if open.ID == mine {
			t.restartQuiet()
		}
		return false // a hook, the command line or a command owns this turn
	}
	return t.holdRecorder()
}

// openAuto opens an automatic turn, unless someone opened a turn
// meanwhile: start captures its start state in the transaction and names
// the agent's changes (no state: nothing to open after all).
func (t *Tracker) openAuto(start func(tx *workspace.Tx) (*snapshot.Result, []string, error)) {
	var started *journal.Entry
	err := t.s.Update(context.Background(), "", nil, func(tx *workspace.Tx) error {
		if tx.History().OpenTurn() != nil {
			return nil
		}
		res, agent, err := start(tx)
		if err != nil || res == nil {
			return err
		}
		started, err = tx.StartTurn(autoTurn(agent), res)
		return err
	})
	if err != nil {
		t.logf("automatic turn: %v", err)
	}
	if err == nil && started != nil {
		t.mu.Lock()
		t.autoTurn = started.ID
		t.mu.Unlock()
		t.restartQuiet()
	}
}

// agentChanged opens an automatic turn, or extends the one open.
func (t *Tracker) agentChanged(agent []string) {
	if !t.mayOpen() {
		return
	}
	agent = t.judgePending(agent)
	t.openAuto(func(*workspace.Tx) (*snapshot.Result, []string, error) {
		// A turn may have ended (and recorded these changes) meanwhile.
		var still []string
		for _, p := range agent {
			if data, kind, isDir, ok := t.read(p); ok && t.isNew(p, data, kind, isDir) {
				still = append(still, p)
			}
		}
		if agent = still; len(agent) == 0 {
			return nil, nil, nil
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
		paths, full, cleared := t.take()
		var keep, later []string
		for _, p := range paths {
			// A folder is captured with everything in it now: one holding
			// an agent's change since waits for the turn's end (the files
			// below it have changes of their own); one holding none — a
			// folder a rewind made, say — is part of the start.
			if !set[p] && cleared[p] && (!t.isFolder(p) || !t.newFileIn(p)) {
				keep = append(keep, p)
			} else {
				later = append(later, p)
			}
		}
		keep, later = heldBack(keep, later)
		t.ch.GiveBack(later, false)
		var res *snapshot.Result
		var err error
		switch {
		case full:
			res, err = t.walk(context.Background())
		case !t.s.Capturer().Live():
			res, err = t.walkWithout(context.Background(), later)
		default:
			res, err = t.s.Capturer().CaptureChanged(context.Background(), keep)
		}
		if err != nil {
			t.ch.GiveBack(paths, full)
			return nil, nil, err
		}
		t.Walked(res.ID)
		t.captured(keep, full)
		return res, agent, nil
	})
}

// heldBack moves from keep to later the paths that hold a path of later
// below them. A path is captured as it is now, with everything below it:
// a folder that went, or became a file, takes the files that were in it
// along, and when one of those is a change for the turn's end (an agent
// removed it while a rewind removed the others, say), capturing the
// folder into the turn's start would record that change there.
func heldBack(keep, later []string) ([]string, []string) {
	if len(keep) == 0 || len(later) == 0 {
		return keep, later
	}
	holds := map[string]bool{}
	mark := func(p string) {
		for d := parent(p); d != "" && !holds[d]; d = parent(d) {
			holds[d] = true
		}
	}
	for _, p := range later {
		mark(p)
	}
	// The deepest first: a path held back holds back the folders above it.
	sort.Sort(sort.Reverse(sort.StringSlice(keep)))
	kept := keep[:0]
	for _, p := range keep {
		if holds[p] {
			later = append(later, p)
			mark(p)
		} else {
			kept = append(kept, p)
		}
	}
	return kept, later
}

// parent is the folder holding root-relative path p ("" for the root).
func parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// judgePending judges the changes whose batches wait behind the one that
// opens an automatic turn (the decisions lag behind the disk when the
// editor is slow to say it saved): a file the person saved just before the
// agent's first change belongs in the turn's start, not in the turn. It
// returns agent with the agent's changes among them added.
func (t *Tracker) judgePending(agent []string) []string {
	seen := map[string]bool{}
	for _, p := range agent {
		seen[p] = true
	}
	t.mu.Lock()
	for p := range t.cleared {
		seen[p] = true
	}
	t.mu.Unlock()
	for _, p := range t.ch.Pending() {
		if seen[p] || t.isFolder(p) {
			continue
		}
		t.mu.Lock()
		n := t.batches
		t.mu.Unlock()
		if t.agentChange(p) {
			agent = append(agent, p)
			continue
		}
		t.clear(p, n)
	}
	return agent
}

// walkWithout captures the whole root with the paths in undecided (files
// or folders) put back as the last capture had them. It stands for
// CaptureChanged of every other path when no live tree is kept (retention
// lets go of it): a walk sees every change on disk, those not judged yet —
// an agent's — too, and an automatic turn's start must not hold them.
func (t *Tracker) walkWithout(ctx context.Context, undecided []string) (*snapshot.Result, error) {
	last := t.lastCaptured()
	res, err := t.walk(ctx)
	if err != nil || last.IsZero() || len(undecided) == 0 {
		return res, err
	}
	before, err := snapshot.ReadTree(t.s.Objects(), last)
	if err != nil {
		t.logf("automatic turn: the last capture is no longer stored (%v): the turn starts from the disk as it is", err)
		return res, nil
	}
	now := res.Manifest
	if now == nil {
		if now, err = snapshot.ReadTree(t.s.Objects(), res.ID); err != nil {
			return nil, err
		}
	}
	under := func(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }
	changes := map[string]*snapshot.Entry{}
	for _, u := range undecided {
		for p := range now {
			if under(p, u) {
				changes[p] = nil
			}
		}
		for p, e := range before {
			if under(p, u) {
				changes[p] = &e
			}
		}
	}
	id, err := snapshot.PatchTree(t.s.Objects(), res.ID, changes)
	if err != nil {
		return nil, fmt.Errorf("automatic turn: its start: %w", err)
	}
	return &snapshot.Result{ID: id, Read: res.Read, FileCount: res.FileCount, Duration: res.Duration}, nil
}

// isFolder reports whether rel is a folder on disk now.
func (t *Tracker) isFolder(rel string) bool {
	fi, err := os.Lstat(filepath.Join(t.s.Root(), filepath.FromSlash(rel)))
	return err == nil && fi.IsDir()
}

// autoTurn is the request of an automatic turn for the agent's changes
// paths: its start takes the rules of every turn's (Tx.StartTurn).
func autoTurn(paths []string) workspace.TurnRequest {
	sort.Strings(paths)
	s := "changes on disk: " + paths[0]
	if len(paths) > 1 {
		s += " and others"
	}
	return workspace.TurnRequest{Caller: workspace.Caller{Actor: "server"}, Source: journal.SourceAuto, Prompt: s}
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
	if t.opts.StepQuiet > 0 && t.opts.StepQuiet < t.opts.Quiet {
		if t.step != nil {
			t.step.Stop()
		}
		t.step = time.AfterFunc(t.opts.StepQuiet, t.endBurst)
	}
}

// working is the tracker's automatic turn, with the work on it counted
// (under mu and before closed: Close waits for it; the caller says when
// it is done), or "" when there is none or the tracker stopped (the turn
// stays open then, the next turn ends it).
func (t *Tracker) working() journal.EntryID {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || t.autoTurn == "" {
		return ""
	}
	t.ending.Add(1)
	return t.autoTurn
}

// endBurst records the automatic turn's burst of changes that just ended
// (StepQuiet without changes) as a step of it, if the turn is still this
// tracker's and the burst changed files.
func (t *Tracker) endBurst() {
	mine := t.working()
	if mine == "" {
		return
	}
	defer t.ending.Done()
	if _, err := t.s.RecordTool(context.Background(), workspace.ToolCall{Phase: journal.PhasePost, Capture: true, Burst: true,
		Turn: mine, Caller: workspace.Caller{Actor: "server"}}); err != nil {
		t.logf("a step of the automatic turn: %v", err)
	}
}

// endAuto ends the automatic turn after the quiet period, if it is still
// the open one.
func (t *Tracker) endAuto() {
	mine := t.working()
	if mine == "" {
		return
	}
	defer t.ending.Done()
	t.mu.Lock()
	if t.step != nil {
		t.step.Stop() // its burst is the turn's last step, recorded here
	}
	t.mu.Unlock()
	err := t.s.Update(context.Background(), "", nil, func(tx *workspace.Tx) error {
		open := tx.History().OpenTurn()
		if open == nil || open.ID != mine {
			return nil
		}
		res, err := tx.Capture(nil)
		if err != nil {
			return err
		}
		if t.opts.StepQuiet > 0 {
			if err := tx.EndBurst(open, res); err != nil {
				return err
			}
		}
		_, err = tx.EndTurn(open, res, workspace.TurnRequest{Caller: workspace.Caller{Actor: "server"}})
		return err
	})
	if err != nil {
		t.logf("ending the automatic turn: %v (it stays open; the next turn ends it)", err)
	}
	t.mu.Lock()
	if t.autoTurn == mine {
		t.autoTurn = ""
	}
	t.mu.Unlock()
}

// rescanShare bounds the time a polling tracker spends rescanning: after a
// rescan that took d, the next one waits at least d*rescanShare, so a root
// whose walk takes a second (500,000 files) is rescanned every ~30 s, not
// back to back, and an idle server stays idle. A turn boundary still walks
// the whole root at once.
const rescanShare = 30

// walk captures the whole root. While polling every capture is a walk:
// the live tree is not kept, and the next rescan waits rescanShare times
// this walk's duration (a turn boundary's walk counts too: the state it
// captured is current).
func (t *Tracker) walk(ctx context.Context) (*snapshot.Result, error) {
	polling := t.ch.Mode() == "poll"
	if polling {
		t.s.Capturer().DropLive()
	}
	start := time.Now()
	res, err := t.s.Capturer().Capture(ctx, nil)
	if polling {
		t.mu.Lock()
		t.rescanAfter = time.Now().Add(rescanShare * time.Since(start))
		t.mu.Unlock()
	}
	return res, err
}

// pollCheck compares a full walk with the last capture when polling: any
// difference not from the editor or a rewind is an agent's change.
func (t *Tracker) pollCheck() {
	t.mu.Lock()
	wait := time.Now().Before(t.rescanAfter) // zero unless polling
	t.mu.Unlock()
	if wait {
		return // the poller asks again later
	}
	prev := t.lastCaptured()
	res, err := t.walk(context.Background())
	if err != nil {
		t.logf("rescan of %s: %v", t.s.Root(), err)
		return
	}
	if prev.IsZero() {
		t.Walked(res.ID)
		return
	}
	paths, err := workspace.ChangedPaths(t.s.Objects(), prev, res.ID)
	if err != nil {
		t.logf("rescan of %s: comparing with the last capture: %v", t.s.Root(), err)
		return
	}
	if len(paths) == 0 {
		return
	}
	agent := t.agentPaths(paths)
	if len(agent) == 0 {
		t.Walked(res.ID)
		return
	}
	if !t.mayOpen() {
		return
	}
	t.openAuto(func(*workspace.Tx) (*snapshot.Result, []string, error) { return &snapshot.Result{ID: prev}, agent, nil })
	t.Walked(res.ID)
}

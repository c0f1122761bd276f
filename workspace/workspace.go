package workspace

import (
	"context"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/filehistory"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/osfile"
	"github.com/rewind-lsp/rewind-lsp/rootpath"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/store"
)

// Workspace is the journal and snapshots of one workspace root. It is safe
// for concurrent use, and several processes may open the same root.
type Workspace struct {
	root     string
	dir      string
	objects  *snapshot.Objects
	capturer *snapshot.Capturer
	journal  *journal.Journal

	mu          sync.Mutex
	gcSeen      int
	lastCapture time.Duration
	live        Live // live tracking in a running server (package live), or nil
	openPaths   func() []string
	retainer    Retainer // automatic retention, after captures (package maintenance)

	blame filehistory.Blamer // line owners per file
}

// SetOpenPaths tells the workspace which root-relative paths the editor
// holds open, so captures with the editor's buffers patch just those.
func (s *Workspace) SetOpenPaths(fn func() []string) {
	s.mu.Lock()
	s.openPaths = fn
	s.mu.Unlock()
}

// withBuffers patches the open buffers' text into a disk capture, for the
// files the capture holds (as a full walk with the buffers would).
func (s *Workspace) withBuffers(res *snapshot.Result, overlay snapshot.Overlay, open []string) (*snapshot.Result, error) {
	changes := map[string]*snapshot.Entry{}
	for _, p := range open {
		text, ok := overlay(p)
		if !ok {
			continue
		}
		e, found, err := snapshot.Lookup(s.objects, res.ID, p)
		if err != nil {
			return nil, err
		}
		if !found || e.Kind == snapshot.KindSymlink || e.Kind == snapshot.KindSkipped {
			continue
		}
		id, err := s.objects.Put(text)
		if err != nil {
			return nil, err
		}
		if id != e.ID {
			changes[p] = &snapshot.Entry{Kind: e.Kind, ID: id, Size: int64(len(text))}
		}
	}
	if len(changes) == 0 {
		return res, nil
	}
	id, err := snapshot.PatchTree(s.objects, res.ID, changes)
	if err != nil {
		return nil, err
	}
	if err := s.objects.Sync(); err != nil {
		return nil, err
	}
	return &snapshot.Result{ID: id, FileCount: res.FileCount, Duration: res.Duration}, nil
}

// Open opens the workspace of root with its store in dir ("" = default).
// The workspace knows the root by its real path (RealRoot): captures, writes
// and Root use it, whichever spelling the caller gave.
func Open(root, dir string, maxFileBytes int64) (*Workspace, error) {
	abs, err := rootpath.RealRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace root %s is not a folder", abs)
	}
	if _, err := os.ReadDir(abs); err != nil {
		return nil, fmt.Errorf("workspace root %s is not readable: %w", abs, err)
	}
	if dir == "" {
		if dir, err = rootpath.DefaultStoreDir(abs); err != nil {
			return nil, err
		}
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	if err := osfile.MkdirPrivate(dir); err != nil {
		return nil, fmt.Errorf("create store %s: %w", dir, err)
	}
	// A note for people who look into the store.
	rootFile := filepath.Join(dir, "root")
	if _, err := os.Stat(rootFile); err != nil {
		_ = osfile.WriteFileAtomic(rootFile, []byte(abs+"\n"), 0o600, true)
	}
	objects, err := snapshot.OpenObjects(filepath.Join(dir, "objects"))
	if err != nil {
		return nil, err
	}
	var exclude []string
	realDir := dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		realDir = r // a store inside the root reached through a link
	}
	if realDir == abs || strings.HasPrefix(realDir, abs+string(filepath.Separator)) {
		exclude = append(exclude, realDir)
	}
	return &Workspace{
		root:     abs,
		dir:      dir,
		objects:  objects,
		capturer: snapshot.NewCapturer(abs, objects, filepath.Join(dir, "statcache"), maxFileBytes, exclude...),
		journal:  journal.Open(dir),
	}, nil
}

// Root is the absolute workspace root.
func (s *Workspace) Root() string { return s.root }

// Dir is the store folder.
func (s *Workspace) Dir() string { return s.dir }

// Objects is the object store.
func (s *Workspace) Objects() *snapshot.Objects { return s.objects }

// Capturer is what captures the root (its stat cache, a server's live
// tree).
func (s *Workspace) Capturer() *snapshot.Capturer { return s.capturer }

// Journal is the journal.
func (s *Workspace) Journal() *journal.Journal { return s.journal }

// LastCapture is the duration of this process's last capture.
func (s *Workspace) LastCapture() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastCapture
}

// History reads the journal: its view, and the lines appended since
// (journal.Journal.History).
func (s *Workspace) History() (*journal.History, error) { return s.journal.History() }

// capture snapshots the root; h is the history read under the lock (a gc
// since the last capture drops the caches, whose objects may be gone).
func (s *Workspace) capture(ctx context.Context, h *journal.History, overlay snapshot.Overlay) (*snapshot.Result, error) {
	s.mu.Lock()
	if n := h.GCCount(); n != s.gcSeen {
		s.gcSeen = n
		s.ResetCaches()
	}
	t, lister := s.live, s.openPaths
	s.mu.Unlock()
	var res *snapshot.Result
	var err error
	switch {
	case t != nil && overlay == nil:
		res, err = t.CaptureNow(ctx)
	case t != nil && lister != nil:
		// The disk as the tracker knows it, with the open buffers on top.
		if res, err = t.CaptureNow(ctx); err == nil {
			res, err = s.withBuffers(res, overlay, lister())
		}
	default:
		res, err = s.capturer.Capture(ctx, overlay)
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.lastCapture = res.Duration
	s.mu.Unlock()
	return res, nil
}

// Live is what a running server's live tracking (package live) does for
// its workspace: captures narrowed to what changed, and telling a rewind's
// own writes from anyone else's.
type Live interface {
	// CaptureNow captures the root: what changed since the last capture.
	CaptureNow(ctx context.Context) (*snapshot.Result, error)
	// Ran says this process runs operation id; Expect, that it writes ops
	// (done: written, the editor may still echo them).
	Ran(id journal.EntryID)
	Expect(ops []snapshot.FileOp, done bool)
	// Walked says the workspace captured the whole disk itself (the
	// recovery of an interrupted operation): the latest capture now.
	Walked(id snapshot.ID)
}

// SetLive makes l the workspace's live tracking.
func (s *Workspace) SetLive(l Live) {
	s.mu.Lock()
	s.live = l
	s.mu.Unlock()
}

// ClearLive ends live tracking by l (if it is still the workspace's).
func (s *Workspace) ClearLive(l Live) {
	s.mu.Lock()
	if s.live == l {
		s.live = nil
	}
	s.mu.Unlock()
}

// Live is the workspace's live tracking, or nil.
func (s *Workspace) Live() Live {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live
}

// Retainer keeps a store within its bounds after captures grew it
// (package maintenance).
type Retainer interface {
	// AfterCapture runs at the end of a transaction that captured the
	// root; it must be cheap when nothing is due.
	AfterCapture(tx *Tx)
}

// SetRetainer sets what runs after captures under the journal lock.
func (s *Workspace) SetRetainer(r Retainer) {
	s.mu.Lock()
	s.retainer = r
	s.mu.Unlock()
}

// ResetCaches forgets what this process knows of the store's objects (the
// objects' index, the stat cache's live tree): after retention or gc
// removed some.
func (s *Workspace) ResetCaches() {
	s.objects.Forget()
	s.capturer.Reset()
}

// Recover finishes any operation an interrupted process left unfinished
// and reports how many: a language server calls it when it starts, the
// command line before any command (every transaction would do it anyway).
// When nothing is unfinished it takes no lock.
func (s *Workspace) Recover(ctx context.Context) (n int, err error) {
	if h, err := s.History(); err != nil || len(h.Unfinished()) == 0 {
		return 0, err
	}
	err = s.Update(ctx, "", nil, func(tx *Tx) error { n = tx.finished; return nil })
	return n, err
}

// TurnRequest opens or closes a turn.
type TurnRequest struct {
	Caller
	Prompt  string
	Summary string
	Session string // the turn's agent session
	Source  journal.Source
	// Agent names the agent whose session this is ("claude-code"), when a
	// hook says so.
	Agent string
	// Transcript and Fork are the agent's conversation record at this
	// boundary (Claude Code: its transcript file, and the fork point
	// before the prompt), when a hook gives them.
	Transcript string
	Fork       *journal.ForkPoint
	// PromptID is the agent's id of the prompt (Claude Code's prompt_id).
	// At a turn end it names the turn to end: another open turn of the
	// session is left open.
	PromptID string
	// Ensure opens the turn only if the session's latest turn is not the
	// turn of PromptID already.
	Ensure bool
}

// TurnStart opens a turn, capturing its start state. The same session's
// turn still open is ended first, with the same capture as its end state,
// and so is an automatic turn; other sessions' turns stay open. With
// req.Ensure, when the session's latest turn is already the turn of
// req.PromptID, that turn's start is returned and nothing changes.
func (s *Workspace) TurnStart(ctx context.Context, req TurnRequest) (*journal.Entry, error) {
	return s.record(ctx, req.Key, journal.KindTurnStart, func(tx *Tx) (*journal.Entry, error) {
		if req.Ensure && req.PromptID != "" && req.Session != "" {
			if last := tx.History().SessionLast(req.Session, journal.KindTurnStart); last != nil && last.PromptID == req.PromptID {
				return last, nil
			}
		}
		res, err := tx.Capture(nil)
		if err != nil {
			return nil, err
		}
		return tx.StartTurn(req, res)
	})
}

// TurnEnd ends the open turn of req.Session (History.TurnToEnd) — with
// req.PromptID, only if it is that prompt's turn — capturing its end
// state, and returns the end entry and the turn's start; both are nil
// when that session has no such open turn (nothing is recorded then).
// Other sessions' turns stay open.
func (s *Workspace) TurnEnd(ctx context.Context, req TurnRequest) (end, start *journal.Entry, err error) {
	tr := snapshot.NewTracer("turn end")
	defer tr.Done()
	err = s.Update(ctx, req.Key, Kinds(journal.KindTurnEnd), func(tx *Tx) error {
		tr.Mark("lock and journal")
		h := tx.History()
		if e := tx.Recorded(); e != nil {
			end, start = e, h.Entry(e.Start)
			return nil
		}
		start = h.TurnToEnd(req.Session)
		if start != nil && req.PromptID != "" && start.PromptID != req.PromptID {
			start = nil // the turn of a later prompt: this end came late
		}
		if start == nil {
			return nil
		}
		res, err := tx.Capture(nil)
		if err != nil {
			return err
		}
		tr.Mark("capture")
		end, err = tx.EndTurn(start, res, req)
		tr.Mark("changes and append")
		return err
	})
	return end, start, err
}

// CheckpointRequest asks for a checkpoint.
type CheckpointRequest struct {
	Caller
	Label, Goal string
	// Agent asks for an agent's checkpoint (maintenance, "Agent
	// checkpoints"): labeled agent-N with the next free N, made through
	// connection Conn (an MCP server's) or during the caller's session's
	// open turn.
	Agent bool
	Conn  string
}

// Checkpoint captures a checkpoint with an optional label and goal, and
// returns its entry (Count holds the number of files captured).
func (s *Workspace) Checkpoint(ctx context.Context, req CheckpointRequest) (*journal.Entry, error) {
	return s.record(ctx, req.Key, journal.KindCheckpoint, func(tx *Tx) (*journal.Entry, error) {
		h := tx.History()
		res, err := tx.Capture(nil)
		if err != nil {
			return nil, err
		}
		e := journal.NewCheckpoint(h.Leaf(), journal.SnapOf(res.ID), req.Label, req.Goal, res.Files())
		e.Actor = req.Actor
		if req.Agent {
			e.Label, e.Conn, e.Session = nextAgentLabel(h), req.Conn, req.Session
			if open := h.OpenTurnOf(req.Session); open != nil && req.Session != "" {
				e.InTurn = open.ID
			}
		}
		return e, tx.Append(e)
	})
}

// RecordSession appends a session entry (an agent session started, with
// its agent and transcript when known) under the caller c.
func (s *Workspace) RecordSession(c Caller, sessionID string, source journal.Source, agent, transcript string) (*journal.Entry, error) {
	return s.record(context.Background(), c.Key, journal.KindSession, func(tx *Tx) (*journal.Entry, error) {
		e := journal.NewSession(tx.History().Leaf(), sessionID, source)
		e.Actor, e.Agent, e.Transcript = c.Actor, agent, transcript
		return e, tx.Append(e)
	})
}

// Changes lists what changed from snapshot a to snapshot b, with line
// counts (the zero ID is the empty state).
func (s *Workspace) Changes(a, b store.ID) ([]journal.Change, error) {
	d, err := snapshot.Compare(s.objects, a, b, nil, nil)
	if err != nil {
		return nil, err
	}
	out := []journal.Change{}
	for _, op := range d.Ops {
		// Compare describes b restored over a: that is the change a → b.
		out = append(out, journal.Change{Path: op.Path, Change: op.Change, Added: op.Added, Removed: op.Removed, Kind: op.ContentKind(), Mode: op.ModeChange()})
	}
	return out, nil
}

// Content returns the content and kind of rel in snapshot snap.
func (s *Workspace) Content(snap store.ID, rel string) ([]byte, snapshot.Kind, error) {
	e, ok, err := snapshot.Lookup(s.objects, snap, rel)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, 0, fmt.Errorf("%s is not in snapshot %s", rel, snap.String()[:12])
	}
	if e.Kind == snapshot.KindSkipped {
		return nil, e.Kind, fmt.Errorf("%s was larger than maxFileBytes when captured; its content was not kept", rel)
	}
	data, err := s.objects.Get(e.ID)
	if err != nil {
		return nil, 0, err
	}
	return data, e.Kind, nil
}

// Blame tells, for each line of current (the file rel as the editor or the
// disk holds it now; exists false when it is missing), the turn that last
// wrote it, if an agent turn did and nobody changed the line since
// (filehistory.Blamer).
func (s *Workspace) Blame(rel string, current []byte, exists bool) ([]filehistory.Range, error) {
	h, err := s.History()
	if err != nil {
		return nil, err
	}
	return s.blame.Blame(s.objects, h, rel, current, exists)
}

// RevertHunkApplies reports whether reverting target (a turn or a step, as
// a revert names it) in file rel, limited to its hunks touching protocol
// lines first..last of current, would change the file without a conflict
// (filehistory.RevertHunkApplies). A turn still open has nothing to revert
// here yet.
func (s *Workspace) RevertHunkApplies(rel string, current []byte, exists bool, target string, first, last int) (bool, error) {
	h, err := s.History()
	if err != nil {
		return false, err
	}
	ts, _, err := revertTurns(h, nil, RevertRequest{Target: target})
	if err != nil || len(ts) != 1 {
		return false, err
	}
	return filehistory.RevertHunkApplies(s.objects, h, rel, current, exists, ts[0], first, last)
}

// nextAgentLabel is agent-N with the first N no checkpoint has: labels are
// given in order, so the ones taken are agent-1 to agent-(N-1), and a
// doubling search then a bisection find N in a few lookups.
func nextAgentLabel(h *journal.History) string {
	taken := func(n int) bool { return len(h.Checkpoints(journal.AgentLabelPrefix+strconv.Itoa(n))) > 0 }
	hi := 1
	for taken(hi) {
		hi *= 2
	}
	lo := hi / 2 // taken (or 0); hi is not
	return journal.AgentLabelPrefix + strconv.Itoa(lo+1+sort.Search(hi-lo-1, func(i int) bool { return !taken(lo + 1 + i) }))
}

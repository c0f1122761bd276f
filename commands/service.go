package commands

import (
	"context"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/maintenance"
	"github.com/rewind-lsp/rewind-lsp/rootpath"
	"path/filepath"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/store"
	"github.com/rewind-lsp/rewind-lsp/words"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"github.com/rewind-lsp/rewind-lsp/workspace/live"
)

// Options configure a Service for one workspace root.
type Options struct {
	// Root is the workspace root (made absolute by Open).
	Root string
	// StoreDir overrides the store location; empty means default
	// (rootpath.DefaultStoreDir).
	StoreDir string
	// Actor records who acts: "cli", "hook", "editor".
	Actor string
	// Overlay gives open editor buffers; nil on the command line.
	Overlay Overlay
	// Applier applies rewinds; nil writes the disk directly.
	Applier Applier
	// MaxFileBytes bounds captured file size; 0 means 10 MiB.
	MaxFileBytes int64
	// MaxStoreBytes is the store's budget for automatic retention: 0 means
	// the default (maintenance.DefaultRetention), < 0 no budget.
	MaxStoreBytes int64
	// MaxAgeDays drops unpinned snapshots older than this automatically: 0
	// means the default, < 0 no bound.
	MaxAgeDays float64
}

// ResourceOps is implemented by an Applier that says whether its editor
// creates and deletes files itself; when it returns false, creates and
// deletes go `via: disk`.
type ResourceOps interface {
	ResourceOps() bool
}

// Service is the typed command set for one root (docs/PROTOCOL.md,
// "Commands"). The command line and the language server both call it. It is safe for concurrent use.
type Service struct {
	opts  Options
	ws    *workspace.Workspace
	maint *maintenance.Maintainer
}

// Open opens (creating if needed) the store of opts.Root.
func Open(opts Options) (*Service, error) {
	sess, err := workspace.Open(opts.Root, opts.StoreDir, opts.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	maint := maintenance.New(sess, RetentionFor(opts))
	opts.Root = sess.Root()
	opts.StoreDir = sess.Dir()
	if l, ok := opts.Overlay.(OverlayLister); ok {
		sess.SetOpenPaths(l.Paths)
	}
	if opts.Actor == "" {
		opts.Actor = "cli"
	}
	return &Service{opts: opts, ws: sess, maint: maint}, nil
}

// Close releases the service's resources.
func (s *Service) Close() error { return nil }

// Root is the absolute workspace root.
func (s *Service) Root() string { return s.opts.Root }

// StoreDir is the store folder of the root.
func (s *Service) StoreDir() string { return s.opts.StoreDir }

// JournalPath is the journal file; it changes whenever any process appends.
func (s *Service) JournalPath() string { return s.ws.Journal().Path() }

func (s *Service) overlay() snapshot.Overlay {
	if s.opts.Overlay == nil {
		return nil
	}
	return s.opts.Overlay.Open
}

// actor is who makes the call: the Call's actor, else the Service's.
func (s *Service) actor(ctx context.Context) string {
	if a := CallOf(ctx).Actor; a != "" {
		return a
	}
	return s.opts.Actor
}

// caller is the workspace's record of who makes the call of ctx: its
// actor, idempotency key and agent session, how files reach the disk, and
// what the person did in the editor.
func (s *Service) caller(ctx context.Context) workspace.Caller {
	c := workspace.Caller{Actor: s.actor(ctx), Key: CallOf(ctx).Key, Session: CallOf(ctx).Session, Via: s.via()}
	if et, ok := s.opts.Overlay.(EditorTouch); ok {
		c.Touched = et.EditorTouched
	}
	return c
}

// Checkpoint captures a labeled checkpoint.
func (s *Service) Checkpoint(ctx context.Context, a CheckpointArgs) (*CheckpointResult, error) {
	if a.Agent && a.Label != "" {
		return nil, &ArgError{Field: "label", Msg: "an agent's checkpoint is labeled agent-N by rewind-lsp: give no label"}
	}
	e, err := s.ws.Checkpoint(ctx, workspace.CheckpointRequest{Label: a.Label, Goal: a.Goal, Caller: s.caller(ctx), Agent: a.Agent, Conn: a.Conn})
	if err != nil {
		return nil, err
	}
	return &CheckpointResult{Entry: e.ID, Snapshot: e.Snapshot, Files: e.Count, Label: e.Label}, nil
}

// TurnStart opens a turn (ending an open one first).
func (s *Service) TurnStart(ctx context.Context, a TurnStartArgs) (*TurnStartResult, error) {
	src := a.Source
	if src == "" {
		src = CallOf(ctx).Source
	}
	if src == "" {
		src = journal.Source(s.actor(ctx))
	}
	req := workspace.TurnRequest{Prompt: a.Prompt, Session: a.Session, Source: src, Caller: s.caller(ctx),
		Agent: a.Agent, Transcript: a.Transcript, PromptID: a.PromptID, Ensure: a.Ensure}
	if a.Transcript != "" {
		req.Fork = &a.ForkPoint
	}
	e, err := s.ws.TurnStart(ctx, req)
	if err != nil {
		return nil, err
	}
	return &TurnStartResult{Entry: e.ID, Turn: e.Turn, Snapshot: e.Snapshot}, nil
}

// TurnEnd ends the open turn; with none open it records nothing.
func (s *Service) TurnEnd(ctx context.Context, a TurnEndArgs) (*TurnEndResult, error) {
	req := workspace.TurnRequest{Summary: a.Summary, Session: a.Session, Caller: s.caller(ctx), PromptID: a.PromptID}
	if a.ForkBytes > 0 || a.ForkUUID != "" {
		req.Fork = &a.ForkPoint
	}
	end, _, err := s.ws.TurnEnd(ctx, req)
	if err != nil {
		return nil, err
	}
	if end == nil {
		return &TurnEndResult{Changed: []FileChange{}}, nil
	}
	r := &TurnEndResult{Entry: end.ID, Turn: end.Turn, Snapshot: end.Snapshot, Changed: fileChanges(end.Changed)}
	r.What = changesWhat(r.Changed)
	return r, nil
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// List lists turns, checkpoints and rewinds, oldest first: one page of
// them (journal.History.List), which costs what the page holds.
func (s *Service) List(ctx context.Context, a ListArgs) (*ListResult, error) {
	if a.Limit < 0 {
		return nil, &ArgError{Field: "limit", Msg: "must not be negative"}
	}
	if a.Before < 0 {
		return nil, &ArgError{Field: "before", Msg: "must be a turn number"}
	}
	h, err := s.ws.History()
	if err != nil {
		return nil, err
	}
	page := h.List(a.Limit, a.Before, a.All)
	out := &ListResult{Turns: []TurnInfo{}, Checkpoints: []CheckpointInfo{}, Rewinds: []RewindInfo{}, Summaries: []SummaryInfo{}, More: page.More}
	for _, t := range page.Turns {
		ti := turnInfo(t)
		ti.Steps = stepInfos(h, t)
		out.Turns = append(out.Turns, ti)
	}
	for _, e := range page.Checkpoints {
		out.Checkpoints = append(out.Checkpoints, CheckpointInfo{Entry: e.ID, Label: e.Label, Goal: e.Goal, Time: stamp(e.Time), Snapshot: e.Snapshot,
			Age: ageOf(e.Time), Title: words.Checkpoint(e.Label, e.Goal, string(e.ID))})
	}
	for _, e := range page.Summaries {
		out.Summaries = append(out.Summaries, SummaryInfo{Entry: e.ID, Target: e.Target, Report: e.Report, Time: stamp(e.Time),
			Age: ageOf(e.Time), Title: words.Report(TargetTitle(h, e))})
	}
	for _, e := range page.Rewinds {
		out.Rewinds = append(out.Rewinds, rewindInfo(h, e))
	}
	return out, nil
}

// turnInfo is how a turn is listed.
func turnInfo(t journal.Turn) TurnInfo {
	ti := TurnInfo{Turn: t.Number, Entry: t.Start.ID, Prompt: t.Start.Prompt, Title: words.Title(t.Number, t.Start.Prompt),
		Started: stamp(t.Start.Time), Age: ageOf(t.Start.Time),
		Source: t.Start.Source, Session: t.Start.Session, Agent: t.Start.Agent, SessionLabel: words.Session(t.Start.Agent, t.Start.Session),
		Changed: []FileChange{}, Abandoned: t.Abandoned, Steps: []StepInfo{}}
	if t.End != nil {
		ti.Ended, ti.Summary, ti.Changed = stamp(t.End.Time), t.End.Summary, fileChanges(t.End.Changed)
		ti.What = changesWhat(ti.Changed)
	}
	return ti
}

// stepInfos lists the steps of turn t.
func stepInfos(h *journal.History, t journal.Turn) []StepInfo {
	out := []StepInfo{}
	for _, e := range h.Steps(t.Start) {
		si := StepInfo{Step: e.Step, Entry: e.ID, Target: fmt.Sprintf("%d.%d", t.Number, e.Step), Tool: e.Tool, Detail: e.Detail,
			Time: stamp(e.Time), Age: ageOf(e.Time), Changed: fileChanges(e.Changed), Title: words.Step(t.Number, e.Step, e.Tool, e.Detail)}
		si.What = changesWhat(si.Changed)
		out = append(out, si)
	}
	return out
}

// rewindInfo is how a rewind or revert entry e is listed (a revert: mode
// "revert", target its turn).
func rewindInfo(h *journal.History, e *journal.Entry) RewindInfo {
	ri := RewindInfo{Entry: e.ID, Target: e.Target, Mode: e.Mode, Time: stamp(e.Time),
		Undone: h.Undone(e.ID), Applied: h.Applied(e), Age: ageOf(e.Time)}
	if e.Agent != "" {
		ri.Agent, ri.Session, ri.Turn, ri.Files, ri.Kept, ri.Offered = e.Agent, e.Session, e.Turn, e.Files, e.Kept, e.Offered
		if t := h.Entry(e.TargetEntry); t != nil {
			ri.Prompt = t.Prompt
		}
	}
	ri.fillWords(h, e)
	return ri
}

// request converts preview/rewind arguments into a session request.
func (s *Service) request(ctx context.Context, target, mode string, paths []string, rng *Range, force bool, report string) (workspace.RewindRequest, error) {
	req := workspace.RewindRequest{Target: target, Mode: journal.Mode(mode), Force: force, Report: report, Caller: s.caller(ctx)}
	if strings.TrimSpace(target) == "" {
		return req, &ArgError{Field: "target", Msg: "is required (a turn number, turn:N:end, ~N, @label or an entry id)"}
	}
	if _, err := journal.ParseMode(mode); err != nil {
		return req, &ArgError{Field: "mode", Msg: err.Error()}
	}

	for _, p := range paths {
		rel, err := s.RelPath(p)
		if err != nil {
			return req, &ArgError{Field: "paths", Msg: err.Error()}
		}
		req.Paths = append(req.Paths, rel)
	}
	if rng != nil {
		if len(req.Paths) != 1 {
			return req, &ArgError{Field: "range", Msg: "needs exactly one entry in paths"}
		}
		if rng.Start.Line < 0 || rng.End.Line < rng.Start.Line {
			return req, &ArgError{Field: "range", Msg: "end must not be before start"}
		}
		req.Lines = &[2]int{rng.Start.Line, rng.End.Line}
	}
	return req, nil
}

// RelPath turns a root-relative path or a file:// URI into a clean
// root-relative path, failing for anything outside the root. An absolute
// path may name the root by any spelling: through a symbolic link to it as
// well as by its real path (the service's Root).
func (s *Service) RelPath(p string) (string, error) {
	orig := p
	if strings.HasPrefix(p, "file:") {
		var err error
		if p, err = PathFromURI(p); err != nil {
			return "", err
		}
	}
	if filepath.IsAbs(p) {
		rel, ok := rootpath.RelReal(s.opts.Root, filepath.Clean(p))
		if !ok {
			return "", fmt.Errorf("%q is not inside the root %s", orig, s.opts.Root)
		}
		p = rel
	}
	p = filepath.ToSlash(filepath.Clean(p))
	if !snapshot.ValidPath(p) {
		return "", fmt.Errorf("%q is not a path inside the root %s", orig, s.opts.Root)
	}
	return p, nil
}

// Preview computes the plan of a rewind without changing anything.
func (s *Service) Preview(ctx context.Context, a PreviewArgs) (*Plan, error) {
	req, err := s.request(ctx, a.Target, a.Mode, a.Paths, a.Range, false, "")
	req.Key = "" // a preview records nothing
	if err != nil {
		return nil, err
	}
	out, err := s.ws.Preview(ctx, req, s.overlay())
	if err != nil {
		return nil, err
	}
	return s.plan(out), nil
}

// Rewind rewinds files and/or the conversation, as the mode says.
func (s *Service) Rewind(ctx context.Context, a RewindArgs) (*RewindResult, error) {
	req, err := s.request(ctx, a.Target, a.Mode, a.Paths, a.Range, a.Force, a.Report)
	if err != nil {
		return nil, err
	}
	req.OwnSince = a.OwnSince
	if a.Mode == string(journal.ModeSummarize) && strings.TrimSpace(a.Report) == "" {
		return nil, &ArgError{Field: "report", Msg: "is required with mode summarize (what was learnt on the abandoned path)"}
	}
	out, err := s.ws.Rewind(ctx, req, s.overlay(), s.applyFunc())
	if err != nil {
		return nil, err
	}
	r := s.result(out)
	if out.Mode.MovesConversation() {
		if out.Applied && out.Entry != nil {
			r.Conversation = s.conversation(out)
		} else {
			r.Conversation = &ConversationResult{Reason: "the rewind was not applied"}
		}
	}
	return r, nil
}

// Undo undoes the latest rewind not yet undone.
func (s *Service) Undo(ctx context.Context, a UndoArgs) (*RewindResult, error) {
	out, err := s.ws.Undo(ctx, workspace.UndoRequest{Force: a.Force, Caller: s.caller(ctx)}, s.overlay(), s.applyFunc())
	if err != nil {
		return nil, err
	}
	return s.result(out), nil
}

func (s *Service) result(out *workspace.Outcome) *RewindResult {
	r := &RewindResult{Applied: out.Applied, FailureReason: out.FailureReason, Plan: s.plan(out)}
	if out.Entry != nil {
		r.Entry = out.Entry.ID
	}
	return r
}

// FileHistory lists the turns on the active branch that changed a file.
func (s *Service) FileHistory(ctx context.Context, a FileHistoryArgs) (*FileHistoryResult, error) {
	if a.URI == "" {
		return nil, &ArgError{Field: "uri", Msg: "is required"}
	}
	rel, err := s.RelPath(a.URI)
	if err != nil {
		return nil, &ArgError{Field: "uri", Msg: err.Error()}
	}
	h, err := s.ws.History()
	if err != nil {
		return nil, err
	}
	out := &FileHistoryResult{History: []FileHistoryItem{}}
	for _, t := range h.FileTurns(rel) {
		for _, c := range t.End.Changed {
			if c.Path == rel {
				out.History = append(out.History, FileHistoryItem{Turn: t.Number, Entry: t.Start.ID, Change: c.Change,
					Added: c.Added, Removed: c.Removed, Snapshot: t.Start.Snapshot, EndSnapshot: t.End.Snapshot, Prompt: t.Start.Prompt})
			}
		}
	}
	return out, nil
}

// Status reports the state of the root's store.
func (s *Service) Status(ctx context.Context, a StatusArgs) (*StatusResult, error) {
	h, err := s.ws.History()
	if err != nil {
		return nil, err
	}
	mode, poll := "none", "" // how a running server sees changes
	if t, ok := s.ws.Live().(*live.Tracker); ok {
		mode, poll = t.Mode(), t.PollReason()
	}
	st := &StatusResult{Root: s.opts.Root, Store: s.opts.StoreDir, Turns: h.TurnCount(), Snapshots: h.SnapshotCount(),
		StoreBytes: maintenance.StoreBytes(s.ws.Dir()), Watching: mode == "watch", WatchMode: mode, PollReason: poll,
		LastCaptureMs: float64(s.ws.LastCapture().Microseconds()) / 1000}
	r := s.maint.Retention()
	st.MaxStoreBytes, st.MaxAgeDays = r.MaxBytes, r.MaxAge.Hours()/24
	if open := h.OpenTurn(); open != nil {
		st.OpenTurn = &OpenTurn{Turn: open.Turn, Entry: open.ID, Prompt: open.Prompt, Title: words.Title(open.Turn, open.Prompt),
			Source: open.Source, Session: open.Session, SessionLabel: words.Session(open.Agent, open.Session),
			Started: stamp(open.Time), Age: ageOf(open.Time)}
	}
	return st, nil
}

// Content returns a file's content in a snapshot (for rewind:/ URIs) and
// its kind ("file", "exec", "symlink"). It fails for a missing path or a
// snapshot whose content is gone.
func (s *Service) Content(snap store.ID, rel string) ([]byte, string, error) {
	data, kind, err := s.ws.Content(snap, rel)
	if err != nil {
		return nil, "", err
	}
	return data, kind.String(), nil
}

// RetentionFor is the automatic retention opts ask for: the defaults
// (maintenance.DefaultRetention) with the bounds opts set.
func RetentionFor(opts Options) maintenance.Retention {
	r := maintenance.DefaultRetention
	switch {
	case opts.MaxStoreBytes < 0:
		r.MaxBytes = 0
	case opts.MaxStoreBytes > 0:
		r.MaxBytes = opts.MaxStoreBytes
	}
	switch {
	case opts.MaxAgeDays < 0:
		r.MaxAge = 0
	case opts.MaxAgeDays > 0:
		r.MaxAge = time.Duration(opts.MaxAgeDays * 24 * float64(time.Hour))
	}
	return r
}

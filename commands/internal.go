package commands

import (
	"context"
	"github.com/rewind-lsp/rewind-lsp/maintenance"
	"github.com/rewind-lsp/rewind-lsp/workspace/live"
	"github.com/rewind-lsp/rewind-lsp/workspace/notices"
	"time"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// RecordSessionArgs is the argument of rewind.recordSession: an agent
// session started (a hook's SessionStart).
type RecordSessionArgs struct {
	Scope
	// Session is the agent's session id.
	Session string `json:"session"`
	// Source is how the session started, as the agent says ("startup",
	// "resume").
	Source journal.Source `json:"source,omitempty"`
	// Agent names the session's agent ("claude-code").
	Agent string `json:"agent,omitempty"`
	// Transcript is the session's conversation file.
	Transcript string `json:"transcript,omitempty"`
}

// RecordSessionResult is the result of rewind.recordSession.
type RecordSessionResult struct {
	// Entry is the session entry.
	Entry journal.EntryID `json:"entry"`
}

// RecordSession records that an agent session started, so the session is
// told of the rewinds that happen from now on.
func (s *Service) RecordSession(ctx context.Context, a RecordSessionArgs) (*RecordSessionResult, error) {
	e, err := s.ws.RecordSession(s.caller(ctx), a.Session, a.Source, a.Agent, a.Transcript)
	if err != nil {
		return nil, err
	}
	return &RecordSessionResult{Entry: e.ID}, nil
}

// NoticesArgs is the argument of rewind.notices.
type NoticesArgs struct {
	Scope
	// Session is the agent session to tell.
	Session string `json:"session"`
}

// NoticesResult is the result of rewind.notices: the words for the agent,
// "" when the session has nothing to hear.
type NoticesResult struct {
	// Text is what to tell the agent.
	Text string `json:"text"`
}

// Notices takes what session has not been told yet, as the words for the
// agent: the rewinds, reverts, undos and reports since it last heard, and
// at the first prompt of a conversation fork the files that differ on disk
// from its fork point. Taking them records that the session has heard.
func (s *Service) Notices(ctx context.Context, a NoticesArgs) (*NoticesResult, error) {
	n, err := notices.Take(s.ws, a.Session, CallOf(ctx).Key)
	if err != nil || n.Empty() {
		return &NoticesResult{}, err
	}
	fork := ""
	if f := n.Fork; f != nil {
		fork = agent.ForkText(f.Target, n.History, f.Files, f.By)
	}
	return &NoticesResult{Text: agent.JoinNotices(agent.NoticeText(n.Entries, n.History), fork)}, nil
}

// GCArgs is the argument of rewind.gc; a zero limit is no limit.
type GCArgs struct {
	Scope
	// MaxSnapshots keeps at most the newest N snapshots.
	MaxSnapshots int `json:"maxSnapshots,omitempty"`
	// MaxAgeDays drops snapshots referenced last more than this many days
	// ago.
	MaxAgeDays float64 `json:"maxAgeDays,omitempty"`
	// MaxStoreBytes is the store budget to keep within: 0 is the budget of
	// the process that runs the gc (a running server's), < 0 none.
	MaxStoreBytes int64 `json:"maxStoreBytes,omitempty"`
}

// GCResult is the result of rewind.gc.
type GCResult = maintenance.GCReport

// GC drops unpinned snapshot content beyond the limits (journal entries
// stay; their snapshots are marked gone).
func (s *Service) GC(ctx context.Context, a GCArgs) (*GCResult, error) {
	if a.MaxSnapshots < 0 {
		return nil, &ArgError{Field: "maxSnapshots", Msg: "must not be negative"}
	}
	if a.MaxAgeDays < 0 {
		return nil, &ArgError{Field: "maxAgeDays", Msg: "must not be negative"}
	}
	budget := s.maint.Retention().MaxBytes
	if a.MaxStoreBytes != 0 {
		budget = RetentionFor(Options{MaxStoreBytes: a.MaxStoreBytes}).MaxBytes
	}
	return s.maint.Retain(maintenance.Retention{MaxSnapshots: a.MaxSnapshots,
		MaxAge: time.Duration(a.MaxAgeDays * 24 * float64(time.Hour)), MaxBytes: budget})
}

// FsckArgs is the argument of rewind.fsck.
type FsckArgs struct {
	Scope
}

// FsckResult is the result of rewind.fsck: the store it verified, the
// damage it found, and notes that are no damage (a torn pack tail a crash
// left, a torn journal line set aside).
type FsckResult struct {
	// Store is the store verified.
	Store string `json:"store"`
	// Problems are the damage found, each naming where.
	Problems []maintenance.Problem `json:"problems"`
	// Notes are findings that are no damage.
	Notes []string `json:"notes,omitempty"`
}

// Fsck verifies every journal line, every stored object against its id,
// and that every snapshot the journal needs is whole.
func (s *Service) Fsck(ctx context.Context, a FsckArgs) (*FsckResult, error) {
	rep, err := s.maint.FsckReport()
	if err != nil {
		return nil, err
	}
	return &FsckResult{Store: s.opts.StoreDir, Problems: rep.Problems, Notes: rep.Notes}, nil
}

// RecoverArgs is the argument of rewind.recover.
type RecoverArgs struct {
	Scope
}

// RecoverResult is the result of rewind.recover.
type RecoverResult struct {
	// Finished counts the interrupted operations finished or rolled back.
	Finished int `json:"finished"`
}

// Recover finishes any rewind, revert or undo that an interrupted process
// left half done, or rolls it back; with nothing unfinished it takes no
// lock.
func (s *Service) Recover(ctx context.Context, a RecoverArgs) (*RecoverResult, error) {
	n, err := s.ws.Recover(ctx)
	if err != nil {
		return nil, err
	}
	return &RecoverResult{Finished: n}, nil
}

// Track starts the language server's live tracking of the root: captures
// then read only the paths that changed, and changes on disk that did not
// come from the editor open automatic turns.
func (s *Service) Track(opts live.TrackOptions) *live.Tracker { return live.Track(s.ws, opts) }

// EditorSaved tells the live tracking that the editor saved rel
// (root-relative) with data: a file a rewind gave the editor to apply is
// then at its target.
func (s *Service) EditorSaved(rel string, data []byte) {
	if t, ok := s.ws.Live().(*live.Tracker); ok {
		t.EditorSaved(rel, data)
	}
}

// RevertHunkApplies reports whether reverting target (a turn, turn:3, or a
// step, 3.2) in file rel, limited to its hunks touching lines first..last
// of current (the file's content now; exists false when it is missing),
// would change the file without a conflict: the code action that runs
// that revert is offered exactly then.
func (s *Service) RevertHunkApplies(rel string, current []byte, exists bool, target string, first, last int) (bool, error) {
	return s.ws.RevertHunkApplies(rel, current, exists, target, first, last)
}

// JournalChange is what changed in the journal since a history of Len
// entries: what rewind/didChange and rewind/agentRewind tell the editors.
type JournalChange struct {
	// Len is the number of entries now: the next call's since.
	Len int
	// Turns counts the turns on the active branch, and Latest is the id of
	// the newest turn, checkpoint or rewind a listing shows.
	Turns  int
	Latest journal.EntryID
	// AgentRewinds are the agents' own rewinds recorded since.
	AgentRewinds []RewindInfo
}

// JournalChange reads what changed in the journal since it held since
// entries (a server's journal watcher): it costs what was appended, not
// the history. A journal that shrank (replaced) announces nothing.
func (s *Service) JournalChange(since int) (*JournalChange, error) {
	h, err := s.ws.History()
	if err != nil {
		return nil, err
	}
	out := &JournalChange{Len: h.Len(), Turns: h.TurnCount()}
	if e := h.Newest(); e != nil {
		out.Latest = e.ID
	}
	if since > h.Len() {
		return out, nil
	}
	h.Appended(since, func(e *journal.Entry) {
		if e.Kind == journal.KindRewind && e.Agent != "" {
			out.AgentRewinds = append(out.AgentRewinds, rewindInfo(h, e))
		}
	})
	return out, nil
}

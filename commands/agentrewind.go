package commands

import (
	"context"
	"slices"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/agents"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// AgentRewindArgs asks, at a hook event of an agent session after its
// prompt (Qwen Code's: at its prompt), whether the session's open turn
// continues from an earlier point of its conversation: the agent's own
// rewind (Claude Code's Esc Esc, Qwen Code's /rewind), which runs no hook.
type AgentRewindArgs struct {
	Scope
	Agent   string `json:"agent"`
	Session string `json:"session"`
	// PromptID is the agent's id of the current prompt (Claude Code's
	// prompt_id), when the event gives one.
	PromptID string `json:"promptId,omitempty"`
	// Report, set when the agent's own rewind tool ran (oh-my-pi's
	// rewind, which takes its conversation back to its checkpoint tool's
	// call and restores no file), is that tool's report: the files the
	// session changed since its active checkpoint are restored
	// (workspace.RewindToCheckpoint).
	Report string `json:"report,omitempty"`
}

// AgentRewindResult says what was recorded: the rewind entry ("" when
// there was no rewind, or it was recorded before), whether the agent had
// restored its own files, what rewind-lsp restored besides (the plan),
// what it left alone (Kept) or offers (Offered), and the number of the
// turn that carries the session's prompt on.
type AgentRewindResult struct {
	Entry    journal.EntryID `json:"entry"`
	Applied  bool            `json:"applied"`
	Restored bool            `json:"restored"`
	Kept     []string        `json:"kept"`
	Offered  []string        `json:"offered"`
	Turn     int             `json:"turn"`
	Plan     *Plan           `json:"plan,omitempty"`
	// Checkpoint is the label of the checkpoint an agent's rewind tool
	// went back to ("" when the session had none active).
	Checkpoint string `json:"checkpoint,omitempty"`
}

// AgentRewind notices an agent's own rewind and records and completes it
// (workspace.CompleteAgentRewind). The agent finds it (agent.OwnRewinder:
// Claude Code's and Qwen Code's in their transcripts, opencode's and
// Kilo's in the leaves their prompts recorded): the journal is read without
// the lock, the transcript only after each recorded fork point; the lock is
// taken only when there is a rewind to record.
func (s *Service) AgentRewind(ctx context.Context, a AgentRewindArgs) (*AgentRewindResult, error) {
	if a.Session == "" {
		return nil, &ArgError{Field: "session", Msg: "is required"}
	}
	r := &AgentRewindResult{Kept: []string{}, Offered: []string{}}
	if a.Report != "" {
		return s.rewindToCheckpoint(ctx, a, r)
	}
	ow, ok := agents.Lookup(a.Agent).(agent.OwnRewinder)
	if !ok {
		return r, nil // no other agent's own rewind is seen yet
	}
	h, err := s.ws.History()
	if err != nil {
		return nil, err
	}
	open := h.OpenTurnOf(a.Session)
	req := workspace.AgentRewindRequest{Agent: a.Agent, Session: a.Session, Caller: s.caller(ctx)}
	if slices.ContainsFunc(h.Keyed(req.Key), workspace.AgentRewound) {
		// This call recorded the rewind before (its answer was lost): the
		// workspace answers what it recorded, and completes it.
		return s.completeAgentRewind(ctx, r, req)
	}
	if open == nil || open.Continues != "" || open.Agent != a.Agent || open.Transcript == "" {
		return r, nil
	}
	rw, err := ow.FindOwnRewind(open, a.PromptID, past{h, open})
	if err != nil {
		return r, err
	}
	if rw == nil {
		return r, nil
	}
	req.Turn, req.Dropped, req.RestoresAll = open.ID, rw.Dropped.ID, rw.RestoresAll
	for _, p := range rw.Tracked {
		if rel, err := s.RelPath(p); err == nil {
			req.Tracked = append(req.Tracked, rel) // a file outside the root is not ours to compare
		}
	}
	return s.completeAgentRewind(ctx, r, req)
}

// completeAgentRewind has the workspace record and complete req.
func (s *Service) completeAgentRewind(ctx context.Context, r *AgentRewindResult, req workspace.AgentRewindRequest) (*AgentRewindResult, error) {
	out, err := s.ws.CompleteAgentRewind(ctx, req, s.overlay(), s.applyFunc())
	if err != nil || out == nil {
		return r, err
	}
	r.Applied, r.Restored, r.Plan = out.Applied, out.Restored, s.plan(&out.Outcome)
	if out.Entry != nil {
		r.Entry = out.Entry.ID
		r.Kept = append(r.Kept, out.Entry.Kept...)
		r.Offered = append(r.Offered, out.Entry.Offered...)
	}
	if out.Turn != nil {
		r.Turn = out.Turn.Turn
	}
	return r, nil
}

// past is what the journal knows of the turns before the open turn open,
// as an agent looks for its own rewind among them (agent.Past). Only those
// are read: never the whole history.
type past struct {
	h    *journal.History
	open *journal.Entry
}

// Session lists the open turn's session's other turns on the branch.
func (p past) Session() []*journal.Entry {
	var out []*journal.Entry
	for _, t := range p.h.Session(p.open.Session, journal.KindTurnStart) {
		if t.ID != p.open.ID && p.h.OnBranch(t.ID) {
			out = append(out, t)
		}
	}
	return out
}

// Earlier is earlierTurns.
func (p past) Earlier(parent string) []*journal.Entry { return earlierTurns(p.h, p.open, parent) }

// earlierTurns are the turn starts, oldest first, whose prompt the open
// turn's agent may have dropped by its own rewind when the open prompt
// continues from the entry parent: the session's own turns on the branch
// and, should the session be a fork (Claude Code's --fork-session or
// /branch, Qwen Code's), those of the older sessions of the same agent it
// was forked from — the ones whose prompt was sent where the open prompt
// hangs (the same marker, ForkUUID), and their session's turns after them,
// recorded before the fork first appears (forkCut). Only those are read:
// never the whole history.
func earlierTurns(h *journal.History, open *journal.Entry, parent string) []*journal.Entry {
	usable := func(t *journal.Entry) bool {
		return t.ID != open.ID && t.Transcript != "" && t.Turn <= open.Turn && h.OnBranch(t.ID)
	}
	starts := map[journal.EntryID]*journal.Entry{}
	for _, t := range h.Session(open.Session, journal.KindTurnStart) {
		if usable(t) {
			starts[t.ID] = t
		}
	}
	cut := forkCut(h, open.Session)
	for _, m := range h.ForkedAt(parent) {
		if m.Session == open.Session || m.Agent != open.Agent || h.Index(m) >= cut {
			continue
		}
		for _, t := range h.Session(m.Session, journal.KindTurnStart) {
			if h.Index(t) >= h.Index(m) && h.Index(t) < cut && usable(t) {
				starts[t.ID] = t
			}
		}
	}
	ordered := make([]*journal.Entry, 0, len(starts))
	for _, t := range starts {
		ordered = append(ordered, t)
	}
	slices.SortFunc(ordered, func(a, b *journal.Entry) int { return h.Index(a) - h.Index(b) })
	return ordered
}

// forkCut is where, in journal order, the sessions a session may have been
// forked from stop: what was recorded before the session first appears in
// the journal (a fork copies only what its original had then). A
// conversation fork rewind-lsp made (rewind --mode conversation|both)
// copied only what came before the rewind's target: the turns from the
// target on are no part of it, and its first prompt, a sibling of the
// target's, is no rewind of Claude Code's.
func forkCut(h *journal.History, session string) int {
	e := h.SessionFirst(session)
	if e == nil {
		return h.Len()
	}
	if e.Kind == journal.KindSession && e.Source == journal.SourceRewindFork {
		if t := h.Entry(e.TargetEntry); t != nil {
			return h.Index(t)
		}
		return 0
	}
	return h.Index(e)
}

// rewindToCheckpoint completes an agent's own rewind tool: the files the
// session changed since its active checkpoint go back to it.
func (s *Service) rewindToCheckpoint(ctx context.Context, a AgentRewindArgs, r *AgentRewindResult) (*AgentRewindResult, error) {
	req := workspace.CheckpointRewindRequest{Session: a.Session, Report: a.Report, Caller: s.caller(ctx)}
	out, err := s.ws.RewindToCheckpoint(ctx, req, s.overlay(), s.applyFunc())
	if err != nil || out == nil || out.Checkpoint == nil {
		return r, err
	}
	r.Applied, r.Plan, r.Checkpoint = out.Applied, s.plan(&out.Outcome), out.Checkpoint.Label
	r.Kept = append(r.Kept, out.Kept...)
	if out.Entry != nil {
		r.Entry = out.Entry.ID
	}
	return r, nil
}

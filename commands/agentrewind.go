package commands

import (
	"context"
	"slices"

	"github.com/rewind-lsp/rewind-lsp/agent"
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
// (workspace.CompleteAgentRewind). Claude Code's and Qwen Code's are seen
// in their transcripts (agent.FindOwnRewind, agent.FindQwenRewind): the
// journal is read without the lock, the transcript only after each
// recorded fork point; the lock is taken only when there is a rewind to
// record.
func (s *Service) AgentRewind(ctx context.Context, a AgentRewindArgs) (*AgentRewindResult, error) {
	if a.Session == "" {
		return nil, &ArgError{Field: "session", Msg: "is required"}
	}
	r := &AgentRewindResult{Kept: []string{}, Offered: []string{}}
	if a.Report != "" {
		return s.rewindToCheckpoint(ctx, a, r)
	}
	find := map[string]func(*journal.History, *journal.Entry, string) (*journal.Entry, []string, error){
		agent.ClaudeCode: s.findOwnRewind, agent.Qwen: s.findQwenRewind,
		agent.OpenCode: s.findOpenCodeUndo, agent.Kilo: s.findOpenCodeUndo}[a.Agent]
	if find == nil {
		return r, nil // no other agent's own rewind is seen yet
	}
	h, err := s.ws.History()
	if err != nil {
		return nil, err
	}
	open := h.OpenTurnOf(a.Session)
	req := workspace.AgentRewindRequest{Agent: a.Agent, Session: a.Session, Caller: s.caller(ctx), RestoresAll: agent.IsOpenCode(a.Agent)}
	if slices.ContainsFunc(h.Keyed(req.Key), workspace.AgentRewound) {
		// This call recorded the rewind before (its answer was lost): the
		// workspace answers what it recorded, and completes it.
		return s.completeAgentRewind(ctx, r, req)
	}
	if open == nil || open.Continues != "" || open.Agent != a.Agent || open.Transcript == "" {
		return r, nil
	}
	dropped, tracked, err := find(h, open, a.PromptID)
	if err != nil {
		return r, err
	}
	if dropped == nil {
		return r, nil
	}
	req.Turn, req.Dropped = open.ID, dropped.ID
	for _, p := range tracked {
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

// openCodeDropped is the first earlier turn of an opencode or Kilo
// session on the branch that the open turn's prompt dropped (its own
// /undo: agent.OwnRewindDropped compares the leaves the prompts recorded),
// or nil.
// findOpenCodeUndo is openCodeDropped in the shape of the other agents'
// searches: opencode and Kilo track no files of their own here.
func (s *Service) findOpenCodeUndo(h *journal.History, open *journal.Entry, _ string) (*journal.Entry, []string, error) {
	return openCodeDropped(h, open), nil, nil
}

func openCodeDropped(h *journal.History, open *journal.Entry) *journal.Entry {
	var turns []*journal.Entry
	var points []string
	for _, t := range h.Session(open.Session, journal.KindTurnStart) {
		if t.ID != open.ID && t.Agent == open.Agent && t.Transcript != "" && t.Turn < open.Turn && h.OnBranch(t.ID) {
			turns, points = append(turns, t), append(points, t.ForkUUID)
		}
	}
	if i := agent.OwnRewindDropped(open.ForkUUID, points); i >= 0 {
		return turns[i]
	}
	return nil
}

// findOwnRewind looks in a Claude Code session's transcript for the open
// turn's prompt continuing from before an earlier prompt of its
// conversation: it returns that earlier turn's start and the files Claude
// Code tracks there (absolute paths), or nil. The earlier prompts are the
// session's own turns on the branch and, should the session be a fork
// (Claude Code's --fork-session or /branch), those of the older Claude Code
// sessions it was forked from: the ones whose prompt was sent where the
// open prompt hangs (the same marker, ForkUUID), and their session's turns
// after them, recorded before the fork first appears (forkCut). Only those
// are read: never the whole history.
func (s *Service) findOwnRewind(h *journal.History, open *journal.Entry, promptID string) (*journal.Entry, []string, error) {
	cur := agent.PromptRef{Transcript: open.Transcript, ForkBytes: open.ForkBytes, ForkUUID: open.ForkUUID, PromptID: open.PromptID}
	if cur.PromptID == "" {
		cur.PromptID = promptID
	}
	e, err := agent.FindPrompt(cur.Transcript, cur.ForkBytes, cur.PromptID)
	if err != nil || e == nil || e.First {
		return nil, nil, err
	}
	ordered := earlierTurns(h, open, e.Parent)
	var earlier []agent.PromptRef
	for _, t := range ordered {
		earlier = append(earlier, agent.PromptRef{Transcript: t.Transcript, ForkBytes: t.ForkBytes, ForkUUID: t.ForkUUID, PromptID: t.PromptID})
	}
	if len(earlier) == 0 {
		return nil, nil, nil
	}
	rw, err := agent.FindOwnRewind(cur, earlier)
	if err != nil || rw == nil {
		return nil, nil, err
	}
	return ordered[rw.Dropped], rw.Tracked, nil
}

// findQwenRewind looks in a Qwen Code session's transcript, between the
// previous prompt of the session and the open turn's, for the entry its
// /rewind writes, and returns the start of the turn whose prompt it
// dropped and the files Qwen Code's file history restores there (absolute
// paths), or nil. The dropped prompt is one of earlierTurns: the session's
// own, or, in a fork (rewind-lsp's, Qwen Code's --fork-session or
// /branch, which keep the entries' uuids), those of the session it was
// forked from.
func (s *Service) findQwenRewind(h *journal.History, open *journal.Entry, _ string) (*journal.Entry, []string, error) {
	from := int64(0)
	for _, t := range h.Session(open.Session, journal.KindTurnStart) {
		if t.ID != open.ID && t.Transcript == open.Transcript && h.OnBranch(t.ID) && t.ForkBytes < open.ForkBytes {
			from = max(from, t.ForkBytes)
		}
	}
	parent, found, err := agent.FindQwenRewind(open.Transcript, from, open.ForkBytes)
	if err != nil || !found {
		return nil, nil, err
	}
	ordered := earlierTurns(h, open, parent)
	var earlier []agent.PromptRef
	for _, t := range ordered {
		earlier = append(earlier, agent.PromptRef{Transcript: t.Transcript, ForkBytes: t.ForkBytes, ForkUUID: t.ForkUUID, PromptID: t.PromptID})
	}
	rw, err := agent.FindQwenOwnRewind(parent, earlier)
	if err != nil || rw == nil {
		return nil, nil, err
	}
	return ordered[rw.Dropped], rw.Tracked, nil
}

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
	first := h.Session(session)
	if len(first) == 0 {
		return h.Len()
	}
	e := first[0]
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

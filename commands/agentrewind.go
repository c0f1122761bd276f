package commands

import (
	"context"
	"slices"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// AgentRewindArgs asks, at a hook event of an agent session after its
// prompt, whether the session's open turn continues from an earlier point
// of its conversation: the agent's own rewind (Claude Code's Esc Esc),
// which runs no hook.
type AgentRewindArgs struct {
	Scope
	Agent   string `json:"agent"`
	Session string `json:"session"`
	// PromptID is the agent's id of the current prompt (Claude Code's
	// prompt_id), when the event gives one.
	PromptID string `json:"promptId,omitempty"`
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
}

// AgentRewind notices an agent's own rewind and records and completes it
// (workspace.CompleteAgentRewind). Claude Code's is seen in its transcript
// (agent.FindOwnRewind): the journal is read without the lock, the
// transcript only after each recorded fork point; the lock is taken only
// when there is a rewind to record.
func (s *Service) AgentRewind(ctx context.Context, a AgentRewindArgs) (*AgentRewindResult, error) {
	if a.Session == "" {
		return nil, &ArgError{Field: "session", Msg: "is required"}
	}
	r := &AgentRewindResult{Kept: []string{}, Offered: []string{}}
	if a.Agent != agent.ClaudeCode && !agent.IsOpenCode(a.Agent) {
		return r, nil // no other agent's own rewind is seen yet
	}
	h, err := s.ws.History()
	if err != nil {
		return nil, err
	}
	open := h.OpenTurnOf(a.Session)
	if open == nil || open.Continues != "" || open.Agent != a.Agent || open.Transcript == "" {
		return r, nil
	}
	var dropped *journal.Entry
	var tracked []string
	if agent.IsOpenCode(a.Agent) {
		dropped = openCodeDropped(h, open)
	} else if dropped, tracked, err = s.findOwnRewind(h, open, a.PromptID); err != nil {
		return r, err
	}
	if dropped == nil {
		return r, nil
	}
	req := workspace.AgentRewindRequest{Agent: a.Agent, Session: a.Session, Turn: open.ID, Dropped: dropped.ID,
		Actor: s.actor(ctx), Key: CallOf(ctx).Key, Via: s.via(), RestoresAll: agent.IsOpenCode(a.Agent)}
	for _, p := range tracked {
		if rel, err := s.RelPath(p); err == nil {
			req.Tracked = append(req.Tracked, rel) // a file outside the root is not ours to compare
		}
	}
	out, err := s.ws.CompleteAgentRewind(ctx, req, s.overlay(), s.applyFunc())
	if err != nil || out == nil {
		return r, mapErr(err)
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
	for _, m := range h.ForkedAt(e.Parent) {
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

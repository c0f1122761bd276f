package commands

import (
	"errors"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/workspace/notices"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/agents"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// The conversation half of a rewind: after the workspace moved the
// journal's leaf back, the agent's own conversation is forked at the same
// point, so the agent can continue from there.

// conversation forks the agent conversation of a conversation or both
// rewind's target and records the new session; on any reason not to, it
// says why only the journal moved.
func (s *Service) conversation(out *workspace.Outcome) *ConversationResult {
	t := out.Target
	if t == nil || t.Entry == nil {
		return &ConversationResult{Reason: "the target names no turn"}
	}
	h, err := s.ws.History()
	if err != nil {
		return &ConversationResult{Reason: err.Error()}
	}
	start, end := t.Entry, (*journal.Entry)(nil)
	if start.Kind == journal.KindTurnEnd {
		end, start = start, h.Entry(start.Start)
	}
	if start == nil || start.Kind != journal.KindTurnStart {
		return &ConversationResult{Reason: fmt.Sprintf("%s is not a turn: an agent's conversation can only be rewound to the start or end of one of its turns; only rewind-lsp's journal moved back", t.Spec)}
	}
	ag := agents.Lookup(start.Agent)
	if ag == nil || start.Transcript == "" {
		who := "the command line or an editor"
		if start.Source == journal.SourceAuto {
			who = "file changes (an automatic turn)"
		} else if start.Agent != "" {
			who = start.Agent
		}
		return &ConversationResult{Reason: fmt.Sprintf("turn %d was recorded by %s, not by an agent hook that names its conversation; only rewind-lsp's journal moved back", start.Turn, who)}
	}
	req := agent.ForkRequest{Session: start.Session, Transcript: start.Transcript, Prompt: start.Prompt,
		Point: start.ForkPoint, Nth: h.SamePrompts(start), Dir: s.Root()}
	if end != nil {
		req.End, req.Point = true, end.ForkPoint
	}
	fk, err := ag.Fork(req)
	if err != nil {
		var r *agent.Refusal
		if errors.As(err, &r) {
			return &ConversationResult{Reason: r.Reason + "; only rewind-lsp's journal moved back"}
		}
		return &ConversationResult{Reason: "forking the " + ag.Title() + " conversation failed: " + err.Error()}
	}
	res := &ConversationResult{Agent: ag.Name(), Session: fk.Session, Transcript: fk.Transcript, Resume: fk.Resume}
	if _, err := notices.RecordFork(s.ws, fk.Session, s.opts.Actor, ag.Name(), fk.Transcript, out.Entry); err != nil {
		res.Reason = "the fork was written but not recorded: " + err.Error()
	}
	return res
}

package commands

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/agent"
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
	start, end := t.Entry, (*journal.Entry)(nil)
	if start.Kind == journal.KindTurnEnd {
		h, err := s.ws.History()
		if err != nil {
			return &ConversationResult{Reason: err.Error()}
		}
		end, start = start, h.Entry(start.Start)
	}
	if start == nil || start.Kind != journal.KindTurnStart {
		return &ConversationResult{Reason: fmt.Sprintf("%s is not a turn: an agent's conversation can only be rewound to the start or end of one of its turns; only rewind-lsp's journal moved back", t.Spec)}
	}
	if start.Agent != agent.ClaudeCode || start.Transcript == "" {
		who := "the command line or an editor"
		if start.Source == "auto" {
			who = "file changes (an automatic turn)"
		} else if start.Agent != "" {
			who = start.Agent
		}
		return &ConversationResult{Reason: fmt.Sprintf("turn %d was recorded by %s, not by a Claude Code hook that names its transcript; only rewind-lsp's journal moved back", start.Turn, who)}
	}
	point, prompt := agent.ForkPoint{Bytes: start.ForkBytes, UUID: start.ForkUUID}, start.Prompt
	if end != nil {
		if end.ForkBytes == 0 {
			return &ConversationResult{Reason: fmt.Sprintf("the end of turn %d recorded no transcript position; rewind to turn %d (its start) instead", start.Turn, start.Turn)}
		}
		point, prompt = agent.ForkPoint{Bytes: end.ForkBytes, UUID: end.ForkUUID}, ""
	}
	fk, err := agent.Fork(start.Transcript, point, prompt)
	if err != nil {
		var r *agent.Refusal
		if errors.As(err, &r) {
			return &ConversationResult{Reason: r.Reason + "; only rewind-lsp's journal moved back"}
		}
		return &ConversationResult{Reason: "forking the transcript failed: " + err.Error()}
	}
	if _, err := s.ws.RecordFork(fk.Session, s.opts.Actor, agent.ClaudeCode, fk.Transcript, out.Entry); err != nil {
		return &ConversationResult{Agent: agent.ClaudeCode, Session: fk.Session, Transcript: fk.Transcript, Resume: fk.Resume,
			Reason: "the fork was written but not recorded: " + err.Error()}
	}
	return &ConversationResult{Agent: agent.ClaudeCode, Session: fk.Session, Transcript: fk.Transcript, Resume: fk.Resume}
}

// movesConversation reports whether mode moves the conversation.
func movesConversation(mode string) bool {
	return strings.EqualFold(mode, workspace.ModeConversation) || strings.EqualFold(mode, workspace.ModeBoth)
}

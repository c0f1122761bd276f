package acp

import (
	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/agents"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// The conversation half. ACP cannot fork a session at a turn nor move the
// editor to another session, so a conversation rewind forks the agent's
// own session where rewind-lsp can (package agent) and answers with its
// resume command, the editor's session going on as it is. A turn is
// recorded with the name of the agent rewind-lsp knows, and the position
// of its conversation file, where the proxy can find that file: the agents
// whose sessions rewind-lsp forks are found by the name their initialize
// answer gives (agentInfo.name; agent.ACPAgent).

// turnAgent is the agent name a turn is recorded with: the one rewind-lsp
// knows, else the ACP agent's own.
func turnAgent(name string) string {
	if a := agents.ForACP(name); a != nil {
		return a.Name()
	}
	return name
}

// position is where the session's conversation stands now, when the
// proxy can find its file (agent.ACPAgent): the file and the fork point
// in it, or "" and the zero point.
func (p *Proxy) position(s *session, name string) (string, journal.ForkPoint) {
	a := agents.ForACP(name)
	if a == nil {
		return "", journal.ForkPoint{}
	}
	best := a.ACPTranscript(s.id)
	if best == "" {
		return "", journal.ForkPoint{}
	}
	transcript, at, err := a.Position(&agent.Event{Transcript: best, SessionID: s.id})
	if err != nil || transcript == "" {
		return "", journal.ForkPoint{}
	}
	return transcript, at
}

package acp

import (
	"os"
	"path/filepath"

	"github.com/rewind-lsp/rewind-lsp/agent"
)

// The conversation half. ACP cannot fork a session at a turn nor move the
// editor to another session, so a conversation rewind forks the agent's
// own session where rewind-lsp can (package agent) and answers with its
// resume command, the editor's session going on as it is. A turn is
// recorded with the name of the agent rewind-lsp knows, and the position
// of its conversation file, where the proxy can find that file.

// knownAgents are the ACP agents whose sessions rewind-lsp forks, by the
// name their initialize answer gives (agentInfo.name). claude-code-acp is
// not among them: its Claude Code writes a prompt's entries to the
// transcript only after the prompt's answer, so no fork point can be read
// at the next prompt (docs/ACP.md).
var knownAgents = map[string]string{
	"gemini-cli": agent.Gemini,
	"codex-acp":  agent.Codex,
}

// turnAgent is the agent name a turn is recorded with: the one rewind-lsp
// knows, else the ACP agent's own.
func turnAgent(name string) string {
	if k, ok := knownAgents[name]; ok {
		return k
	}
	return name
}

// position sets where the session's conversation stands now, when the
// proxy can find its file. The ACP session id is the agent's own: Gemini
// CLI's file is ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl,
// Codex's (behind codex-acp) its rollout
// ~/.codex/sessions/<y>/<m>/<d>/rollout-<time>-<id>.jsonl, whose last turn
// id is the point a fork keeps.
func (p *Proxy) position(s *session, name string, transcript *string, bytes *int64, uuid *string) {
	home, err := os.UserHomeDir()
	if err != nil || len(s.id) < 8 || filepath.Base(s.id) != s.id {
		return
	}
	var pattern string
	switch turnAgent(name) {
	case agent.Gemini:
		pattern = filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*-"+s.id[:8]+".jsonl")
	case agent.Codex:
		dir := filepath.Join(home, ".codex")
		if d := os.Getenv("CODEX_HOME"); d != "" {
			dir = d
		}
		pattern = filepath.Join(dir, "sessions", "*", "*", "*", "rollout-*-"+s.id+".jsonl")
	default:
		return
	}
	files, _ := filepath.Glob(pattern)
	best, size := "", int64(-1)
	for _, f := range files {
		// A resume in a later minute starts a header-only Gemini file of
		// the same session: the conversation is in the largest.
		if fi, err := os.Stat(f); err == nil && fi.Size() > size {
			best, size = f, fi.Size()
		}
	}
	if best == "" {
		return
	}
	pos, err := agent.Lookup(turnAgent(name)).Position(&agent.Event{Transcript: best, SessionID: s.id})
	if err != nil || pos.Transcript == "" {
		return
	}
	*transcript, *bytes, *uuid = pos.Transcript, pos.Point.Bytes, pos.Point.UUID
}

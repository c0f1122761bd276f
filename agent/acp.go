package agent

// ACPAgent is an agent that also runs behind ACP (rewind-lsp acp) and
// whose ACP sessions rewind-lsp finds on disk: the proxy records a turn
// with this agent's name and the position of the session's conversation
// file, so that a conversation rewind forks it. The ACP session id is the
// agent's own. claude-code-acp is none: its Claude Code writes a prompt's
// entries to the transcript only after the prompt's answer, so no fork
// point can be read at the next prompt (docs/ACP.md).
type ACPAgent interface {
	Agent
	// ACPName is the name its ACP server gives in its initialize answer
	// (agentInfo.name).
	ACPName() string
	// ACPTranscript is the conversation file of ACP session id now, ""
	// when none is found.
	ACPTranscript(id string) string
}

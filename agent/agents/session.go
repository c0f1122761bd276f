package agents

import (
	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/claudecode"
	"github.com/rewind-lsp/rewind-lsp/agent/codex"
	"github.com/rewind-lsp/rewind-lsp/agent/copilot"
	"github.com/rewind-lsp/rewind-lsp/agent/qwen"
)

// bySessionEnv are the agents that name their session in the environment
// of the processes they start (agent.SessionNamer), in the order their
// variables are read. An agent started from another agent's shell
// inherits the outer one's variable beside its own: Codex, Copilot CLI and
// Qwen Code, which people run from Claude Code's shell (`codex exec`,
// `copilot -p`, `qwen -p`), come before Claude Code. Gemini CLI names no
// session to either.
var bySessionEnv = []agent.Agent{codex.Agent, copilot.Agent, qwen.Agent, claudecode.Agent}

// SessionFromEnv is the agent session the current process runs under, as
// getenv reads the environment, or "" when none is named: agent.SessionVar
// first, then each agent's own variables (bySessionEnv).
func SessionFromEnv(getenv func(string) string) string {
	if v := getenv(agent.SessionVar); v != "" {
		return v
	}
	for _, a := range bySessionEnv {
		n, ok := a.(agent.SessionNamer)
		if !ok {
			continue
		}
		for _, k := range n.SessionEnv() {
			if v := getenv(k); v != "" {
				return v
			}
		}
	}
	return ""
}

// SessionFromMeta is the agent session an MCP tool call names in its
// _meta (agent.MetaSessionNamer: Codex's), or "" when it names none.
// Gemini CLI 0.61 sends only a progressToken.
func SessionFromMeta(meta map[string]any) string {
	for _, a := range agents {
		if n, ok := a.(agent.MetaSessionNamer); ok {
			if s := n.SessionFromMeta(meta); s != "" {
				return s
			}
		}
	}
	return ""
}

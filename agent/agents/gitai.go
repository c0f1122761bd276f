package agents

import "strings"

// gitAITools are the names Git AI gives the agents it names, by
// rewind-lsp's name of each: a Git AI note names a session's agent this way
// so Git AI's own readers recognise it (docs/PROVENANCE.md).
var gitAITools = map[string]string{
	"claude-code": "claude",
	"codex":       "codex",
	"gemini":      "gemini",
	"copilot":     "github-copilot",
	"opencode":    "opencode",
	"qwen":        "qwen",
	"droid":       "droid",
	"cline":       "cline",
}

// GitAITool is the tool name a Git AI authorship note gives the agent
// named name: Git AI's own name where Git AI names that agent, else name
// itself ("unknown" for none).
func GitAITool(name string) string {
	if t, ok := gitAITools[name]; ok {
		return t
	}
	if name == "" {
		return "unknown"
	}
	return name
}

// agentAddresses are the e-mail addresses agents sign their commits'
// Co-authored-by trailers with, by the agent's name.
var agentAddresses = map[string]string{
	"noreply@anthropic.com": "claude-code",
}

// AgentAddress is the agent whose Co-authored-by address email is ("" for
// a person's, or an agent not known by its address).
func AgentAddress(email string) string {
	return agentAddresses[strings.ToLower(strings.TrimSpace(email))]
}

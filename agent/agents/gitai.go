package agents

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

package agent

// sessionEnv names the environment variables that carry the session of the
// agent a process runs under, first match wins (measured on the real
// binaries; docs/ARCHITECTURE.md, "Which session a command runs under"):
//
//   - REWIND_LSP_SESSION, for any agent, set in its configuration or by
//     hand;
//   - Codex 0.169's CODEX_THREAD_ID (and CODEX_SESSION_ID, the same id),
//     which it sets for the commands its shell tool runs, not for its MCP
//     servers;
//   - Copilot CLI 1.0's COPILOT_AGENT_SESSION_ID, which it sets for its
//     shell's commands and its MCP servers;
//   - Qwen Code 0.24's QWEN_CODE_SESSION_ID, which it sets for its shell's
//     commands and its MCP servers;
//   - Claude Code 2.1's CLAUDE_CODE_SESSION_ID, which it sets for its Bash
//     tool's commands and its MCP servers.
//
// Gemini CLI 0.61 names no session to either. An agent started from
// another agent's shell inherits the outer one's variable beside its own:
// Codex, Copilot CLI and Qwen Code, which people run from Claude Code's
// shell (`codex exec`, `copilot -p`, `qwen -p`), come before Claude Code.
var sessionEnv = []string{"REWIND_LSP_SESSION", "CODEX_THREAD_ID", "CODEX_SESSION_ID", "COPILOT_AGENT_SESSION_ID", "QWEN_CODE_SESSION_ID", "CLAUDE_CODE_SESSION_ID"}

// SessionFromEnv is the agent session the current process runs under, as
// getenv reads the environment, or "" when none is named: the command line
// run from an agent's shell, or an agent's MCP server, knows whose turn its
// rewinds belong to.
func SessionFromEnv(getenv func(string) string) string {
	for _, k := range sessionEnv {
		if v := getenv(k); v != "" {
			return v
		}
	}
	return ""
}

// SessionFromMeta is the agent session an MCP tool call names in its
// _meta, or "" when it names none. Codex 0.169 names its thread (the
// session_id of its hooks) in every tools/call as "threadId", and again in
// "x-codex-turn-metadata"; it starts its MCP servers with no session in
// their environment, so this is how its calls are known. Gemini CLI 0.61
// sends only a progressToken.
func SessionFromMeta(meta map[string]any) string {
	if s, _ := meta["threadId"].(string); s != "" {
		return s
	}
	if turn, ok := meta["x-codex-turn-metadata"].(map[string]any); ok {
		if s, _ := turn["thread_id"].(string); s != "" {
			return s
		}
	}
	return ""
}

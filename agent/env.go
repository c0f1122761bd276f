package agent

// sessionEnv names the environment variables that carry the session of the
// agent a process runs under, first match wins: REWIND_LSP_SESSION (for
// any agent, set in its configuration or by hand), then Claude Code's
// CLAUDE_CODE_SESSION_ID, which Claude Code 2.1 sets for the commands its
// Bash tool runs and for the MCP servers it starts.
var sessionEnv = []string{"REWIND_LSP_SESSION", "CLAUDE_CODE_SESSION_ID"}

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

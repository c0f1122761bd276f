package agent

// SessionVar is the environment variable that names the agent session a
// process runs under for any agent, set in its configuration or by hand
// (opencode's and pi's integrations set it for their shells); it comes
// before every agent's own (SessionNamer).
const SessionVar = "REWIND_LSP_SESSION"

// SessionNamer is an agent that names its session to the processes its
// tools start (its shell's commands, its MCP servers), measured on the
// real binaries (docs/ARCHITECTURE.md, "Which session a command runs
// under"): the command line run from an agent's shell, or an agent's MCP
// server, knows whose turn its rewinds belong to.
type SessionNamer interface {
	// SessionEnv lists the environment variables that carry the session,
	// first match wins.
	SessionEnv() []string
}

// MetaSessionNamer is an agent whose MCP tool calls name its session in
// their _meta (Codex's, which starts its MCP servers with no session in
// their environment).
type MetaSessionNamer interface {
	// SessionFromMeta is the session a tool call's _meta names, or "".
	SessionFromMeta(meta map[string]any) string
}

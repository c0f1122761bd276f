package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// AddMCPServer adds an MCP server that the agent starts with command and
// args, in its user settings, its tools allowed without asking (nobody
// answers a prompt in a test): Claude Code through `claude mcp add -s
// user` and its settings' permissions, Codex [mcp_servers.<name>] in
// config.toml with default_tools_approval_mode "approve", Gemini CLI
// "mcpServers" in settings.json with trust, Copilot CLI mcp-config.json,
// Qwen Code "mcpServers" in ~/.qwen/settings.json with trust.
func (e *Env) AddMCPServer(name, command string, args ...string) {
	e.t.Helper()
	if args == nil {
		args = []string{}
	}
	switch e.Kind {
	case Claude:
		r := e.Exec(e.Home, e.Cmd, append([]string{"mcp", "add", "-s", "user", name, "--", command}, args...)...)
		if r.Exit != 0 {
			e.t.Fatalf("claude mcp add: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
		}
		settings := filepath.Join(e.Home, ".claude", "settings.json")
		writeJSON(e.t, settings, mergeJSON(e.t, settings, "permissions", map[string]any{"allow": []string{"mcp__" + name}}))
	case Codex:
		path := filepath.Join(e.Home, ".codex", "config.toml")
		config, err := os.ReadFile(path)
		if err != nil {
			e.t.Fatal(err)
		}
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = fmt.Sprintf("%q", a)
		}
		writeFile(e.t, path, string(config)+fmt.Sprintf("\n[mcp_servers.%s]\ncommand = %q\nargs = [%s]\ndefault_tools_approval_mode = \"approve\"\n",
			name, command, strings.Join(quoted, ", ")))
	case Gemini:
		path := filepath.Join(e.Home, ".gemini", "settings.json")
		writeJSON(e.t, path, mergeJSON(e.t, path, "mcpServers", map[string]any{name: map[string]any{"command": command, "args": args, "trust": true}}))
	case Copilot:
		writeJSON(e.t, filepath.Join(e.Home, ".copilot", "mcp-config.json"), map[string]any{"mcpServers": map[string]any{
			name: map[string]any{"type": "local", "command": command, "args": args, "tools": []string{"*"}}}})
	case Qwen:
		path := filepath.Join(e.Home, ".qwen", "settings.json")
		writeJSON(e.t, path, mergeJSON(e.t, path, "mcpServers", map[string]any{name: map[string]any{"command": command, "args": args, "trust": true}}))
	}
}

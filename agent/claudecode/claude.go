package claudecode

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/hookfile"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Name is Claude Code's name on the command line
// (`rewind-lsp hook NAME`) and in the journal.
const Name = "claude-code"

// Agent is Claude Code.
var Agent agent.Agent = claude{}

// claude is Claude Code. Its hook payloads (agent/testdata/claude) carry
// session_id, transcript_path, cwd and hook_event_name; UserPromptSubmit
// the prompt; Pre/PostToolUse tool_name, tool_input and tool_use_id. Its
// transcript is JSON Lines threaded by uuid (transcript.go).
//
// Claude Code 2.1 names the session to its Bash tool's commands and to its
// MCP servers in CLAUDE_CODE_SESSION_ID (agents.SessionFromEnv); its MCP
// servers also get CLAUDE_CODE_LAUNCHED_BY_SESSION_IDS.
type claude struct{}

func (claude) Name() string  { return Name }
func (claude) Title() string { return "Claude Code" }

var claudeEvents = map[string]agent.EventKind{
	"SessionStart": agent.SessionStart, "UserPromptSubmit": agent.Prompt,
	"PreToolUse": agent.PreTool, "PostToolUse": agent.PostTool, "Stop": agent.Stop,
}

func (claude) Parse(data []byte, event string) (*agent.Event, error) {
	return agent.ParseHook(data, event, claudeEvents)
}

// Writes: Write, Edit, MultiEdit name file_path, NotebookEdit
// notebook_path; Bash and the tools of MCP servers (mcp__<server>__<tool>)
// may write anything.
func (claude) Writes(ev *agent.Event) ([]string, bool, bool) {
	switch ev.ToolName {
	case "Bash":
		return nil, true, true
	case "Write", "Edit", "MultiEdit":
		return agent.FileTool(ev, "file_path")
	case "NotebookEdit":
		return agent.FileTool(ev, "notebook_path")
	}
	return agent.MCPTool(ev, "mcp__")
}

// Notice: the JSON of UserPromptSubmit's additionalContext, which reaches
// the model as a system message after the prompt.
func (claude) Notice(text string) []byte { return agent.ContextJSON("UserPromptSubmit", text) }

// Position: the transcript's length and the uuid of its last entry.
func (claude) Position(ev *agent.Event) (string, journal.ForkPoint, error) {
	if ev.Transcript == "" {
		return "", journal.ForkPoint{}, nil // nothing to record
	}
	p, err := ReadForkPoint(ev.Transcript)
	return ev.Transcript, p, err
}

// Fork: a new transcript beside the original, resumed with
// `claude --resume <id>`. At a turn's end it keeps the turn's lines up to
// the next prompt, not only up to the point the Stop hook read: Claude
// Code 2.1 (with -p, measured) writes the turn's last entries — the last
// tool result, the final answer — after its Stop hook ran.
func (claude) Fork(r agent.ForkRequest) (*agent.Forked, error) {
	if r.End {
		if r.Point.ForkBytes == 0 {
			return nil, agent.NoEnd
		}
		return forkClaude(r.Transcript, r.Point, "", true)
	}
	return ForkClaude(r.Transcript, r.Point, r.Prompt)
}

// Setup merges the hooks into .claude/settings.json of the project, or of
// the user with User.
func (claude) Setup(o agent.SetupOptions) (*agent.SetupResult, error) {
	if !o.User && o.Root == "" && o.NoRoot != nil {
		return nil, o.NoRoot
	}
	dir := filepath.Join(o.Root, ".claude")
	if o.User {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("setup: no home folder: %w", err)
		}
		dir = filepath.Join(home, ".claude")
	}
	cmd := hookfile.Command(o, Name, "")
	path := filepath.Join(dir, "settings.json")
	added, err := hookfile.Merge(path, Name, []hookfile.Spec{
		{Event: "SessionStart", Command: cmd},
		{Event: "UserPromptSubmit", Command: cmd},
		{Event: "PreToolUse", Matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__.*", Command: cmd},
		{Event: "PostToolUse", Matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__.*", Command: cmd},
		{Event: "Stop", Command: cmd},
	})
	if err != nil {
		return nil, err
	}
	return &agent.SetupResult{File: path, Added: added}, nil
}

// SessionEnv: Claude Code 2.1 sets CLAUDE_CODE_SESSION_ID for its Bash
// tool's commands and its MCP servers.
func (claude) SessionEnv() []string { return []string{"CLAUDE_CODE_SESSION_ID"} }

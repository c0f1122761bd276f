package agent

import (
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"os"
	"path/filepath"
)

// claude is Claude Code. Its hook payloads (agent/testdata/claude) carry
// session_id, transcript_path, cwd and hook_event_name; UserPromptSubmit
// the prompt; Pre/PostToolUse tool_name, tool_input and tool_use_id. Its
// transcript is JSON Lines threaded by uuid (transcript.go).
//
// Claude Code 2.1 names the session to its Bash tool's commands and to its
// MCP servers in CLAUDE_CODE_SESSION_ID (env.go); its MCP servers also get
// CLAUDE_CODE_LAUNCHED_BY_SESSION_IDS.
type claude struct{}

func (claude) Name() string  { return ClaudeCode }
func (claude) Title() string { return "Claude Code" }

var claudeEvents = map[string]EventKind{
	"SessionStart": SessionStart, "UserPromptSubmit": Prompt,
	"PreToolUse": PreTool, "PostToolUse": PostTool, "Stop": Stop,
}

func (claude) Parse(data []byte, event string) (*Event, error) {
	return parse(data, event, claudeEvents)
}

// Writes: Write, Edit, MultiEdit name file_path, NotebookEdit
// notebook_path; Bash and the tools of MCP servers (mcp__<server>__<tool>)
// may write anything.
func (claude) Writes(ev *Event) ([]string, bool, bool) {
	switch ev.ToolName {
	case "Bash":
		return nil, true, true
	case "Write", "Edit", "MultiEdit":
		return fileTool(ev, "file_path")
	case "NotebookEdit":
		return fileTool(ev, "notebook_path")
	}
	return mcpTool(ev, "mcp__")
}

// Notice: the JSON of UserPromptSubmit's additionalContext, which reaches
// the model as a system message after the prompt.
func (claude) Notice(text string) []byte { return contextJSON("UserPromptSubmit", text) }

// Position: the transcript's length and the uuid of its last entry.
func (claude) Position(ev *Event) (string, journal.ForkPoint, error) {
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
func (claude) Fork(r ForkRequest) (*Forked, error) {
	if r.End {
		if r.Point.ForkBytes == 0 {
			return nil, noEnd
		}
		return forkClaude(r.Transcript, r.Point, "", true)
	}
	return ForkClaude(r.Transcript, r.Point, r.Prompt)
}

// Setup merges the hooks into .claude/settings.json of the project, or of
// the user with User.
func (claude) Setup(o SetupOptions) (*SetupResult, error) {
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
	cmd := hookCommand(o, ClaudeCode, "")
	path := filepath.Join(dir, "settings.json")
	added, err := mergeHooks(path, ClaudeCode, []hookSpec{
		{event: "SessionStart", command: cmd},
		{event: "UserPromptSubmit", command: cmd},
		{event: "PreToolUse", matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__.*", command: cmd},
		{event: "PostToolUse", matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__.*", command: cmd},
		{event: "Stop", command: cmd},
	})
	if err != nil {
		return nil, err
	}
	return &SetupResult{File: path, Added: added}, nil
}

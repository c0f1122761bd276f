package agent

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// ClaudeCode is the agent name recorded for Claude Code sessions.
const ClaudeCode = "claude-code"

// Claude Code hook event names rewind-lsp acts on.
const (
	EventSessionStart     = "SessionStart"
	EventUserPromptSubmit = "UserPromptSubmit"
	EventPreToolUse       = "PreToolUse"
	EventPostToolUse      = "PostToolUse"
	EventStop             = "Stop"
)

// Event is one Claude Code hook event, as read on the hook's stdin: the
// common fields of every event and those of the events rewind-lsp uses.
type Event struct {
	Name       string          `json:"hook_event_name"`
	SessionID  string          `json:"session_id"`
	Transcript string          `json:"transcript_path"`
	Cwd        string          `json:"cwd"`
	Prompt     string          `json:"prompt"`     // UserPromptSubmit
	Source     string          `json:"source"`     // SessionStart: startup, resume, clear, compact
	ToolName   string          `json:"tool_name"`  // Pre/PostToolUse
	ToolInput  json.RawMessage `json:"tool_input"` // Pre/PostToolUse
	ToolUseID  string          `json:"tool_use_id"`
}

// ParseEvent decodes a hook event.
func ParseEvent(data []byte) (*Event, error) {
	var ev Event
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, fmt.Errorf("hook event is not JSON: %w", err)
	}
	if ev.Name == "" {
		return nil, fmt.Errorf("hook event has no hook_event_name")
	}
	return &ev, nil
}

// ToolWrites says what a Pre/PostToolUse event's tool call may write:
// the files its input names (Write, Edit, MultiEdit: file_path;
// NotebookEdit: notebook_path), made absolute against the event's cwd;
// or capture, for a shell command (Bash) that may write anything, so the
// state is captured before and after. relevant is false for tools that
// write nothing.
func (ev *Event) ToolWrites() (paths []string, capture, relevant bool) {
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	switch ev.ToolName {
	case "Bash":
		return nil, true, true
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
	default:
		return nil, false, false
	}
	if len(ev.ToolInput) > 0 {
		_ = json.Unmarshal(ev.ToolInput, &in)
	}
	p := in.FilePath
	if ev.ToolName == "NotebookEdit" {
		p = in.NotebookPath
	}
	if strings.TrimSpace(p) == "" {
		return nil, false, true
	}
	if !filepath.IsAbs(p) && ev.Cwd != "" {
		p = filepath.Join(ev.Cwd, p)
	}
	return []string{filepath.Clean(p)}, false, true
}

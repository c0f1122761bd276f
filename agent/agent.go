package agent

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Agent is one coding agent rewind-lsp takes turns from through its
// hooks: how its hook events read, what its tool calls write, how a
// notice reaches its model, where its conversation stands at a turn
// boundary and how it is forked there, and where its hooks are installed.
// Each agent is a package below this one; package agents lists them.
type Agent interface {
	// Name is the agent's name on the command line and in the journal.
	Name() string
	// Title is the name people know it by ("Claude Code").
	Title() string
	// Parse reads one hook event. event is the event the hook's command
	// line names ("" when the payload names it itself).
	Parse(payload []byte, event string) (*Event, error)
	// Writes says what a tool event's call may write: the files its input
	// names, absolute; or capture, for a shell command that may write
	// anything (the state is captured before and after). relevant is false
	// for tools that write nothing.
	Writes(ev *Event) (paths []string, capture, relevant bool)
	// Notice is the exact stdout of the agent's prompt hook that hands text
	// to its model.
	Notice(text string) []byte
	// Position reads where the session's conversation stands at a Prompt
	// event (before the prompt) or a Stop event (the turn just ended): its
	// conversation file ("" when there is nothing to record) and the fork
	// point in it.
	Position(ev *Event) (transcript string, at journal.ForkPoint, err error)
	// Fork makes a conversation that continues the session from a
	// recorded position, beside the original, which is never modified. A
	// fork that cannot be made is a *Refusal.
	Fork(r ForkRequest) (*Forked, error)
	// Setup installs rewind-lsp's hooks where the agent runs them.
	Setup(o SetupOptions) (*SetupResult, error)
}

// EventKind is what a hook event means to rewind-lsp, whatever the agent
// calls it.
type EventKind int

// The kinds of hook events.
const (
	Ignored      EventKind = iota // accepted and ignored
	SessionStart                  // a session starts or resumes
	Prompt                        // a prompt was submitted: a turn opens
	PreTool                       // a tool call is about to run
	PostTool                      // a tool call ran
	Stop                          // the agent finished: the turn ends
	Checkpointed                  // the agent's own checkpoint tool ran (OwnTools)
	Rewound                       // the agent's own rewind tool ran (OwnTools)
	GoBack                        // the person takes the conversation back in the agent's own interface: where is that (Path)
)

// Event is one hook event, in one shape for every agent.
type Event struct {
	Kind EventKind
	// Name is the agent's own name of the event.
	Name       string
	SessionID  string
	Transcript string // the session's conversation file, when the event names it
	Cwd        string
	Prompt     string          // Prompt
	Source     string          // SessionStart: why it started (startup, resume…)
	TurnID     string          // the agent's id of the turn, when it has one
	PromptID   string          // the agent's id of the prompt (Claude Code's prompt_id, on every event of a prompt)
	ToolName   string          // Pre/PostTool
	ToolInput  json.RawMessage // Pre/PostTool: the call's input object
	ToolUseID  string          // Pre/PostTool: the call's id, when the agent gives one
	// Parent is, at SessionStart, the session this one continues as a
	// fork, when the agent says so.
	Parent string
	// Time is when the agent says the event happened (zero when it does
	// not).
	Time time.Time
	// Leaf is the conversation's current entry when the event fired (pi's
	// leaf id; opencode's and Kilo's last message, at a prompt the last
	// before it), nil when the payload does not say.
	Leaf   *string
	Report string // Checkpointed: the goal; Rewound: the report
	// Path, at GoBack, is the conversation from its first entry to the
	// entry the person picked to go back to.
	Path []ConvEntry
}

// ConvEntry is one entry of an agent's conversation, as far as going back
// to it goes.
type ConvEntry struct {
	ID string `json:"id"`
	// Prompt says the entry is a prompt: going back to it, the
	// conversation goes on from the entry before it (the prompt's text
	// goes back into the agent's input to send again).
	Prompt bool `json:"prompt,omitempty"`
	// ToolUse is the id of the tool call whose result the entry is.
	ToolUse string `json:"toolUse,omitempty"`
}

// payload holds the fields of every agent's hook payloads: snake_case for
// Claude Code, Codex and Gemini CLI, camelCase for Copilot CLI.
type payload struct {
	Name       string          `json:"hook_event_name"`
	SessionID  string          `json:"session_id"`
	Transcript string          `json:"transcript_path"`
	Cwd        string          `json:"cwd"`
	Prompt     string          `json:"prompt"`
	Source     string          `json:"source"`
	TurnID     string          `json:"turn_id"`
	PromptID   string          `json:"prompt_id"`
	ToolName   string          `json:"tool_name"`
	ToolInput  json.RawMessage `json:"tool_input"`
	ToolUseID  string          `json:"tool_use_id"`

	SessionIDCamel  string          `json:"sessionId"`
	TranscriptCamel string          `json:"transcriptPath"`
	ToolNameCamel   string          `json:"toolName"`
	ToolArgs        json.RawMessage `json:"toolArgs"`
}

// ParseHook decodes a payload into an Event of kind kinds[name], where name
// is the event the command line names, else the payload's.
func ParseHook(data []byte, event string, kinds map[string]EventKind) (*Event, error) {
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("hook event is not JSON: %w", err)
	}
	name := p.Name
	if event != "" {
		name = event
	}
	if name == "" {
		return nil, fmt.Errorf("hook event has no hook_event_name")
	}
	ev := &Event{Kind: kinds[name], Name: name, SessionID: cmp.Or(p.SessionID, p.SessionIDCamel),
		Transcript: cmp.Or(p.Transcript, p.TranscriptCamel), Cwd: p.Cwd, Prompt: p.Prompt, Source: p.Source,
		TurnID: p.TurnID, PromptID: p.PromptID, ToolName: cmp.Or(p.ToolName, p.ToolNameCamel), ToolInput: p.ToolInput, ToolUseID: p.ToolUseID}
	if len(ev.ToolInput) == 0 && len(p.ToolArgs) > 0 {
		ev.ToolInput = p.ToolArgs
		// Some versions send the arguments as a JSON text in a string.
		var s string
		if json.Unmarshal(p.ToolArgs, &s) == nil {
			ev.ToolInput = json.RawMessage(s)
		}
	}
	return ev, nil
}

// InputPath reads the string field key of a tool input, made absolute
// against the event's cwd ("" when there is none).
func (ev *Event) InputPath(key string) string {
	var in map[string]json.RawMessage
	if json.Unmarshal(ev.ToolInput, &in) != nil {
		return ""
	}
	var p string
	if json.Unmarshal(in[key], &p) != nil || strings.TrimSpace(p) == "" {
		return ""
	}
	return ev.Abs(p)
}

// Abs makes p absolute against the event's cwd.
func (ev *Event) Abs(p string) string {
	if !filepath.IsAbs(p) && ev.Cwd != "" {
		p = filepath.Join(ev.Cwd, p)
	}
	return filepath.Clean(p)
}

// FileTool is the Writes of an agent's tool that names one file in input
// field key: the file, or relevant but nothing when it names none.
func FileTool(ev *Event, key string) ([]string, bool, bool) {
	if p := ev.InputPath(key); p != "" {
		return []string{p}, false, true
	}
	return nil, false, true
}

// MCPTool is the Writes of a tool of an MCP server (its name begins with
// the agent's prefix for them): it may write anything, like a shell.
func MCPTool(ev *Event, prefix string) ([]string, bool, bool) {
	if strings.HasPrefix(ev.ToolName, prefix) {
		return nil, true, true
	}
	return nil, false, false
}

// ContextJSON is {"hookSpecificOutput":{"hookEventName":event,
// "additionalContext":text}}, one line: the notice of the agents that
// take it this way.
func ContextJSON(event, text string) []byte {
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	out.HookSpecificOutput.HookEventName = event
	out.HookSpecificOutput.AdditionalContext = text
	return MarshalLine(out)
}

// HomeDir is the folder an agent keeps its files in: $env when set, else
// sub of the user's home folder.
func HomeDir(env, sub string) (string, error) {
	if d := os.Getenv(env); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home folder: %w", err)
	}
	return filepath.Join(home, sub), nil
}

// Detail says in one short line what a tool call is about, from its input:
// the shell command it runs, or the file it writes ("" when the input says
// neither). It names the call's step.
func (ev *Event) Detail() string {
	var in map[string]json.RawMessage
	if json.Unmarshal(ev.ToolInput, &in) != nil {
		return ""
	}
	for _, key := range []string{"command", "cmd", "file_path", "notebook_path", "filePath", "path"} {
		raw, ok := in[key]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			var parts []string
			if json.Unmarshal(raw, &parts) != nil {
				continue
			}
			if n := len(parts); n >= 3 && (parts[n-2] == "-lc" || parts[n-2] == "-c") {
				parts = parts[n-1:] // bash -lc "…": the command itself
			}
			s = strings.Join(parts, " ")
		}
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			if r := []rune(s); len(r) > 120 {
				s = string(r[:119]) + "…"
			}
			return s
		}
	}
	return ""
}

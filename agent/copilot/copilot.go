package copilot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/hookfile"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Name is Copilot CLI's name on the command line and in the journal.
const Name = "copilot"

// Agent is Copilot CLI.
var Agent agent.Agent = copilot{}

// copilot is GitHub's Copilot CLI. Its hook payloads (agent/testdata/
// copilot) carry sessionId, cwd and, at agentStop, transcriptPath;
// userPromptSubmitted the prompt; pre/postToolUse toolName and toolArgs.
// They name neither their event (each hook command names it) nor a turn
// or tool-call id (Pre and Post are paired in order). A session is the
// folder ~/.copilot/session-state/<id>/ (COPILOT_HOME replaces ~/.copilot):
// events.jsonl ({type, data, id, timestamp, parentId} a line; a prompt is
// a user.message) and workspace.yaml, which a resume needs intact.
// Copilot CLI writes events.jsonl as its session ends, not as each hook
// runs, so a fork finds its turn by the prompt, not by a length.
//
// Copilot CLI 1.0 names the session (the hooks' sessionId, the same after
// --resume) to its shell's commands and to its MCP servers in
// COPILOT_AGENT_SESSION_ID (agents.SessionFromEnv).
type copilot struct{}

func (copilot) Name() string  { return Name }
func (copilot) Title() string { return "Copilot CLI" }

var copilotEvents = map[string]agent.EventKind{
	"sessionStart": agent.SessionStart, "userPromptSubmitted": agent.Prompt,
	"preToolUse": agent.PreTool, "postToolUse": agent.PostTool, "agentStop": agent.Stop,
}

// CopilotEvents are the events rewind-lsp hooks in Copilot CLI, each named
// on its hook's command line.
var CopilotEvents = []string{"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop"}

func (copilot) Parse(data []byte, event string) (*agent.Event, error) {
	if event == "" {
		return nil, fmt.Errorf("Copilot CLI's hook payloads name no event: the hook command must (rewind-lsp hook copilot EVENT)")
	}
	return agent.ParseHook(data, event, copilotEvents)
}

// Writes: create and edit name path; bash and the tools of MCP servers
// (<server>-<tool>; Copilot CLI's own tools have no hyphen) may write
// anything.
func (copilot) Writes(ev *agent.Event) ([]string, bool, bool) {
	switch ev.ToolName {
	case "bash":
		return nil, true, true
	case "create", "edit":
		return agent.FileTool(ev, "path")
	}
	if strings.Contains(ev.ToolName, "-") {
		return nil, true, true // an MCP server's tool, <server>-<tool>
	}
	return nil, false, false
}

// Notice: userPromptSubmitted's top-level additionalContext, which Copilot
// CLI puts in the user message (in a <system_reminder>).
func (copilot) Notice(text string) []byte {
	return agent.MarshalLine(struct {
		AdditionalContext string `json:"additionalContext"`
	}{text})
}

// Position: the session's events.jsonl (the prompt finds the turn).
func (copilot) Position(ev *agent.Event) (string, journal.ForkPoint, error) {
	if ev.Transcript != "" {
		return ev.Transcript, journal.ForkPoint{}, nil
	}
	if ev.SessionID == "" || strings.ContainsAny(ev.SessionID, `/\`) || ev.SessionID == ".." {
		return "", journal.ForkPoint{}, fmt.Errorf("the event names no usable session id")
	}
	home, err := agent.HomeDir("COPILOT_HOME", ".copilot")
	if err != nil {
		return "", journal.ForkPoint{}, err
	}
	return filepath.Join(home, "session-state", ev.SessionID, "events.jsonl"), journal.ForkPoint{}, nil
}

// copilotEvent is what a fork reads of an events.jsonl line.
type copilotEvent struct {
	Type string `json:"type"`
	Data struct {
		Content  string `json:"content"`
		HookType string `json:"hookType"`
	} `json:"data"`
}

// Fork: a copy of the session folder's events.jsonl cut before the turn's
// prompt (with End, before the next prompt) and its workspace.yaml, with
// the session id replaced, in a new folder beside the original;
// `copilot --resume=<id>` continues it.
func (copilot) Fork(r agent.ForkRequest) (*agent.Forked, error) {
	dir := filepath.Dir(r.Transcript)
	data, err := os.ReadFile(r.Transcript)
	if os.IsNotExist(err) {
		return nil, agent.Refusef("the session file %s is missing", r.Transcript)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.Transcript, err)
	}
	yaml, err := os.ReadFile(filepath.Join(dir, "workspace.yaml"))
	if err != nil {
		return nil, agent.Refusef("the session's workspace.yaml cannot be read (Copilot CLI resumes no session without it): %v", err)
	}
	old := filepath.Base(dir)
	lines := bytes.SplitAfter(data, []byte("\n"))
	evs := make([]copilotEvent, len(lines))
	for i, l := range lines {
		json.Unmarshal(l, &evs[i])
	}
	// The turn's prompt: the Nth user.message with its text.
	at, seen := -1, 0
	for i, e := range evs {
		if e.Type == "user.message" && strings.TrimSpace(e.Data.Content) == strings.TrimSpace(r.Prompt) {
			if seen == r.Nth {
				at = i
				break
			}
			seen++
		}
	}
	if at < 0 {
		return nil, agent.Refusef("the turn's prompt is not in %s yet (Copilot CLI writes it there when its session ends): end that session and rewind again", r.Transcript)
	}
	cut := at
	if r.End {
		cut = len(lines)
		for i := at + 1; i < len(evs); i++ {
			if evs[i].Type == "user.message" {
				cut = i
				break
			}
		}
	}
	// A prompt's events start with its hooks (and a resumed session's
	// session.resume): they go with it.
	for cut < len(lines) && cut > 0 {
		e := evs[cut-1]
		if e.Type == "session.resume" || (e.Type == "hook.start" || e.Type == "hook.end") &&
			(e.Data.HookType == "sessionStart" || e.Data.HookType == "userPromptSubmitted") {
			cut--
			continue
		}
		break
	}
	talk := false
	for _, e := range evs[:cut] {
		talk = talk || e.Type == "user.message"
	}
	if !talk {
		return nil, agent.FirstTurn
	}
	id := uuid.NewString()
	events := bytes.ReplaceAll(bytes.Join(lines[:cut], nil), []byte(old), []byte(id))
	yaml = bytes.ReplaceAll(yaml, []byte(old), []byte(id))
	parent := filepath.Dir(dir)
	tmp, err := os.MkdirTemp(parent, conv.PartialPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("write forked session: %w", err)
	}
	defer os.RemoveAll(tmp)
	err = conv.WriteNew(tmp, "events.jsonl", 0o600, func(f *os.File) error { _, err := f.Write(events); return err })
	if err == nil {
		err = conv.WriteNew(tmp, "workspace.yaml", 0o600, func(f *os.File) error { _, err := f.Write(yaml); return err })
	}
	if err == nil {
		err = os.Chmod(tmp, 0o700)
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(parent, id))
	}
	if err != nil {
		return nil, fmt.Errorf("write forked session: %w", err)
	}
	return &agent.Forked{Session: id, Transcript: filepath.Join(parent, id, "events.jsonl"), Resume: "copilot --resume=" + id}, nil
}

// Setup writes the user's hooks file ~/.copilot/hooks/rewind-lsp.json:
// Copilot CLI runs a repository's hooks only in a folder it trusts. The
// file is rewind-lsp's own; each command names its event.
func (copilot) Setup(o agent.SetupOptions) (*agent.SetupResult, error) {
	home, err := agent.HomeDir("COPILOT_HOME", ".copilot")
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	path := filepath.Join(home, "hooks", "rewind-lsp.json")
	hooks := map[string]any{}
	for _, ev := range CopilotEvents {
		hooks[ev] = []any{map[string]any{"type": "command", "bash": hookfile.Command(o, Name, ev), "timeoutSec": 10}}
	}
	want, _ := json.MarshalIndent(map[string]any{"version": 1, "hooks": hooks}, "", "  ")
	want = append(want, '\n')
	r := &agent.SetupResult{File: path}
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, want):
		return r, nil
	case err == nil && !json.Valid(old):
		return nil, fmt.Errorf("%s: not JSON; fix or move it, rewind-lsp changed nothing", path)
	case err != nil && !os.IsNotExist(err):
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := hookfile.WriteSettings(path, want, 0o644); err != nil {
		return nil, err
	}
	r.Added = append(r.Added, CopilotEvents...)
	return r, nil
}

// SessionEnv: Copilot CLI 1.0 sets COPILOT_AGENT_SESSION_ID for its shell's
// commands and its MCP servers.
func (copilot) SessionEnv() []string { return []string{"COPILOT_AGENT_SESSION_ID"} }

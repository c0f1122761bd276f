package cline

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/hookfile"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Name is the Cline CLI, by its name on the command line and in the
// journal.
const Name = "cline"

// Agent is Cline.
var Agent agent.Agent = cline{}

// cline is the Cline CLI. Its command hooks are executable files named
// after their event in ~/.cline/hooks/ (CLINE_DIR replaces ~/.cline); each
// gets one JSON payload on stdin (agent/testdata/cline): hookName
// (agent_start, tool_call, tool_result, agent_end…), timestamp, taskId,
// sessionContext.rootSessionId (the session: `cline --id` resumes it, and
// a resumed session gets a new taskId), workspaceRoots, and per event
// tool_call/tool_result {id, name, input}. No payload names the cwd or
// the transcript, nor carries the person's prompt: in --yolo runs
// UserPromptSubmit's prompt is Cline's own reminder, and its terminal
// interface fires no UserPromptSubmit at all. TaskStart (and TaskResume)
// and TaskComplete run detached — Cline does not wait for them, so a
// prompt's first tool call may run before its TaskStart hook — while the
// tool hooks are awaited. So cline is a Prompter: its turn opens at
// whichever of TaskStart, a tool event or TaskComplete comes first for a
// prompt, read from the session's messages file
// (~/.cline/data/sessions/<id>/<id>.messages.json: {messages: [{id, role,
// ts, content}]}, a prompt a user message `<user_input mode="…">text
// </user_input>`).
//
// Only the tool hooks' output reaches the model: their contextModification
// comes back as a <hook_context> user message after the tool's result.
// Cline resumes a session only in its terminal interface (`cline --id
// <session>`), and resumes there a copy of a session's folder cut before a
// prompt, its ids replaced (measured on Cline 3.0.65, though the copy is
// not in its session database, which `cline history` lists): a
// conversation rewind writes such a copy.
type cline struct{}

func (cline) Name() string  { return Name }
func (cline) Title() string { return "Cline" }

// ClineEvents are the events rewind-lsp hooks in Cline, each a file of
// that name whose command names the event.
var ClineEvents = []string{"TaskStart", "TaskResume", "PreToolUse", "PostToolUse", "TaskComplete", "TaskCancel"}

var clineEvents = map[string]agent.EventKind{
	"TaskStart": agent.Prompt, "TaskResume": agent.Prompt,
	"PreToolUse": agent.PreTool, "PostToolUse": agent.PostTool, "TaskComplete": agent.Stop, "TaskCancel": agent.Stop,
}

// clineHookNames maps a payload's hookName to the event's file name.
var clineHookNames = map[string]string{
	"agent_start": "TaskStart", "agent_resume": "TaskResume", "agent_abort": "TaskCancel", "agent_end": "TaskComplete",
	"agent_error": "TaskError", "tool_call": "PreToolUse", "tool_result": "PostToolUse", "prompt_submit": "UserPromptSubmit",
	"session_shutdown": "SessionShutdown",
}

type clineCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type clinePayload struct {
	HookName       string `json:"hookName"`
	Timestamp      string `json:"timestamp"`
	TaskID         string `json:"taskId"`
	SessionContext struct {
		RootSessionID string `json:"rootSessionId"`
	} `json:"sessionContext"`
	WorkspaceRoots []string `json:"workspaceRoots"`
	WorkspaceInfo  struct {
		RootPath string `json:"rootPath"`
	} `json:"workspaceInfo"`
	ToolCall   *clineCall `json:"tool_call"`
	ToolResult *clineCall `json:"tool_result"`
}

func (cline) Parse(data []byte, event string) (*agent.Event, error) {
	var p clinePayload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("hook event is not JSON: %w", err)
	}
	name := event
	if name == "" {
		name = clineHookNames[p.HookName]
	}
	if name == "" {
		return nil, fmt.Errorf("Cline's hook event names no event (hookName %q): the hook command must (rewind-lsp hook cline EVENT)", p.HookName)
	}
	ev := &agent.Event{Kind: clineEvents[name], Name: name, SessionID: cmp.Or(p.SessionContext.RootSessionID, p.TaskID), TurnID: p.TaskID}
	if len(p.WorkspaceRoots) > 0 {
		ev.Cwd = p.WorkspaceRoots[0]
	}
	ev.Cwd = cmp.Or(ev.Cwd, p.WorkspaceInfo.RootPath)
	if t, err := time.Parse(time.RFC3339Nano, p.Timestamp); err == nil {
		ev.Time = t
	}
	if c := first2(p.ToolCall, p.ToolResult); c != nil {
		ev.ToolName, ev.ToolInput, ev.ToolUseID = c.Name, c.Input, c.ID
	}
	if ev.SessionID != "" && !strings.ContainsAny(ev.SessionID, `/\`) && ev.SessionID != ".." && ev.SessionID != "." {
		if dir, err := clineSessions(); err == nil {
			ev.Transcript = filepath.Join(dir, ev.SessionID, ev.SessionID+".messages.json")
		}
	}
	return ev, nil
}

func first2(a, b *clineCall) *clineCall {
	if a != nil {
		return a
	}
	return b
}

// clineSessions is the folder of Cline's sessions: as Cline sets it for
// its hooks (CLINE_SESSION_DATA_DIR), else under CLINE_DATA_DIR, else
// under CLINE_DIR (default ~/.cline) data/sessions.
func clineSessions() (string, error) {
	if d := os.Getenv("CLINE_SESSION_DATA_DIR"); d != "" {
		return d, nil
	}
	if d := os.Getenv("CLINE_DATA_DIR"); d != "" {
		return filepath.Join(d, "sessions"), nil
	}
	home, err := agent.HomeDir("CLINE_DIR", ".cline")
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "data", "sessions"), nil
}

// Writes: editor names path; run_commands may write anything.
func (cline) Writes(ev *agent.Event) ([]string, bool, bool) {
	switch ev.ToolName {
	case "run_commands":
		return nil, true, true
	case "editor":
		return agent.FileTool(ev, "path")
	}
	return nil, false, false
}

// Notice: a hook's contextModification (the hook flow uses NoticeAt).
func (cline) Notice(text string) []byte {
	return agent.MarshalLine(struct {
		ContextModification string `json:"contextModification"`
	}{text})
}

// NoticeAt: PreToolUse's contextModification, which Cline gives the model
// after the tool's result (its prompt hooks run detached: their output is
// dropped) — except submit_and_exit's, whose result ends the run before
// the model is asked again.
func (c cline) NoticeAt(ev *agent.Event, text string) []byte {
	if ev.Name != "PreToolUse" || ev.ToolName == "submit_and_exit" {
		return nil
	}
	return c.Notice(text)
}

// clineMessage is what rewind-lsp reads of a message of the messages file.
type clineMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Ts      int64           `json:"ts"`
	Content json.RawMessage `json:"content"`
}

// clinePromptText is a user message's prompt, ok false for other messages
// (tool results, hook contexts, Cline's own reminders).
func clinePromptText(m clineMessage) (string, bool) {
	if m.Role != "user" || m.ID == "" {
		return "", false
	}
	var text string
	if json.Unmarshal(m.Content, &text) != nil {
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(m.Content, &parts) != nil || len(parts) == 0 || parts[0].Type != "text" {
			return "", false
		}
		text = parts[0].Text
	}
	t := strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(t, "<user_input"); ok {
		if i := strings.IndexByte(rest, '>'); i >= 0 {
			rest = rest[i+1:]
		}
		rest, _ = strings.CutSuffix(rest, "</user_input>")
		return strings.TrimSpace(rest), true
	}
	if strings.HasPrefix(t, "<hook_context") || strings.HasPrefix(t, "[SYSTEM]") || t == "" {
		return "", false
	}
	return t, true
}

// CurrentPrompt: the last prompt of the session's messages file sent by
// the event's time (a detached hook may run after the next prompt).
func (cline) CurrentPrompt(ev *agent.Event) (*agent.PromptAt, error) {
	if ev.Transcript == "" {
		return nil, nil
	}
	data, err := os.ReadFile(ev.Transcript)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // not written yet
	}
	if err != nil {
		return nil, fmt.Errorf("cline messages (transcript) %s: %w", ev.Transcript, err)
	}
	var file struct {
		Messages []clineMessage `json:"messages"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("cline messages (transcript) %s: %w", ev.Transcript, err)
	}
	var p *agent.PromptAt
	for _, m := range file.Messages {
		if !ev.Time.IsZero() && m.Ts > ev.Time.UnixMilli() {
			break
		}
		if text, ok := clinePromptText(m); ok {
			p = &agent.PromptAt{ID: m.ID, Text: text, Transcript: ev.Transcript, Point: journal.ForkPoint{ForkUUID: m.ID}}
		}
	}
	return p, nil
}

// Position: at a turn's end, the prompt the session was answering (a
// fork at the turn's end keeps everything up to the next prompt).
func (c cline) Position(ev *agent.Event) (string, journal.ForkPoint, error) {
	if ev.Kind != agent.Stop {
		return "", journal.ForkPoint{}, nil
	}
	p, err := c.CurrentPrompt(ev)
	if p == nil || err != nil {
		return "", journal.ForkPoint{}, err
	}
	return p.Transcript, p.Point, nil
}

// Fork: a copy of the session's folder (beside it, under a new session id
// in Cline's shape, <ms>_<5 letters or digits>) whose messages file is cut
// before the turn's prompt (with End, before the next prompt after it),
// the old id replaced by the new one in its files' names and contents;
// `cline --id <id>` continues it in Cline's terminal interface.
func (cline) Fork(r agent.ForkRequest) (*agent.Forked, error) {
	if r.Point.ForkUUID == "" {
		if r.End {
			return nil, agent.NoEnd
		}
		return nil, agent.Refusef("that turn recorded no prompt of Cline's messages file to cut it at")
	}
	dir := filepath.Dir(r.Transcript)
	old := filepath.Base(dir)
	if old != r.Session || filepath.Base(r.Transcript) != old+".messages.json" {
		return nil, agent.Refusef("%s is not the messages file of Cline's session %s", r.Transcript, r.Session)
	}
	data, err := os.ReadFile(r.Transcript)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.Transcript, err)
	}
	var file map[string]json.RawMessage
	var messages []json.RawMessage
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("read %s: %w", r.Transcript, err)
	}
	if err := json.Unmarshal(file["messages"], &messages); err != nil {
		return nil, fmt.Errorf("read %s: its messages: %w", r.Transcript, err)
	}
	at, assistant := -1, false
	for i, raw := range messages {
		var m clineMessage
		json.Unmarshal(raw, &m)
		if at < 0 {
			if m.ID == r.Point.ForkUUID {
				at = i
				if !r.End {
					break
				}
				continue
			}
			assistant = assistant || m.Role == "assistant"
			continue
		}
		if _, ok := clinePromptText(m); ok {
			break
		}
		at = i
	}
	if at < 0 {
		return nil, agent.Refusef("Cline's messages file %s no longer holds prompt %s", r.Transcript, r.Point.ForkUUID)
	}
	cut := at
	if r.End {
		cut = at + 1
	} else if !assistant {
		return nil, agent.FirstTurn
	}
	kept, err := json.Marshal(messages[:cut])
	if err != nil {
		return nil, err
	}
	file["messages"] = kept
	cutData, err := json.MarshalIndent(file, "", "  ")
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	id := clineSessionID()
	newDir := filepath.Join(filepath.Dir(dir), id)
	if err := os.Mkdir(newDir, 0o700); err != nil {
		return nil, fmt.Errorf("write forked session: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, old+".") || strings.Contains(name, ".compaction.") {
			continue // a compaction summarises messages the copy may no longer hold
		}
		content := cutData
		if name != old+".messages.json" {
			if content, err = os.ReadFile(filepath.Join(dir, name)); err != nil {
				return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, name), err)
			}
		}
		content = bytes.ReplaceAll(content, []byte(old), []byte(id))
		err := conv.WriteNew(newDir, id+strings.TrimPrefix(name, old), 0o600, func(f *os.File) error {
			_, err := f.Write(content)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("write forked session: %w", err)
		}
	}
	return &agent.Forked{Session: id, Transcript: filepath.Join(newDir, id+".messages.json"), Resume: "cline --id " + id}, nil
}

// clineSessionID is a new session id in Cline's shape: the time in
// milliseconds, "_", five lowercase letters or digits.
func clineSessionID() string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b [5]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = chars[int(b[i])%len(chars)]
	}
	return fmt.Sprintf("%d_%s", time.Now().UnixMilli(), b[:])
}

// Setup writes one executable file per event in the user's Cline hooks
// folder, each running `rewind-lsp hook cline EVENT`. A file of that name
// that is not rewind-lsp's is left alone and named in the error.
func (cline) Setup(o agent.SetupOptions) (*agent.SetupResult, error) {
	home, err := agent.HomeDir("CLINE_DIR", ".cline")
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	dir := filepath.Join(home, "hooks")
	r := &agent.SetupResult{File: dir}
	want := map[string][]byte{}
	for _, ev := range ClineEvents {
		path := filepath.Join(dir, ev)
		script := []byte("#!/bin/sh\n# rewind-lsp's hook (rewind-lsp setup cline): hands Cline's " + ev + " event to rewind-lsp.\nexec " +
			hookfile.Command(o, Name, ev) + "\n")
		old, err := os.ReadFile(path)
		switch {
		case err == nil && bytes.Equal(old, script):
			continue
		case err == nil && !clineOurs(old):
			return nil, fmt.Errorf("%s is not rewind-lsp's hook; rewind-lsp changed nothing: add the line `%s` to it by hand, or move it away and run setup again",
				path, hookfile.Command(o, Name, ev))
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		want[ev] = script
		if err == nil {
			r.Added = append(r.Added, ev+" (updated)")
		} else {
			r.Added = append(r.Added, ev)
		}
	}
	for _, ev := range ClineEvents {
		if script, ok := want[ev]; ok {
			if err := hookfile.WriteSettings(filepath.Join(dir, ev), script, 0o755); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// clineOurs reports whether a hook file runs rewind-lsp's hook for Cline.
func clineOurs(script []byte) bool {
	for _, line := range strings.Split(string(script), "\n") {
		if hookfile.IsOurHook(line, Name) {
			return true
		}
	}
	return false
}

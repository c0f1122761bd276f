package droid

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/hookfile"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Name is Factory's droid CLI, by its name on the command line and in the
// journal.
const Name = "droid"

// Agent is Factory's droid.
var Agent agent.Agent = droid{}

// droid is Factory's droid CLI. Its hooks are Claude Code's (agent/testdata/
// droid): settings.json "hooks", payloads with session_id, transcript_path,
// cwd and hook_event_name, Pre/PostToolUse tool_name and tool_input (no
// tool_use_id), Stop the last message's message_id. `droid exec` (0.215,
// measured) never fires UserPromptSubmit and no payload carries the
// prompt, so droid is a Prompter: its turn opens at the first tool event
// or Stop of a prompt, whose text and id are read from the transcript.
//
// The transcript is ~/.factory/sessions/<cwd, / → ->/<session id>.jsonl: a
// session_start line ({id, title, cwd, parent?, forkedAtMessageId?}), then
// message lines ({type: "message", id, parentId, message: {role, content,
// visibility?, hookEventName?}}) — a prompt is a user message with text and
// no visibility, just after its "context-<prompt id>" message of reminders
// — the hooks' runs as user_only messages, and agent_turn_outcome lines.
// Beside it, <session id>.settings.json (model, autonomy).
//
// Of the hooks' additionalContext, SessionStart's and PostToolUse's reach
// the model (as user messages, kept in the conversation); PreToolUse's does
// not. `droid exec -s <id>` asks Factory's servers for the session and
// fails offline; `droid exec --fork <id>` copies a local session into a
// new one and continues it: a conversation rewind writes a cut copy to be
// forked that way.
type droid struct{}

func (droid) Name() string  { return Name }
func (droid) Title() string { return "droid" }

var droidEvents = map[string]agent.EventKind{
	"SessionStart": agent.SessionStart, "UserPromptSubmit": agent.Prompt,
	"PreToolUse": agent.PreTool, "PostToolUse": agent.PostTool, "Stop": agent.Stop,
}

// Parse: a SessionStart also names the session it was forked from (its
// transcript's first line), whose pending notices it hears.
func (droid) Parse(data []byte, event string) (*agent.Event, error) {
	ev, err := agent.ParseHook(data, event, droidEvents)
	if err == nil && ev.Kind == agent.SessionStart && ev.Transcript != "" {
		ev.Parent = droidParent(ev.Transcript)
	}
	return ev, err
}

// droidParent is the parent named by the session_start line of the
// transcript at path ("" when it names none or cannot be read).
func droidParent(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64<<10).ReadSlice('\n')
	var head struct {
		Type   string `json:"type"`
		Parent string `json:"parent"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &head) != nil || head.Type != "session_start" {
		return ""
	}
	return head.Parent
}

// Writes: Create and Edit name file_path, ApplyPatch its patch's files;
// Execute and Task (a subagent) may write anything.
func (droid) Writes(ev *agent.Event) ([]string, bool, bool) {
	switch ev.ToolName {
	case "Execute", "Task":
		return nil, true, true
	case "Create", "Edit", "MultiEdit":
		return agent.FileTool(ev, "file_path")
	case "ApplyPatch":
		var in struct {
			Input string `json:"input"`
			Patch string `json:"patch"`
		}
		json.Unmarshal(ev.ToolInput, &in)
		var paths []string
		for _, p := range agent.PatchPaths(cmp.Or(in.Input, in.Patch)) {
			paths = append(paths, ev.Abs(p))
		}
		return paths, false, true
	}
	return nil, false, false
}

// Notice: UserPromptSubmit's additionalContext (droid's interactive
// interface; the hook flow uses NoticeAt).
func (droid) Notice(text string) []byte { return agent.ContextJSON("UserPromptSubmit", text) }

// NoticeAt: SessionStart's and PostToolUse's additionalContext, which
// reach the model as user messages (measured on droid exec); PreToolUse's
// does not, and UserPromptSubmit does not fire in droid exec.
func (droid) NoticeAt(ev *agent.Event, text string) []byte {
	switch ev.Name {
	case "SessionStart", "PostToolUse":
		return agent.ContextJSON(ev.Name, text)
	}
	return nil
}

// droidLine is what rewind-lsp reads of a transcript line.
type droidLine struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Message *struct {
		Role          string          `json:"role"`
		Content       json.RawMessage `json:"content"`
		Visibility    string          `json:"visibility"`
		HookEventName string          `json:"hookEventName"`
	} `json:"message"`
}

// droidPrompt reads a transcript line as a prompt: its message id and
// text, ok false for any other line.
func droidPrompt(line []byte) (id, text string, ok bool) {
	if !bytes.Contains(line, []byte(`"role":"user"`)) || bytes.Contains(line, []byte(`"type":"tool_result"`)) {
		return "", "", false // cheap: most lines are not
	}
	var l droidLine
	if json.Unmarshal(line, &l) != nil || l.Type != "message" || l.Message == nil || l.Message.Role != "user" ||
		l.Message.Visibility != "" || l.Message.HookEventName != "" || l.ID == "" || strings.HasPrefix(l.ID, "context-") {
		return "", "", false
	}
	var s string
	if json.Unmarshal(l.Message.Content, &s) == nil {
		return l.ID, s, s != ""
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(l.Message.Content, &parts) != nil {
		return "", "", false
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return l.ID, strings.Join(texts, "\n"), len(texts) > 0
}

// CurrentPrompt: the transcript's last prompt; its position is where its
// lines begin (its context message's, when that comes just before it),
// marked with its id.
func (droid) CurrentPrompt(ev *agent.Event) (*agent.PromptAt, error) {
	if ev.Transcript == "" {
		return nil, nil
	}
	f, err := os.Open(ev.Transcript)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	end, err := conv.LastNewline(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("transcript %s: %w", ev.Transcript, err)
	}
	var p *agent.PromptAt
	err = conv.EachLineBack(f, end, func(line []byte, start int64) bool {
		if p != nil { // the line before the prompt
			if conv.TopString(line, "id") == "context-"+p.ID {
				p.Point.ForkBytes = start
			}
			return false
		}
		if id, text, ok := droidPrompt(line); ok {
			p = &agent.PromptAt{ID: id, Text: text, Transcript: ev.Transcript, Point: journal.ForkPoint{ForkBytes: start, ForkUUID: id}}
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("transcript %s: %w", ev.Transcript, err)
	}
	return p, nil
}

// Position: at a turn's end, the transcript's length and the id of its
// last message (the point a fork at the turn's end keeps at least).
func (droid) Position(ev *agent.Event) (string, journal.ForkPoint, error) {
	if ev.Transcript == "" || ev.Kind != agent.Stop {
		return "", journal.ForkPoint{}, nil
	}
	p, err := conv.ReadPoint(ev.Transcript, func(line []byte) string {
		if conv.TopString(line, "type") == "message" {
			return conv.TopString(line, "id")
		}
		return ""
	})
	return ev.Transcript, p, err
}

// Fork: a copy of the transcript cut before the turn's prompt (with End,
// before the next prompt after the turn's end), its session_start line
// given a new id, beside the original with a copy of its settings;
// `droid exec --fork <id> "…"` continues it (droid forks it once more:
// its exec resumes no session offline).
func (droid) Fork(r agent.ForkRequest) (*agent.Forked, error) {
	if r.End && r.Point.ForkBytes == 0 {
		return nil, agent.NoEnd
	}
	f, fi, err := conv.OpenAt(r.Transcript, r.Point)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	end, err := conv.LastNewline(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.Transcript, err)
	}
	cut := r.Point.ForkBytes
	if r.End {
		// The turn's last lines may come after its Stop hook ran: keep
		// everything up to the next prompt.
		cut = end
		err = conv.EachLine(f, r.Point.ForkBytes, end, func(line []byte, start int64) bool {
			if _, _, ok := droidPrompt(line); ok || strings.HasPrefix(conv.TopString(line, "id"), "context-") {
				cut = start
				return false
			}
			return true
		})
	} else {
		// The line at the fork point is the turn's prompt or its context.
		var id string
		err = conv.EachLine(f, cut, end, func(line []byte, start int64) bool {
			id = conv.TopString(line, "id")
			return false
		})
		if err == nil && id != r.Point.ForkUUID && id != "context-"+r.Point.ForkUUID {
			return nil, agent.Refusef("the session file %s changed under the fork point: the line at byte %d is not prompt %s's", r.Transcript, cut, r.Point.ForkUUID)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.Transcript, err)
	}
	data := make([]byte, cut)
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, fmt.Errorf("read %s: %w", r.Transcript, err)
	}
	head, rest, _ := bytes.Cut(data, []byte("\n"))
	if conv.TopString(head, "type") != "session_start" {
		return nil, agent.Refusef("the session file %s does not begin with its session_start line", r.Transcript)
	}
	if !bytes.Contains(rest, []byte(`"role":"assistant"`)) {
		return nil, agent.FirstTurn
	}
	id := uuid.NewString()
	newHead, ok := setTopString(head, "id", id)
	if !ok {
		return nil, agent.Refusef("the session_start line of %s names no id", r.Transcript)
	}
	dir := filepath.Dir(r.Transcript)
	err = conv.WriteNew(dir, id+".jsonl", fi.Mode().Perm(), func(tmp *os.File) error {
		if _, err := tmp.Write(append(newHead, '\n')); err != nil {
			return err
		}
		_, err := tmp.Write(rest)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write forked session: %w", err)
	}
	old := strings.TrimSuffix(r.Transcript, ".jsonl") + ".settings.json"
	if settings, err := os.ReadFile(old); err == nil {
		// The session's model and autonomy; without them droid uses its
		// defaults, so a failure here is not one of the fork.
		conv.WriteNew(dir, id+".settings.json", 0o600, func(tmp *os.File) error { _, err := tmp.Write(settings); return err })
	}
	return &agent.Forked{Session: id, Transcript: filepath.Join(dir, id+".jsonl"), Resume: "droid exec --fork " + id}, nil
}

// setTopString returns line with the top-level string member key set to
// value, the rest byte for byte; ok false when line has no such member.
func setTopString(line []byte, key, value string) ([]byte, bool) {
	var at conv.TopField
	found := false
	conv.TopFields(line, func(f conv.TopField) bool {
		if string(f.Key) == key {
			at, found = f, true
			return false
		}
		return true
	})
	if !found || line[at.Start] != '"' {
		return nil, false
	}
	out := append([]byte(nil), line[:at.Start]...)
	out = append(out, conv.Quote(value)...)
	return append(out, line[at.End:]...), true
}

// Setup merges the hooks into the user's ~/.factory/settings.json. The
// tool hooks see every tool: any tool call may be a prompt's first event
// (where its turn opens), and PostToolUse carries the notice.
func (droid) Setup(o agent.SetupOptions) (*agent.SetupResult, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("setup: no home folder: %w", err)
	}
	path := filepath.Join(home, ".factory", "settings.json")
	cmd := hookfile.Command(o, Name, "")
	added, err := hookfile.Merge(path, Name, []hookfile.Spec{
		{Event: "SessionStart", Command: cmd},
		{Event: "UserPromptSubmit", Command: cmd},
		{Event: "PreToolUse", Matcher: "*", Command: cmd},
		{Event: "PostToolUse", Matcher: "*", Command: cmd},
		{Event: "Stop", Command: cmd},
	})
	if err != nil {
		return nil, err
	}
	r := &agent.SetupResult{File: path, Added: added}
	if droidHooksDisabled(path) {
		r.Steps = append(r.Steps, "droid runs no hook while its hooks are disabled (\"hooksDisabled\": true in "+path+
			"): turn hooks back on in droid's /settings, or remove that line")
	}
	return r, nil
}

// droidHooksDisabled reports whether the settings file at path turns all
// of droid's hooks off (hooks.hooksDisabled, droid's /settings "Hooks"):
// droid then runs none of them (measured on droid 0.215 exec).
func droidHooksDisabled(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var s struct {
		Hooks struct {
			HooksDisabled bool `json:"hooksDisabled"`
		} `json:"hooks"`
	}
	return json.Unmarshal(data, &s) == nil && s.Hooks.HooksDisabled
}

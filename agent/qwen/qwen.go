package qwen

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/claudecode"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/hookfile"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Name is Qwen Code's name on the command line and in the journal.
const Name = "qwen"

// Agent is Qwen Code.
var Agent agent.Agent = qwen{}

// qwen is Qwen Code (a Gemini CLI fork whose hooks are Claude Code's). Its
// hook payloads (agent/testdata/qwen) carry session_id, transcript_path,
// cwd, hook_event_name and prompt_id; UserPromptSubmit the prompt;
// Pre/PostToolUse tool_name, tool_input and tool_use_id. UserPromptSubmit
// runs again before every request that carries tool results, with an
// empty prompt and the same prompt_id: those are no turns. prompt_id is
// <session>########<n>, n counting the prompts of one process from 0, so
// in runs with a prompt on the command line (-p, or the positional prompt)
// every prompt of a session has the same id.
//
// Its transcript, ~/.qwen/projects/<folder>/chats/<session>.jsonl
// ($QWEN_HOME replaces ~/.qwen), is JSON Lines threaded by uuid and
// parentUuid like Claude Code's, with {type: user|assistant|tool_result|
// system, message: {role, parts}} entries; system entries (subtype
// attribution_snapshot, ui_telemetry, file_history_snapshot, rewind…)
// hang in the same chain. The prompt's user entry is written after
// UserPromptSubmit runs. A resume (`qwen --resume <id>`) appends to the
// same file, continuing from its last entry's chain.
type qwen struct{}

func (qwen) Name() string  { return Name }
func (qwen) Title() string { return "Qwen Code" }

var qwenEvents = map[string]agent.EventKind{
	"SessionStart": agent.SessionStart, "UserPromptSubmit": agent.Prompt,
	"PreToolUse": agent.PreTool, "PostToolUse": agent.PostTool, "PostToolUseFailure": agent.PostTool, "Stop": agent.Stop,
}

// Parse: PostToolUse runs only after a tool call that succeeded,
// PostToolUseFailure after one that failed (it may have written files all
// the same). A UserPromptSubmit without a prompt is a tool continuation,
// ignored.
func (qwen) Parse(data []byte, event string) (*agent.Event, error) {
	ev, err := agent.ParseHook(data, event, qwenEvents)
	if err == nil && ev.Kind == agent.Prompt && strings.TrimSpace(ev.Prompt) == "" {
		ev.Kind = agent.Ignored
	}
	return ev, err
}

// Writes: write_file and edit name file_path, notebook_edit
// notebook_path; run_shell_command, monitor (a shell command watched in
// the background), exec (code that calls the tools) and the tools of MCP
// servers (mcp__<server>__<tool>) may write anything.
func (qwen) Writes(ev *agent.Event) ([]string, bool, bool) {
	switch ev.ToolName {
	case "run_shell_command", "monitor", "exec":
		return nil, true, true
	case "write_file", "edit":
		return agent.FileTool(ev, "file_path")
	case "notebook_edit":
		return agent.FileTool(ev, "notebook_path")
	}
	return agent.MCPTool(ev, "mcp__")
}

// Notice: UserPromptSubmit's additionalContext, which Qwen Code sends the
// model as a part of the prompt's message, in a
// <qwen:user-prompt-submit-context> tag.
func (qwen) Notice(text string) []byte { return agent.ContextJSON("UserPromptSubmit", text) }

// Position: the transcript's length and the uuid of its last entry.
func (qwen) Position(ev *agent.Event) (string, journal.ForkPoint, error) {
	if ev.Transcript == "" {
		return "", journal.ForkPoint{}, nil // nothing to record
	}
	p, err := claudecode.ReadForkPoint(ev.Transcript)
	return ev.Transcript, p, err
}

// Fork: a copy of the transcript cut at the position, the session id
// replaced everywhere (its entries' sessionId, and the prompt ids
// <session>########<n> its file-history snapshots name, as Qwen Code's own
// forks do), beside the original as <new id>.jsonl; `qwen --resume <id>`
// continues it. At a turn's end it keeps the turn's entries written after
// the Stop hook read the point, up to the next prompt. (Qwen Code's own
// forks also copy the session's file-history backups; a resumed session
// cannot restore files of the turns before its resume all the same — its
// interface keeps no prompt id for them — so this one does not.)
func (qwen) Fork(r agent.ForkRequest) (*agent.Forked, error) {
	if r.End && r.Point.ForkBytes == 0 {
		return nil, agent.NoEnd
	}
	f, fi, err := conv.OpenAt(r.Transcript, r.Point)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := r.Point.ForkBytes
	if r.End {
		size = fi.Size() // the turn's late entries too
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, size))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.Transcript, err)
	}
	lines := splitLines(data[:r.Point.ForkBytes])
	last := ""
	for _, l := range lines {
		if info, ok := conv.ReadLine(l); ok && info.UUID != "" {
			last = info.UUID
		}
	}
	if last != r.Point.ForkUUID {
		return nil, agent.Refusef("the transcript %s changed under the fork point: its last entry before byte %d is %q, not %q as recorded",
			r.Transcript, r.Point.ForkBytes, last, r.Point.ForkUUID)
	}
	if r.End {
		for _, l := range splitLines(data[r.Point.ForkBytes:]) {
			if qwenPrompt(l) || qwenRewound(l) {
				break
			}
			lines = append(lines, l)
		}
	} else {
		lines = lines[:qwenPromptTail(lines, r.Prompt)]
	}
	old, talk := "", false
	for _, l := range lines {
		if old == "" {
			old = conv.TopString(bytes.TrimSuffix(l, []byte("\n")), "sessionId")
		}
		talk = talk || qwenPrompt(l)
	}
	if !talk {
		return nil, agent.FirstTurn
	}
	if old == "" {
		return nil, agent.Refusef("the transcript %s names no session", r.Transcript)
	}
	id := uuid.NewString()
	kept := bytes.ReplaceAll(bytes.Join(lines, nil), []byte(old), []byte(id))
	dir := filepath.Dir(r.Transcript)
	err = conv.WriteNew(dir, id+".jsonl", fi.Mode().Perm(), func(tmp *os.File) error {
		_, err := tmp.Write(kept)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write forked transcript: %w", err)
	}
	return &agent.Forked{Session: id, Transcript: filepath.Join(dir, id+".jsonl"), Resume: "qwen --resume " + id}, nil
}

// splitLines splits data after each '\n'; a last line without one is left
// out (it was still being written).
func splitLines(data []byte) [][]byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if n := len(lines); n > 0 && !bytes.HasSuffix(lines[n-1], []byte("\n")) {
		lines = lines[:n-1]
	}
	return lines
}

// qwenPromptTail is how many of lines to keep so that the turn's own
// prompt, should the transcript already hold it, is left out: the index of
// the last user entry when it is a prompt with prompt's text and nothing
// but system entries follow it, else all of them.
func qwenPromptTail(lines [][]byte, prompt string) int {
	p := strings.TrimSpace(prompt)
	for i := len(lines) - 1; i >= 0 && p != ""; i-- {
		typ := conv.TopString(bytes.TrimSuffix(lines[i], []byte("\n")), "type")
		if typ == "system" {
			continue
		}
		if text, ok := qwenPromptText(lines[i]); ok && strings.Contains(text, p) {
			return i
		}
		break
	}
	return len(lines)
}

// Setup merges the hooks into the user's ~/.qwen/settings.json
// ($QWEN_HOME/settings.json): Qwen Code runs a project's hooks only in a
// folder it trusts, a user's in every folder, and none at all while that
// file's disableAllHooks is true (the one step left to the person then).
// Its command hooks' timeouts are in seconds.
func (qwen) Setup(o agent.SetupOptions) (*agent.SetupResult, error) {
	dir, err := agent.HomeDir("QWEN_HOME", ".qwen")
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	path := filepath.Join(dir, "settings.json")
	cmd := hookfile.Command(o, Name, "")
	tools := "write_file|edit|notebook_edit|run_shell_command|monitor|exec|mcp__.*"
	added, err := hookfile.Merge(path, Name, []hookfile.Spec{
		{Event: "SessionStart", Command: cmd, Timeout: 10},
		{Event: "UserPromptSubmit", Command: cmd, Timeout: 10},
		{Event: "PreToolUse", Matcher: tools, Command: cmd, Timeout: 10},
		{Event: "PostToolUse", Matcher: tools, Command: cmd, Timeout: 10},
		{Event: "PostToolUseFailure", Matcher: tools, Command: cmd, Timeout: 10},
		{Event: "Stop", Command: cmd, Timeout: 10},
	})
	if err != nil {
		return nil, err
	}
	r := &agent.SetupResult{File: path, Added: added}
	if qwenHooksOff(path) {
		r.Steps = append(r.Steps, fmt.Sprintf(`Qwen Code runs no hooks while "disableAllHooks" is true in %s: set it to false, then restart Qwen Code.`, path))
	}
	return r, nil
}

// qwenHooksOff reports whether the settings file at path turns every hook
// off.
func qwenHooksOff(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	top, err := hookfile.DecodeObject(data)
	if err != nil {
		return false
	}
	raw, _ := hookfile.Get(top, "disableAllHooks")
	return string(raw) == "true"
}

// SessionEnv: Qwen Code 0.24 sets QWEN_CODE_SESSION_ID for its shell's
// commands and its MCP servers.
func (qwen) SessionEnv() []string { return []string{"QWEN_CODE_SESSION_ID"} }

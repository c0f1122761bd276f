package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// HookRun is one run of a hook command, as recorded by a recorder script
// (Recorder, Instrument).
type HookRun struct {
	// Args are the arguments the agent ran the command with (the hook
	// configurations name the event there where payloads do not).
	Args []string
	// Payload is the hook's stdin, byte for byte.
	Payload []byte
	Stdout  string
	Stderr  string
	// Exit is the command's exit status, -1 when it never finished (its
	// process was killed, or it is still running).
	Exit int
	// Start and End bracket the command, stdin already read; End is zero
	// when it never finished.
	Start, End time.Time
}

// Took is how long the command ran.
func (h HookRun) Took() time.Duration { return h.End.Sub(h.Start) }

// Event is the event the run was for: the payload's hook_event_name, else
// the last argument of the command (how Copilot CLI's hooks are told).
func (h HookRun) Event() string {
	var p struct {
		Name string `json:"hook_event_name"`
	}
	if json.Unmarshal(h.Payload, &p) == nil && p.Name != "" {
		return p.Name
	}
	if len(h.Args) > 0 {
		return h.Args[len(h.Args)-1]
	}
	return ""
}

// Field reads one top-level string field of the payload ("" if none).
func (h HookRun) Field(name string) string {
	var m map[string]json.RawMessage
	json.Unmarshal(h.Payload, &m)
	var s string
	json.Unmarshal(m[name], &s)
	return s
}

// recorderScript runs the real command with the hook's arguments and
// stdin, and keeps, per run, its stdin (.in), stdout, stderr, and a .run
// line "start-ns end-ns exit args…". Its own output is the command's.
const recorderScript = `#!/bin/sh
# Written by testkit/agents: records one hook run around the real command.
log=%s
n="$log/$(date +%%s%%N)-$$"
cat > "$n.in"
s=$(date +%%s%%N)
%s "$@" < "$n.in" > "$n.out" 2> "$n.err"
rc=$?
e=$(date +%%s%%N)
cat "$n.out"
cat "$n.err" >&2
printf '%%s %%s %%s' "$s" "$e" "$rc" > "$n.tmp"
for a in "$@"; do printf ' %%s' "$a" >> "$n.tmp"; done
mv "$n.tmp" "$n.run"
exit $rc
`

// Recorder writes an executable script at path that runs command (a
// shell word list, quoted as needed) with the arguments and stdin the
// agent gives it, and records the run for HookRuns.
func (e *Env) Recorder(path, command string) string {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	script := fmt.Sprintf(recorderScript, shellQuote(e.hookLog), command)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// Instrument moves the executable at path to path+".real" and puts a
// recorder of it in its place, so the hooks an installer wrote (with
// their trust, which names the command) run as they are, recorded.
func (e *Env) Instrument(path string) {
	e.t.Helper()
	real := path + ".real"
	if err := os.Rename(path, real); err != nil {
		e.t.Fatal(err)
	}
	e.Recorder(path, shellQuote(real))
}

// HookRuns returns the hook runs recorded so far, in the order they
// started.
func (e *Env) HookRuns() []HookRun {
	e.t.Helper()
	ents, err := os.ReadDir(e.hookLog)
	if err != nil {
		e.t.Fatal(err)
	}
	var runs []HookRun
	for _, ent := range ents {
		name, ok := strings.CutSuffix(ent.Name(), ".in")
		if !ok {
			continue
		}
		base := filepath.Join(e.hookLog, name)
		r := HookRun{Exit: -1}
		r.Payload, _ = os.ReadFile(base + ".in")
		if ns, err := strconv.ParseInt(strings.Split(name, "-")[0], 10, 64); err == nil {
			r.Start = time.Unix(0, ns)
		}
		if line, err := os.ReadFile(base + ".run"); err == nil {
			f := strings.Split(string(line), " ")
			if len(f) < 3 {
				e.t.Fatalf("hook record %s: %q", base, line)
			}
			s, _ := strconv.ParseInt(f[0], 10, 64)
			end, _ := strconv.ParseInt(f[1], 10, 64)
			r.Exit, _ = strconv.Atoi(f[2])
			r.Args, r.Start, r.End = f[3:], time.Unix(0, s), time.Unix(0, end)
		}
		out, _ := os.ReadFile(base + ".out")
		errOut, _ := os.ReadFile(base + ".err")
		r.Stdout, r.Stderr = string(out), string(errOut)
		runs = append(runs, r)
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Start.Before(runs[j].Start) })
	return runs
}

// HookEvents are the hook events of each agent a test can hook, in the
// agent's own names.
var HookEvents = map[Kind][]string{
	Claude:  {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"},
	Codex:   {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"},
	Gemini:  {"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"},
	Copilot: {"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop", "sessionEnd"},
	Qwen:    {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"},
	Droid:   {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"},
	Cline:   {"TaskStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "TaskComplete", "TaskResume"},
}

// SetHooks writes the agent's user-level hook configuration: for each
// event of HookEvents, the command command(event) (every tool for the tool
// events). It replaces any earlier hook configuration of the Env.
func (e *Env) SetHooks(command func(event string) string) {
	e.t.Helper()
	var path string
	var doc any
	switch e.Kind {
	case Claude, Codex, Gemini, Qwen, Droid:
		// One shape: {"hooks": {Event: [{"matcher"?, "hooks": [{"type": "command", "command", "timeout"}]}]}}.
		// The timeout is in seconds, except for Gemini CLI: milliseconds.
		timeout := 60
		if e.Kind == Gemini {
			timeout = 60_000
		}
		hooks := map[string]any{}
		for _, ev := range HookEvents[e.Kind] {
			group := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command(ev), "timeout": timeout}}}
			if strings.Contains(ev, "Tool") && e.Kind != Codex {
				group["matcher"] = "*"
			}
			hooks[ev] = []any{group}
		}
		switch e.Kind {
		case Claude:
			path, doc = filepath.Join(e.Home, ".claude", "settings.json"), map[string]any{"hooks": hooks}
		case Codex:
			path, doc = filepath.Join(e.Home, ".codex", "hooks.json"), map[string]any{"hooks": hooks}
		case Gemini:
			path = filepath.Join(e.Home, ".gemini", "settings.json")
			doc = mergeJSON(e.t, path, "hooks", hooks)
		case Qwen:
			path = filepath.Join(e.Home, ".qwen", "settings.json")
			doc = mergeJSON(e.t, path, "hooks", hooks)
		case Droid:
			path = filepath.Join(e.Home, ".factory", "settings.json")
			doc = mergeJSON(e.t, path, "hooks", hooks)
		}
	case Copilot:
		hooks := map[string]any{}
		for _, ev := range HookEvents[e.Kind] {
			hooks[ev] = []any{map[string]any{"type": "command", "bash": command(ev), "timeoutSec": 60}}
		}
		path, doc = filepath.Join(e.Home, ".copilot", "hooks", "testkit.json"), map[string]any{"version": 1, "hooks": hooks}
	case Cline:
		// An executable file per event, named after it.
		for _, ev := range HookEvents[e.Kind] {
			path := filepath.Join(e.Home, ".cline", "hooks", ev)
			writeFile(e.t, path, "#!/bin/sh\nexec "+command(ev)+"\n")
			if err := os.Chmod(path, 0o755); err != nil {
				e.t.Fatal(err)
			}
		}
		return
	}
	writeJSON(e.t, path, doc)
}

// HookRecorder is a SetHooks command that records every event and does
// nothing else: Recorder around `true`, with the event as its argument.
func (e *Env) HookRecorder() func(event string) string {
	rec := e.Recorder(filepath.Join(e.dir, "bin", "record-hook"), "true")
	return func(event string) string { return shellQuote(rec) + " " + event }
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

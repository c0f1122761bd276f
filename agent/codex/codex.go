package codex

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/hookfile"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Name is Codex's name on the command line and in the journal.
const Name = "codex"

// Agent is Codex.
var Agent agent.Agent = codex{}

// codex is OpenAI's Codex CLI. Its hook payloads (agent/testdata/codex)
// carry session_id, transcript_path (the rollout), cwd, hook_event_name and
// turn_id; UserPromptSubmit the prompt; Pre/PostToolUse tool_name,
// tool_input and tool_use_id. Files are written by apply_patch, whose
// input is the patch text ({"command": "*** Begin Patch…"}), or by the
// shell, named Bash in hooks. A conversation is forked by Codex itself
// (`codex app-server`, thread/fork through a turn), so the position is the
// id of the last turn to keep.
//
// Which session a process runs under (measured on Codex 0.169): the
// commands its shell tool runs get CODEX_THREAD_ID and CODEX_SESSION_ID,
// both the thread id its hooks call session_id (the same after `codex exec
// resume`), and CODEX_TOOL_CALL_ID; its MCP servers get only HOME, PATH,
// LANG, TERM and TMPDIR (and what the server's env_vars names), but every
// tools/call names the thread in its _meta ("threadId", and in
// "x-codex-turn-metadata" with the turn id): agents.SessionFromEnv and
// agents.SessionFromMeta read them. Its default sandbox (workspace-write)
// lets a shell command write only the workspace and the temporary folders
// and refuses it Unix sockets, so rewind-lsp run from Codex's shell reaches
// neither the store nor a running server; its MCP server, which Codex runs
// outside the sandbox, does.
type codex struct{}

func (codex) Name() string  { return Name }
func (codex) Title() string { return "Codex" }

var codexEvents = map[string]agent.EventKind{
	"SessionStart": agent.SessionStart, "UserPromptSubmit": agent.Prompt,
	"PreToolUse": agent.PreTool, "PostToolUse": agent.PostTool, "Stop": agent.Stop,
}

func (codex) Parse(data []byte, event string) (*agent.Event, error) {
	return agent.ParseHook(data, event, codexEvents)
}

func (codex) Writes(ev *agent.Event) ([]string, bool, bool) {
	switch ev.ToolName {
	case "Bash", "exec_command", "shell", "local_shell":
		return nil, true, true
	case "apply_patch":
		var in struct {
			Command string `json:"command"`
			Input   string `json:"input"`
		}
		json.Unmarshal(ev.ToolInput, &in)
		var paths []string
		for _, p := range agent.PatchPaths(cmp.Or(in.Command, in.Input)) {
			paths = append(paths, ev.Abs(p))
		}
		return paths, false, true
	}
	return agent.MCPTool(ev, "mcp__")
}

// Notice: UserPromptSubmit's additionalContext, which Codex gives the
// model as a developer message.
func (codex) Notice(text string) []byte { return agent.ContextJSON("UserPromptSubmit", text) }

// Position: at a prompt, the id of the session's last turn before it (the
// fork keeps the turns through it; "" at the session's first prompt); at a
// turn's end, the turn's own id. Both are read from the rollout (the turn
// ids its lines carry), with its length.
func (codex) Position(ev *agent.Event) (string, journal.ForkPoint, error) {
	if ev.Transcript == "" {
		return "", journal.ForkPoint{}, nil // nothing to record
	}
	if ev.Kind == agent.Stop {
		p, err := conv.ReadPoint(ev.Transcript, func([]byte) string { return "" })
		p.ForkUUID = ev.TurnID
		return ev.Transcript, p, err
	}
	p, err := conv.ReadPoint(ev.Transcript, func(line []byte) string {
		if id := rolloutTurn(line); id != ev.TurnID {
			return id
		}
		return ""
	})
	return ev.Transcript, p, err
}

// rolloutTurn is the turn id a rollout line carries, if any.
func rolloutTurn(line []byte) string {
	var l struct {
		Payload struct {
			TurnID      string `json:"turn_id"`
			Attribution struct {
				TurnID string `json:"turn_id"`
			} `json:"turn_attribution"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil {
		return ""
	}
	return cmp.Or(l.Payload.TurnID, l.Payload.Attribution.TurnID)
}

// Fork: Codex forks the thread through the last turn to keep, writing the
// new rollout itself; `codex resume <id>` continues it.
func (codex) Fork(r agent.ForkRequest) (*agent.Forked, error) {
	if r.Point.ForkUUID == "" {
		if r.End {
			return nil, agent.NoEnd
		}
		return nil, agent.FirstTurn
	}
	var res struct {
		Thread struct {
			ID   string `json:"id"`
			Path string `json:"path"`
		} `json:"thread"`
	}
	err := withAppServer(r.Dir, func(a *appServer) error {
		return a.call("thread/fork", map[string]any{"threadId": r.Session, "lastTurnId": r.Point.ForkUUID, "excludeTurns": true}, &res)
	})
	if err != nil {
		return nil, err
	}
	if res.Thread.ID == "" {
		return nil, fmt.Errorf("codex app-server thread/fork answered no thread")
	}
	return &agent.Forked{Session: res.Thread.ID, Transcript: res.Thread.Path, Resume: "codex resume " + res.Thread.ID}, nil
}

// codexHome is Codex's folder: $CODEX_HOME, else ~/.codex.
func codexHome() (string, error) { return agent.HomeDir("CODEX_HOME", ".codex") }

// Setup merges the hooks into the user's hooks.json (Codex skips a
// project's hooks in a folder it does not trust) and records Codex's trust
// in them through `codex app-server` (untrusted hooks are skipped
// silently). Codex must read its configuration before anything is
// written: a config.toml or hooks.json it cannot read is refused, naming
// Codex's complaint, and nothing changes. Without codex on PATH, or when
// Codex cannot record the trust, it writes hooks.json and says the one
// step left.
func (codex) Setup(o agent.SetupOptions) (*agent.SetupResult, error) {
	home, err := codexHome()
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	path := filepath.Join(home, "hooks.json")
	cmd := hookfile.Command(o, Name, "")
	ed, err := hookfile.Plan(path, Name, []hookfile.Spec{
		{Event: "SessionStart", Command: cmd, Timeout: 10},
		{Event: "UserPromptSubmit", Command: cmd, Timeout: 10},
		{Event: "PreToolUse", Matcher: "apply_patch|Bash|mcp__.*", Command: cmd, Timeout: 10},
		{Event: "PostToolUse", Matcher: "apply_patch|Bash|mcp__.*", Command: cmd, Timeout: 10},
		{Event: "Stop", Command: cmd, Timeout: 10},
	})
	if err != nil {
		return nil, err
	}
	r := &agent.SetupResult{File: path, Added: ed.Added}
	dir := o.Root
	if dir == "" {
		dir = home
	}
	written, n := false, 0
	err = withAppServer(dir, func(a *appServer) error {
		if _, err := codexHooks(a, dir); err != nil {
			return &codexUnreadable{err}
		}
		if err := ed.Write(); err != nil {
			return err
		}
		written = true
		var err error
		n, err = trustCodexHooks(a, dir)
		return err
	})
	var bad *codexUnreadable
	switch {
	case errors.As(err, &bad):
		return nil, fmt.Errorf("setup codex: %v; fix it, rewind-lsp changed nothing", bad.err)
	case !written:
		if werr := ed.Write(); werr != nil {
			return nil, werr
		}
	}
	switch {
	case err != nil:
		r.Steps = append(r.Steps, fmt.Sprintf("Codex runs a hook only once it is trusted, and %v. Run `rewind-lsp setup codex` again with codex on PATH, or start `codex` and trust rewind-lsp's hooks when it says hooks need review.", err))
	case n > 0:
		r.Notes = append(r.Notes, fmt.Sprintf("trusted rewind-lsp's %d hooks in Codex (%s)", n, filepath.Join(home, "config.toml")))
	}
	return r, nil
}

// codexUnreadable is Codex's complaint about its own configuration, as
// `hooks/list` reports it.
type codexUnreadable struct{ err error }

func (c *codexUnreadable) Error() string { return c.err.Error() }

// codexHook is one hook as `codex app-server` lists it.
type codexHook struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// codexHooks lists the hooks Codex would run in dir, with their trust; a
// configuration Codex cannot read (its config.toml, a hooks.json) is an
// error with Codex's own words.
func codexHooks(a *appServer, dir string) ([]codexHook, error) {
	var list struct {
		Data []struct {
			Hooks  []codexHook `json:"hooks"`
			Errors []struct {
				Message string `json:"message"`
			} `json:"errors"`
		} `json:"data"`
	}
	if err := a.call("hooks/list", map[string]any{"cwds": []string{dir}}, &list); err != nil {
		return nil, err
	}
	var hooks []codexHook
	var errs []string
	for _, d := range list.Data {
		hooks = append(hooks, d.Hooks...)
		for _, e := range d.Errors {
			errs = append(errs, e.Message)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("Codex cannot read its configuration: %s", strings.Join(errs, "; "))
	}
	return hooks, nil
}

// trustCodexHooks records Codex's trust in rewind-lsp's hooks that it
// does not trust yet (their current hash, as `hooks/list` reports it),
// leaving every other hook's trust alone, and returns how many it trusted.
func trustCodexHooks(a *appServer, dir string) (int, error) {
	hooks, err := codexHooks(a, dir)
	if err != nil {
		return 0, err
	}
	state := map[string]any{}
	for _, h := range hooks {
		if hookfile.IsOurHook(h.Command, Name) && h.TrustStatus != "trusted" && h.CurrentHash != "" {
			state[h.Key] = map[string]string{"trusted_hash": h.CurrentHash}
		}
	}
	if len(state) == 0 {
		return 0, nil
	}
	edit := map[string]any{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": state}
	return len(state), a.call("config/batchWrite", map[string]any{"edits": []any{edit}}, nil)
}

// ACPName: Codex runs behind codex-acp.
func (codex) ACPName() string { return "codex-acp" }

// ACPTranscript: its rollout
// ~/.codex/sessions/<y>/<m>/<d>/rollout-<time>-<id>.jsonl ($CODEX_HOME
// replaces ~/.codex), whose last turn id is the point a fork keeps.
func (codex) ACPTranscript(id string) string {
	return conv.ACPSessionFile(id, func(home, id string) string {
		dir := filepath.Join(home, ".codex")
		if d := os.Getenv("CODEX_HOME"); d != "" {
			dir = d
		}
		return filepath.Join(dir, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl")
	})
}

// SessionEnv: Codex 0.169 sets CODEX_THREAD_ID (and CODEX_SESSION_ID, the
// same id) for the commands its shell tool runs, not for its MCP servers.
func (codex) SessionEnv() []string { return []string{"CODEX_THREAD_ID", "CODEX_SESSION_ID"} }

// SessionFromMeta: Codex 0.169 names its thread (the session_id of its
// hooks) in every tools/call as "threadId", and again in
// "x-codex-turn-metadata"; it starts its MCP servers with no session in
// their environment, so this is how its calls are known.
func (codex) SessionFromMeta(meta map[string]any) string {
	if s, _ := meta["threadId"].(string); s != "" {
		return s
	}
	if turn, ok := meta["x-codex-turn-metadata"].(map[string]any); ok {
		if s, _ := turn["thread_id"].(string); s != "" {
			return s
		}
	}
	return ""
}

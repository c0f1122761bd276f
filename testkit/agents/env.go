package agents

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// Env is one agent installed in a fresh home folder and pointed at a
// scripted model: nothing it does reaches beyond 127.0.0.1 or the
// folders of the test.
type Env struct {
	Kind Kind
	// Cmd is the agent's command; Bin the folder of the agents' commands
	// (first on the agent's PATH, so the Node it was installed with runs).
	Cmd, Bin string
	// Home is the agent's HOME (its settings, sessions and hooks).
	Home  string
	Model *fakemodel.Server
	// ExtraEnv is added to the agent's environment ("K=V"), which is
	// otherwise made from scratch: PATH, HOME, XDG folders under Home, and
	// what the agent needs to use the scripted model.
	ExtraEnv []string
	// PathFirst are folders put on the agent's PATH before Bin (where the
	// rewind-lsp under test is, for hooks that name it by its name).
	PathFirst []string
	// TrustAllHooks runs Codex with --dangerously-bypass-hook-trust:
	// without it, Codex runs only hooks whose trust is recorded.
	TrustAllHooks bool
	// Timeout bounds one run of the agent (default 2 minutes).
	Timeout time.Duration

	t       testing.TB
	dir     string
	hookLog string
}

// Codex's model: one its catalogue knows (so it offers the model its
// apply_patch tool); the others take any name.
const codexModel = "gpt-5.5"

// New makes an Env for agent k talking to model, or skips or fails the
// test as Require does.
func New(t testing.TB, k Kind, model *fakemodel.Server) *Env {
	t.Helper()
	cmd, bin := Require(t, k)
	dir := t.TempDir()
	e := &Env{Kind: k, Cmd: cmd, Bin: bin, Home: filepath.Join(dir, "home"), Model: model,
		Timeout: 2 * time.Minute, t: t, dir: dir, hookLog: filepath.Join(dir, "hook-runs")}
	for _, d := range []string{e.Home, e.hookLog} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	switch k {
	case Codex, CodexACP:
		// A provider of our own, and nothing that looks up outside hosts.
		config := fmt.Sprintf(`model = %q
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"

[analytics]
enabled = false

[features]
apps = false
plugins = false
remote_plugin = false
`, codexModel, model.URL)
		if k == CodexACP {
			// codex-acp asks nothing of the editor with these, and its
			// workspace-write sandbox cannot make its helpers when HOME is
			// in the temporary folder.
			config = "sandbox_mode = \"danger-full-access\"\napproval_policy = \"never\"\n" + config
		}
		writeFile(t, filepath.Join(e.Home, ".codex", "config.toml"), config)
	case Gemini:
		writeJSON(t, filepath.Join(e.Home, ".gemini", "settings.json"),
			map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}})
	case Qwen:
		writeJSON(t, filepath.Join(e.Home, ".qwen", "settings.json"), map[string]any{
			"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}},
			"general":  map[string]any{"enableAutoUpdate": false}, // else its interface asks the npm registry
			"privacy":  map[string]any{"usageStatisticsEnabled": false},
			"ui":       map[string]any{"enableUserFeedback": false}})
	case Droid, Cline:
		e.configure()
	case Pi, Omp:
		piModels(t, e)
	case OpenCode, Kilo:
		openCodeHome(t, e)
	}
	return e
}

// Dir is a folder of the test for the caller's own files.
func (e *Env) Dir() string { return e.dir }

// environ is the agent's whole environment.
func (e *Env) environ() []string {
	path := strings.Join(append(append([]string(nil), e.PathFirst...), e.Bin, os.Getenv("PATH")), string(os.PathListSeparator))
	env := []string{
		"PATH=" + path,
		"HOME=" + e.Home,
		"XDG_CONFIG_HOME=" + filepath.Join(e.Home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(e.Home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(e.Home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(e.Home, ".local", "state"),
		"TMPDIR=" + os.TempDir(),
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
	}
	switch e.Kind {
	case Claude, ClaudeCodeACP:
		env = append(env, "ANTHROPIC_API_KEY=fake", "ANTHROPIC_BASE_URL="+e.Model.URL,
			"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	case Codex, CodexACP:
		env = append(env, "OPENAI_API_KEY=fake")
	case Gemini:
		env = append(env, "GEMINI_API_KEY=fake", "GOOGLE_GEMINI_BASE_URL="+e.Model.URL)
	case Copilot:
		env = append(env, "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+e.Model.URL+"/v1",
			"COPILOT_PROVIDER_API_KEY=fake", "COPILOT_MODEL=claude-sonnet-4.5")
	case Qwen:
		env = append(env, "OPENAI_API_KEY=fake", "OPENAI_BASE_URL="+e.Model.URL+"/v1", "QWEN_CODE_SUPPRESS_YOLO_WARNING=1")
	case Droid, Cline:
		env = append(env, "TERM=xterm-256color") // their terminal interfaces draw nothing on a dumb one
	case Pi, Omp:
		env = append(env, "PI_OFFLINE=1", "OMP_SKIP_SETUP=1")
	case OpenCode, Kilo:
		env = append(env, openCodeEnv(e)...)
	}
	return append(env, e.ExtraEnv...)
}

// args is the command line of one non-interactive prompt: a new session,
// or the given one resumed.
func (e *Env) args(session, prompt string) []string {
	switch e.Kind {
	case Claude:
		a := []string{"-p", "--output-format", "json", "--allowedTools", "Write,Edit,Bash,Read"}
		if session != "" {
			a = append(a, "--resume", session)
		}
		return append(a, "--", prompt)
	case Codex:
		a := []string{"exec"}
		if session != "" {
			a = append(a, "resume", session)
		}
		a = append(a, "--skip-git-repo-check", "--json")
		if e.TrustAllHooks {
			a = append(a, "--dangerously-bypass-hook-trust")
		}
		if session == "" {
			a = append(a, "--sandbox", "workspace-write") // `exec resume` keeps the session's
		} else {
			a = append(a, "-c", `sandbox_mode="workspace-write"`)
		}
		return append(a, "--", prompt)
	case Gemini:
		a := []string{"--approval-mode", "yolo", "--skip-trust", "-o", "json"}
		if session != "" {
			a = append(a, "--resume", session)
		}
		return append(a, "-p", prompt)
	case Copilot:
		a := []string{"--allow-all-tools", "--allow-all-paths", "--no-auto-update", "--output-format", "json"}
		if session != "" {
			a = append(a, "--resume="+session)
		}
		return append(a, "-p", prompt)
	case Qwen:
		a := []string{"--auth-type", "openai", "-m", "gpt-5", "--yolo", "--max-session-turns", "20", "-o", "json"}
		if session != "" {
			a = append(a, "--resume", session)
		}
		return append(a, prompt) // after "--" it is not read as the prompt
	case Droid, Cline:
		return e.moreArgs(session, prompt)
	case Pi, Omp:
		return piArgs(e.Kind, session, prompt)
	case OpenCode, Kilo:
		return openCodeArgs(session, prompt)
	}
	panic("unknown agent " + e.Kind)
}

// Result is how one run of the agent ended.
type Result struct {
	Exit           int
	Stdout, Stderr string
	// Session is the session id the agent reported on stdout.
	Session string
	Took    time.Duration
}

// Prompt runs one prompt in a new session in folder dir, and fails the
// test unless the agent exits 0.
func (e *Env) Prompt(dir, prompt string) Result {
	e.t.Helper()
	return e.must(e.Run(dir, "", prompt))
}

// Resume runs one prompt in session, as Prompt does.
func (e *Env) Resume(dir, session, prompt string) Result {
	e.t.Helper()
	return e.must(e.Run(dir, session, prompt))
}

func (e *Env) must(r Result) Result {
	e.t.Helper()
	if r.Exit != 0 {
		e.t.Fatalf("%s exited %d after %v\nstdout:\n%s\nstderr:\n%s", e.Kind, r.Exit, r.Took, tail(r.Stdout), tail(r.Stderr))
	}
	return r
}

// Run runs the agent once, non-interactively, in dir: a new session when
// session is "", else that session resumed. Exit is -1 when it had to be
// killed after Timeout.
func (e *Env) Run(dir, session, prompt string) Result {
	e.t.Helper()
	r := e.Exec(dir, e.Cmd, e.args(session, prompt)...)
	r.Session = sessionOf(e.Kind, r.Stdout)
	return r
}

// Exec runs any command in dir with the agent's environment (its home,
// its PATH): what a person does in the agent's terminal, such as
// `rewind-lsp setup`. Exit is -1 when it had to be killed after Timeout.
func (e *Env) Exec(dir, name string, args ...string) Result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, e.environ()
	if e.Kind == OpenCode || e.Kind == Kilo {
		cmd.Env = append(cmd.Env, "PWD="+dir) // they take their project from it
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &stdout, &stderr, nil
	// The agent and whatever it starts (hooks, shells) are one group, ended
	// together on timeout.
	groupKill(cmd)
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := Result{Stdout: stdout.String(), Stderr: stderr.String(), Took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.Exit = -1
	case errors.As(err, &exit):
		r.Exit = exit.ExitCode()
	case err != nil:
		e.t.Fatalf("run %s: %v", name, err)
	}
	return r
}

// sessionOf finds the session id in an agent's JSON output.
func sessionOf(k Kind, stdout string) string {
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 64<<20)
	var id string
	if k == Pi || k == Omp {
		return piSession(stdout)
	}
	if k == Gemini { // one pretty-printed object
		var v struct {
			SessionID string `json:"session_id"`
		}
		json.Unmarshal([]byte(stdout), &v)
		return v.SessionID
	}
	if k == Qwen { // one array of messages, each naming the session
		var v []struct {
			SessionID string `json:"session_id"`
		}
		json.Unmarshal([]byte(stdout), &v)
		for _, m := range v {
			if m.SessionID != "" {
				id = m.SessionID
			}
		}
		return id
	}
	for sc.Scan() {
		var v struct {
			Type       string `json:"type"`
			SessionID  string `json:"session_id"` // Claude Code's result
			ThreadID   string `json:"thread_id"`  // Codex's thread.started
			Session    string `json:"sessionId"`  // Copilot CLI's result
			SessionID2 string `json:"sessionID"`  // opencode's and Kilo's events
		}
		if json.Unmarshal(sc.Bytes(), &v) != nil {
			continue
		}
		for _, s := range []string{v.SessionID, v.ThreadID, v.Session, v.SessionID2} {
			if s != "" {
				id = s
			}
		}
	}
	return id
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(data)+"\n")
}

// mergeJSON reads the JSON object at path (if any) and sets key to v.
func mergeJSON(t testing.TB, path, key string, v any) map[string]any {
	t.Helper()
	doc := map[string]any{}
	if data, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	doc[key] = v
	return doc
}

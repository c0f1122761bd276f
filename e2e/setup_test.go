package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// settingsHooks decodes the hooks of a Claude Code settings file: event →
// commands, in order.
func settingsHooks(t *testing.T, path string) (map[string][]string, map[string]json.RawMessage) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("settings are not JSON: %v\n%s", err, data)
	}
	var all map[string]json.RawMessage
	json.Unmarshal(data, &all)
	out := map[string][]string{}
	for ev, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				out[ev] = append(out[ev], g.Matcher+"|"+h.Type+"|"+h.Command)
			}
		}
	}
	return out, all
}

// TestSetupClaudeCode: setup merges the five hooks into the project's
// settings, keeps every other key and hook (and their order), changes
// nothing the second time, and never overwrites a file that is not JSON.
func TestSetupClaudeCode(t *testing.T) {
	w := newWS(t)
	settings := filepath.Join(w.Root, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	orig := `{
  "model": "opus",
  "env": {"MAX_THINKING_TOKENS": "8000", "RATIO": 1.50},
  "permissions": {"allow": ["Bash(go test:*)"], "deny": []},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send 'done \u00e9'"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 30}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "say hi"}]}]
  },
  "statusLine": {"type": "command", "command": "~/.claude/status.sh"}
}
`
	os.WriteFile(settings, []byte(orig), 0o600)
	r := w.ok("setup", "claude-code")
	if !strings.Contains(r.stdout, settings) {
		t.Errorf("setup does not name the file: %s", r.stdout)
	}
	hooks, all := settingsHooks(t, settings)
	cmd := "|command|" + testkit.Binary(t) + " hook claude-code" // the test binary is not on PATH
	want := map[string][]string{
		"SessionStart":     {cmd},
		"UserPromptSubmit": {cmd},
		"PreToolUse":       {"Bash|command|./guard.sh", "Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__.*" + cmd},
		"PostToolUse":      {"Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__.*" + cmd},
		"Stop":             {"|command|notify-send 'done é'", cmd},
		"Notification":     {"|command|say hi"},
	}
	for ev, w := range want {
		if strings.Join(hooks[ev], "\n") != strings.Join(w, "\n") {
			t.Errorf("%s hooks:\n got %q\nwant %q", ev, hooks[ev], w)
		}
	}
	if len(hooks) != len(want) {
		t.Errorf("events %v", hooks)
	}
	// Other settings kept byte for byte (numbers as written), in order.
	if string(all["model"]) != `"opus"` || !bytes.Contains(all["env"], []byte(`1.50`)) || !bytes.Contains(all["permissions"], []byte(`go test:*`)) ||
		!bytes.Contains(all["statusLine"], []byte("status.sh")) {
		t.Errorf("other settings changed: %s", all)
	}
	data, _ := os.ReadFile(settings)
	if i, j := bytes.Index(data, []byte(`"model"`)), bytes.Index(data, []byte(`"statusLine"`)); i < 0 || j < i {
		t.Errorf("key order changed:\n%s", data)
	}
	if bytes.Contains(data, []byte(`"timeout": 30`)) == false {
		t.Errorf("a hook's other fields were lost:\n%s", data)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o600 && runtime.GOOS != "windows" {
		t.Errorf("mode %v, want the file's 0600", fi.Mode())
	}
	// Twice: nothing changes.
	r = w.ok("setup", "claude-code")
	if again, _ := os.ReadFile(settings); !bytes.Equal(again, data) || !strings.Contains(r.stdout, "nothing changed") {
		t.Fatalf("second setup changed the file or said so: %s", r.stdout)
	}

	// A file that is not JSON: an error naming it, the file untouched.
	bad := []byte("{\n  \"model\": \"opus\",\n  // a comment\n}\n")
	os.WriteFile(settings, bad, 0o644)
	r = w.run("setup", "claude-code")
	if r.code != 1 || !strings.Contains(r.stderr, settings) || !strings.Contains(r.stderr, "changed nothing") ||
		!strings.Contains(r.stderr, "it has comments") {
		t.Fatalf("setup on a file with comments: exit %d %s", r.code, r.stderr)
	}
	if now, _ := os.ReadFile(settings); !bytes.Equal(now, bad) {
		t.Fatal("a broken settings file was overwritten")
	}
	os.WriteFile(settings, []byte(`{"hooks": ["not", "an object"]}`), 0o644)
	if r := w.run("setup", "claude-code"); r.code != 1 || !strings.Contains(r.stderr, `"hooks" is not a JSON object`) {
		t.Fatalf("hooks not an object: exit %d %s", r.code, r.stderr)
	}
	if r := w.run("setup", "cursor"); r.code != 2 {
		t.Fatalf("setup of an unknown agent: exit %d", r.code)
	}
}

// TestSetupClaudeCodeUser: --user writes ~/.claude/settings.json, creating
// it, and recognizes rewind-lsp's hook by any path to the binary.
func TestSetupClaudeCodeUser(t *testing.T) {
	w := newWS(t)
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/opt/bin/rewind-lsp hook claude-code"}]}]}}`), 0o644)
	c := w.Command([]string{"--root", w.Root, "--store", w.Store, "setup", "claude-code", "--user"}, "HOME="+home, "USERPROFILE="+home, "PATH=/usr/bin:/bin")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("setup --user: %v %s", err, out)
	}
	hooks, _ := settingsHooks(t, settings)
	if len(hooks["Stop"]) != 1 || len(hooks["UserPromptSubmit"]) != 1 || len(hooks) != 5 {
		t.Fatalf("user hooks: %v", hooks)
	}
	if _, err := os.Stat(filepath.Join(w.Root, ".claude")); err == nil {
		t.Fatal("--user wrote the project's settings")
	}
	// With rewind-lsp on PATH, the hook runs it by name.
	os.Remove(settings)
	c = w.Command([]string{"--root", w.Root, "setup", "claude-code", "--user"}, "HOME="+home, "USERPROFILE="+home, "PATH="+filepath.Dir(testkit.Binary(t))+string(os.PathListSeparator)+"/usr/bin")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("setup --user: %v %s", err, out)
	}
	hooks, _ = settingsHooks(t, settings)
	if hooks["Stop"][0] != "|command|rewind-lsp hook claude-code" {
		t.Fatalf("hook command with rewind-lsp on PATH: %q", hooks["Stop"])
	}
}

// TestSetupOtherAgents: setup codex, gemini and copilot write the user's
// hook files (in CODEX_HOME, GEMINI_CLI_HOME, COPILOT_HOME when set),
// keep what else is there, change nothing the second time; Codex's trust
// cannot be recorded without codex on PATH, and setup says the one step
// left. (The real agents running these hooks: testkit/agents.)
func TestSetupOtherAgents(t *testing.T) {
	w := newWS(t)
	home := t.TempDir()
	codexHome := filepath.Join(t.TempDir(), "codex")
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "CODEX_HOME=" + codexHome, "GEMINI_CLI_HOME=", "COPILOT_HOME="}
	setup := func(agent string) string {
		t.Helper()
		out, err := w.Command([]string{"--root", w.Root, "--store", w.Store, "setup", agent, "--user"}, env...).CombinedOutput()
		if err != nil {
			t.Fatalf("setup %s: %v\n%s", agent, err, out)
		}
		return string(out)
	}
	cmd := testkit.Binary(t) + " hook"

	out := setup("codex")
	hooksFile := filepath.Join(codexHome, "hooks.json")
	hooks, _ := settingsHooks(t, hooksFile)
	want := map[string][]string{
		"SessionStart": {"|command|" + cmd + " codex"}, "UserPromptSubmit": {"|command|" + cmd + " codex"},
		"PreToolUse": {"apply_patch|Bash|mcp__.*|command|" + cmd + " codex"}, "PostToolUse": {"apply_patch|Bash|mcp__.*|command|" + cmd + " codex"},
		"Stop": {"|command|" + cmd + " codex"},
	}
	for ev, w := range want {
		if strings.Join(hooks[ev], "\n") != strings.Join(w, "\n") {
			t.Errorf("codex %s hooks: %q, want %q", ev, hooks[ev], w)
		}
	}
	if len(hooks) != len(want) || !strings.Contains(out, "one more step") || !strings.Contains(out, "codex is not on PATH") {
		t.Errorf("setup codex without codex: %v\n%s", hooks, out)
	}
	data, _ := os.ReadFile(hooksFile)
	if out := setup("codex"); !strings.Contains(out, "nothing changed") {
		t.Errorf("second setup codex: %s", out)
	}
	if again, _ := os.ReadFile(hooksFile); !bytes.Equal(again, data) {
		t.Error("second setup codex changed hooks.json")
	}

	settings := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte(`{"security": {"auth": {"selectedType": "gemini-api-key"}}, "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "notify"}]}]}}`), 0o600)
	setup("gemini")
	var g struct {
		Security struct{ Auth struct{ SelectedType string } }
		Hooks    map[string][]struct {
			Matcher string
			Hooks   []struct {
				Command string
				Timeout int
			}
		}
	}
	data, _ = os.ReadFile(settings)
	json.Unmarshal(data, &g)
	after := g.Hooks["AfterAgent"]
	if g.Security.Auth.SelectedType != "gemini-api-key" || len(g.Hooks) != 5 || len(after) != 2 || after[0].Hooks[0].Command != "notify" ||
		after[1].Hooks[0].Command != cmd+" gemini" || after[1].Hooks[0].Timeout != 10000 || g.Hooks["AfterTool"][0].Matcher != "write_file|replace|run_shell_command|mcp_.*" {
		t.Errorf("gemini settings:\n%s", data)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o600 && runtime.GOOS != "windows" {
		t.Errorf("gemini settings mode %v", fi.Mode())
	}
	if out := setup("gemini"); !strings.Contains(out, "nothing changed") {
		t.Errorf("second setup gemini: %s", out)
	}
	if again, _ := os.ReadFile(settings); !bytes.Equal(again, data) {
		t.Error("second setup gemini changed settings.json")
	}

	setup("copilot")
	var c struct {
		Version int
		Hooks   map[string][]struct {
			Type, Bash string
			TimeoutSec int
		}
	}
	cfile := filepath.Join(home, ".copilot", "hooks", "rewind-lsp.json")
	data, _ = os.ReadFile(cfile)
	json.Unmarshal(data, &c)
	for _, ev := range []string{"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop"} {
		if h := c.Hooks[ev]; c.Version != 1 || len(h) != 1 || h[0].Type != "command" || h[0].Bash != cmd+" copilot "+ev || h[0].TimeoutSec != 10 {
			t.Errorf("copilot %s hook: %+v", ev, h)
		}
	}
	if out := setup("copilot"); !strings.Contains(out, "nothing changed") {
		t.Errorf("second setup copilot: %s", out)
	}
	if again, _ := os.ReadFile(cfile); !bytes.Equal(again, data) {
		t.Error("second setup copilot changed its hooks file")
	}
}

// TestSetupOtherAgentsRefuseWhatTheyCannotRead: the hook file setup would
// change (Codex's hooks.json, Gemini CLI's settings.json, Copilot CLI's
// hooks/rewind-lsp.json) does not parse, or has "hooks" of another shape:
// setup exits 1 naming the file and the problem, and leaves it as it was.
func TestSetupOtherAgentsRefuseWhatTheyCannotRead(t *testing.T) {
	w := newWS(t)
	home := t.TempDir()
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "CODEX_HOME=", "GEMINI_CLI_HOME=", "COPILOT_HOME="}
	files := map[string]string{
		"codex":   filepath.Join(home, ".codex", "hooks.json"),
		"gemini":  filepath.Join(home, ".gemini", "settings.json"),
		"copilot": filepath.Join(home, ".copilot", "hooks", "rewind-lsp.json"),
	}
	bad := map[string][]string{
		"codex":   {`{"hooks": {"Stop": [`, `{"hooks": {"Stop": {"command": "notify"}}}`},
		"gemini":  {`{"ui": {"theme": "dark"},}`, `{"hooks": ["notify"]}`},
		"copilot": {"version: 1\n", `{"version": 1, "hooks": `},
	}
	for agent, contents := range bad {
		for _, content := range contents {
			path := files[agent]
			os.MkdirAll(filepath.Dir(path), 0o700)
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := w.Command([]string{"--root", w.Root, "--store", w.Store, "setup", agent, "--user"}, env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), path) || !strings.Contains(stderr.String(), "changed nothing") {
				t.Errorf("setup %s with %q: exit %d (%v)\nstdout: %s\nstderr: %s", agent, content, code, err, &stdout, &stderr)
			}
			if now, _ := os.ReadFile(path); string(now) != content {
				t.Errorf("setup %s changed %s: %q", agent, path, now)
			}
		}
	}
}

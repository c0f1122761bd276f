package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestSetupQwen: setup qwen writes the user's ~/.qwen/settings.json (in
// QWEN_HOME when set; with or without --user: Qwen Code runs a project's
// hooks only in a folder it trusts), keeps every other setting and hook,
// changes nothing the second time, brings an older install's tool matcher
// up to date, names the one step left when the file turns every hook off
// (disableAllHooks), and refuses a file it cannot read, naming it and
// changing nothing. (The real Qwen Code running these hooks: testkit/agents.)
func TestSetupQwen(t *testing.T) {
	w := newWS(t)
	home := t.TempDir()
	qwenHome := filepath.Join(t.TempDir(), "qwen")
	setup := func(env ...string) (string, error) {
		t.Helper()
		args := []string{"--root", w.Root, "--store", w.Store, "setup", "qwen"}
		out, err := w.Command(args, append([]string{"HOME=" + home, "PATH=/usr/bin:/bin"}, env...)...).CombinedOutput()
		return string(out), err
	}
	cmd := testkit.Binary(t) + " hook qwen"
	const tools = "write_file|edit|notebook_edit|run_shell_command|monitor|exec|mcp__.*"

	settings := filepath.Join(home, ".qwen", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte(`{"security": {"auth": {"selectedType": "openai"}}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}`), 0o600)
	if out, err := setup("QWEN_HOME="); err != nil || !strings.Contains(out, settings) || strings.Contains(out, "one more step") {
		t.Fatalf("setup qwen (a user's hooks run in every folder: no step left): %v\n%s", err, out)
	}
	hooks, all := settingsHooks(t, settings)
	want := map[string][]string{
		"SessionStart": {"|command|" + cmd}, "UserPromptSubmit": {"|command|" + cmd},
		"PreToolUse": {tools + "|command|" + cmd}, "PostToolUse": {tools + "|command|" + cmd}, "PostToolUseFailure": {tools + "|command|" + cmd},
		"Stop": {"|command|notify", "|command|" + cmd},
	}
	for ev, wnt := range want {
		if strings.Join(hooks[ev], "\n") != strings.Join(wnt, "\n") {
			t.Errorf("qwen %s hooks: %q, want %q", ev, hooks[ev], wnt)
		}
	}
	var security bytes.Buffer
	json.Compact(&security, all["security"])
	if len(hooks) != len(want) || security.String() != `{"auth":{"selectedType":"openai"}}` {
		t.Errorf("qwen settings: %v %s", hooks, all["security"])
	}
	var timeouts struct {
		Hooks map[string][]struct{ Hooks []struct{ Timeout int } }
	}
	data, _ := os.ReadFile(settings)
	json.Unmarshal(data, &timeouts)
	if to := timeouts.Hooks["UserPromptSubmit"][0].Hooks[0].Timeout; to != 10 {
		t.Errorf("the prompt hook's timeout is %d, want 10 (seconds)", to)
	}
	if out, _ := setup("QWEN_HOME="); !strings.Contains(out, "nothing changed") {
		t.Errorf("second setup qwen: %s", out)
	}
	if again, _ := os.ReadFile(settings); !bytes.Equal(again, data) {
		t.Error("second setup qwen changed settings.json")
	}

	// An older install's tool groups (another matcher) are brought up to date.
	os.WriteFile(settings, bytes.ReplaceAll(data, []byte(tools), []byte("write_file|edit|run_shell_command")), 0o600)
	if out, err := setup("QWEN_HOME="); err != nil || !strings.Contains(out, "PreToolUse (updated)") {
		t.Errorf("setup over an older install: %v\n%s", err, out)
	}
	if again, _ := os.ReadFile(settings); !bytes.Equal(again, data) {
		t.Errorf("setup over an older install:\n%s\nwant\n%s", again, data)
	}

	// QWEN_HOME is the folder itself.
	if out, err := setup("QWEN_HOME=" + qwenHome); err != nil || !strings.Contains(out, filepath.Join(qwenHome, "settings.json")) {
		t.Errorf("setup qwen with QWEN_HOME: %v\n%s", err, out)
	}

	// Hooks turned off: the hooks are added, the setting left to the
	// person, and the step named.
	os.WriteFile(settings, []byte(`{"disableAllHooks": true}`), 0o600)
	out, err := setup("QWEN_HOME=")
	if err != nil || !strings.Contains(out, "one more step: ") || !strings.Contains(out, `"disableAllHooks" is true in `+settings) {
		t.Errorf("setup qwen with every hook off: %v\n%s", err, out)
	}
	if hooks, all := settingsHooks(t, settings); string(all["disableAllHooks"]) != "true" || len(hooks) != len(want) {
		t.Errorf("setup qwen with every hook off: disableAllHooks %s, hooks %v", all["disableAllHooks"], hooks)
	}

	for _, bad := range []string{`{"ui": {"theme": "dark"},}`, `{"hooks": ["notify"]}`, `{"hooks": {"Stop": {"command": "notify"}}}`} {
		os.WriteFile(settings, []byte(bad), 0o600)
		out, err := setup("QWEN_HOME=")
		if err == nil || !strings.Contains(out, settings) || !strings.Contains(out, "changed nothing") {
			t.Errorf("setup qwen with %q: %v\n%s", bad, err, out)
		}
		if now, _ := os.ReadFile(settings); string(now) != bad {
			t.Errorf("setup qwen changed %s: %q", settings, now)
		}
	}
}

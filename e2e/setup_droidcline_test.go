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

// TestSetupDroidAndCline: setup droid merges its hooks into the user's
// ~/.factory/settings.json (keeping the models and hooks there; every
// tool, since any tool call may open a prompt's turn; droid's own
// hooksDisabled kept, and named as the step left; a file it cannot parse
// refused and left as it was), setup cline writes
// one executable file per event in ~/.cline/hooks (CLINE_DIR replaces
// ~/.cline); both change nothing the second time, and setup cline leaves
// a hook file that is not its own alone, saying so. (The real agents
// running these hooks: testkit/agents droid_test.go, cline_test.go.)
func TestSetupDroidAndCline(t *testing.T) {
	w := newWS(t)
	home := t.TempDir()
	clineDir := filepath.Join(t.TempDir(), "cline")
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "CLINE_DIR=" + clineDir}
	setup := func(agent string) (string, error) {
		t.Helper()
		out, err := w.Command([]string{"--root", w.Root, "--store", w.Store, "setup", agent, "--user"}, env...).CombinedOutput()
		return string(out), err
	}
	cmd := testkit.Binary(t) + " hook"

	settings := filepath.Join(home, ".factory", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte(`{"customModels": [{"model": "m"}], "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}`), 0o600)
	if out, err := setup("droid"); err != nil {
		t.Fatalf("setup droid: %v\n%s", err, out)
	}
	hooks, all := settingsHooks(t, settings)
	want := map[string][]string{
		"SessionStart": {"|command|" + cmd + " droid"}, "UserPromptSubmit": {"|command|" + cmd + " droid"},
		"PreToolUse": {"*|command|" + cmd + " droid"}, "PostToolUse": {"*|command|" + cmd + " droid"},
		"Stop": {"|command|notify", "|command|" + cmd + " droid"},
	}
	for ev, w := range want {
		if strings.Join(hooks[ev], "\n") != strings.Join(w, "\n") {
			t.Errorf("droid %s hooks: %q, want %q", ev, hooks[ev], w)
		}
	}
	var models []map[string]string
	json.Unmarshal(all["customModels"], &models)
	if len(hooks) != len(want) || len(models) != 1 || models[0]["model"] != "m" {
		t.Errorf("droid settings: %v %s", hooks, all["customModels"])
	}
	data, _ := os.ReadFile(settings)
	if out, _ := setup("droid"); !strings.Contains(out, "nothing changed") {
		t.Errorf("second setup droid: %s", out)
	}
	if again, _ := os.ReadFile(settings); !bytes.Equal(again, data) {
		t.Error("second setup droid changed settings.json")
	}
	// Hooks turned off in droid's /settings stay off, and setup says so.
	off := `{"hooks": {"hooksDisabled": true, "showHookOutput": false}}`
	os.WriteFile(settings, []byte(off), 0o600)
	if out, err := setup("droid"); err != nil || !strings.Contains(out, `one more step: droid runs no hook while its hooks are disabled ("hooksDisabled": true in `+settings) {
		t.Errorf("setup droid with its hooks disabled: %v\n%s", err, out)
	}
	var kept struct {
		Hooks struct {
			HooksDisabled  bool  `json:"hooksDisabled"`
			ShowHookOutput *bool `json:"showHookOutput"`
			PreToolUse     []any
		} `json:"hooks"`
	}
	data, _ = os.ReadFile(settings)
	if err := json.Unmarshal(data, &kept); err != nil || !kept.Hooks.HooksDisabled || kept.Hooks.ShowHookOutput == nil || *kept.Hooks.ShowHookOutput || len(kept.Hooks.PreToolUse) != 1 {
		t.Errorf("setup droid did not keep droid's own hook settings beside its hooks: %v\n%s", err, data)
	}
	// A file it cannot parse is refused and left as it was.
	os.WriteFile(settings, []byte(`{"hooks": {`), 0o600)
	if out, err := setup("droid"); err == nil || !strings.Contains(out, settings) || !strings.Contains(out, "changed nothing") {
		t.Errorf("setup droid over a broken settings.json: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(settings); string(data) != `{"hooks": {` {
		t.Errorf("setup droid changed a settings.json it cannot parse: %s", data)
	}

	if out, err := setup("cline"); err != nil || !strings.Contains(out, "TaskStart, TaskResume, PreToolUse, PostToolUse, TaskComplete, TaskCancel") {
		t.Fatalf("setup cline: %v\n%s", err, out)
	}
	for _, ev := range []string{"TaskStart", "TaskResume", "PreToolUse", "PostToolUse", "TaskComplete", "TaskCancel"} {
		path := filepath.Join(clineDir, "hooks", ev)
		script, err := os.ReadFile(path)
		if err != nil || !strings.HasPrefix(string(script), "#!/bin/sh\n") || !strings.HasSuffix(string(script), "\nexec "+cmd+" cline "+ev+"\n") {
			t.Errorf("cline %s hook: %v\n%s", ev, err, script)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm()&0o111 == 0 && runtime.GOOS != "windows" {
			t.Errorf("cline %s hook is not executable: %v", ev, fi.Mode())
		}
	}
	if out, _ := setup("cline"); !strings.Contains(out, "nothing changed") {
		t.Errorf("second setup cline: %s", out)
	}
	theirs := filepath.Join(clineDir, "hooks", "TaskComplete")
	os.WriteFile(theirs, []byte("#!/bin/sh\nnotify-send done\n"), 0o755)
	os.Remove(filepath.Join(clineDir, "hooks", "TaskStart"))
	out, err := setup("cline")
	if err == nil || !strings.Contains(out, theirs) || !strings.Contains(out, "changed nothing") {
		t.Errorf("setup cline over someone else's hook: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(clineDir, "hooks", "TaskStart")); err == nil {
		t.Error("setup cline wrote some hooks though it refused")
	}
	if script, _ := os.ReadFile(theirs); string(script) != "#!/bin/sh\nnotify-send done\n" {
		t.Errorf("setup cline changed someone else's hook: %s", script)
	}
}

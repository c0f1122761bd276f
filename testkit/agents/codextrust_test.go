package agents

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// TestSetupCodexKeepsOtherHooksTrusted: a person's Codex already runs
// another tool's hooks, trusted (hooks.json and the trust Codex records in
// config.toml). `rewind-lsp setup codex --user`, with the real codex on
// PATH, adds rewind-lsp's hooks and their trust; then `codex exec`,
// without the flag that bypasses trust, runs the other tool's hooks and
// rewind-lsp's (its turn is in the log); Codex lists every hook trusted;
// and setup run again changes neither file.
func TestSetupCodexKeepsOtherHooksTrusted(t *testing.T) {
	model := startModel(t)
	e := New(t, Codex, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)

	// The other tool: a hook at the prompt and one after shell calls.
	other := e.Recorder(filepath.Join(e.Dir(), "bin", "other-tool"), "true")
	hooksFile := filepath.Join(e.Home, ".codex", "hooks.json")
	writeFile(t, hooksFile, fmt.Sprintf(`{
  "hooks": {
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "%[1]s prompt", "timeout": 5}]}],
    "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "%[1]s shell", "timeout": 5}]}]
  }
}
`, other))
	configFile := filepath.Join(e.Home, ".codex", "config.toml")
	before := e.codexHooks(ws)
	if len(before) != 2 {
		t.Fatalf("codex lists %d hooks before setup, want the other tool's 2: %+v", len(before), before)
	}
	trust := "\n"
	for _, h := range before {
		if h.TrustStatus == "trusted" {
			t.Fatalf("the other tool's hook is trusted before anyone trusted it: %+v", h)
		}
		trust += fmt.Sprintf("[hooks.state.%q]\ntrusted_hash = %q\n\n", h.Key, h.CurrentHash)
	}
	config, _ := os.ReadFile(configFile)
	writeFile(t, configFile, string(config)+trust)
	for _, h := range e.codexHooks(ws) {
		if h.TrustStatus != "trusted" {
			t.Fatalf("the other tool's trust, as config.toml records it, is not taken: %+v", h)
		}
	}

	r := e.Exec(ws, rl, "setup", "codex", "--user")
	if r.Exit != 0 || strings.Contains(r.Stdout, "one more step") || !strings.Contains(r.Stdout, "trusted rewind-lsp's 5 hooks") {
		t.Fatalf("setup codex: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	hooks := e.codexHooks(ws)
	ours := 0
	for _, h := range hooks {
		if h.TrustStatus != "trusted" {
			t.Errorf("after setup, codex does not trust %s (%s): %s", h.Key, h.Command, h.TrustStatus)
		}
		if strings.Contains(h.Command, "rewind-lsp hook codex") {
			ours++
		}
	}
	if ours != 5 || len(hooks) != 7 {
		t.Errorf("after setup codex lists %d hooks, %d of them rewind-lsp's; want 7 and 5: %+v", len(hooks), ours, hooks)
	}
	for _, h := range before {
		if i := slices.IndexFunc(hooks, func(g codexHook) bool { return g.Key == h.Key }); i < 0 || hooks[i].Command != h.Command {
			t.Errorf("the other tool's hook %s (%s) moved or changed", h.Key, h.Command)
		}
	}

	// Again: nothing changes.
	hooksData, _ := os.ReadFile(hooksFile)
	configData, _ := os.ReadFile(configFile)
	r = e.Exec(ws, rl, "setup", "codex", "--user")
	if r.Exit != 0 || !strings.Contains(r.Stdout, "nothing changed") || strings.Contains(r.Stdout, "trusted") {
		t.Errorf("setup codex again: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	if now, _ := os.ReadFile(hooksFile); !bytes.Equal(now, hooksData) {
		t.Errorf("setup codex again changed hooks.json:\n%s", now)
	}
	if now, _ := os.ReadFile(configFile); !bytes.Equal(now, configData) {
		t.Errorf("setup codex again changed config.toml:\n%s", now)
	}

	// Codex runs both tools' hooks, trusted, with no bypass.
	e.Instrument(rl)
	const prompt = "Write a.txt from the shell."
	model.On(prompt, fakemodel.Tools(Shell(Codex, "echo shell > a.txt")), fakemodel.Say("Written."))
	e.TrustAllHooks = false
	s := e.Prompt(ws, prompt).Session
	wantFiles(t, ws, map[string]string{"a.txt": "shell\n"})
	var otherRuns, ourRuns []string
	for _, h := range e.HookRuns() {
		switch {
		case len(h.Args) == 1:
			otherRuns = append(otherRuns, h.Event()+" "+h.Args[0])
		case len(h.Args) == 2 && h.Args[0] == "hook":
			ourRuns = append(ourRuns, h.Event())
		}
	}
	if want := []string{"UserPromptSubmit prompt", "PostToolUse shell"}; !slices.Equal(otherRuns, want) {
		t.Errorf("the other tool's hooks ran for %q, want %q", otherRuns, want)
	}
	if want := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}; !slices.Equal(ourRuns, want) {
		t.Errorf("rewind-lsp's hooks ran for %q, want %q", ourRuns, want)
	}
	var log commands.ListResult
	e.cli(t, ws, rl+".real", &log, "log")
	if len(log.Turns) != 1 || log.Turns[0].Prompt != prompt || log.Turns[0].Session != s || log.Turns[0].Agent != "codex" {
		t.Errorf("log after the prompt: %+v", log.Turns)
	}
}

// codexHook is one hook as `codex app-server` lists it (hooks/list).
type codexHook struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// codexHooks asks the real Codex, through `codex app-server` in the Env's
// home, which hooks it would run in dir and whether it trusts them: the
// test's own look, apart from the client rewind-lsp's setup uses.
func (e *Env) codexHooks(dir string) []codexHook {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Cmd, "app-server")
	cmd.Dir, cmd.Env = dir, e.environ()
	in, err := cmd.StdinPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	fmt.Fprintf(in, "%s\n%s\n", `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"testkit","version":"1"}}}`, `{"method":"initialized"}`)
	list, _ := json.Marshal(map[string]any{"id": 2, "method": "hooks/list", "params": map[string]any{"cwds": []string{dir}}})
	fmt.Fprintf(in, "%s\n", list)
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []codexHook `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		if msg.Error != nil {
			e.t.Fatalf("codex app-server hooks/list: %s", msg.Error)
		}
		var hooks []codexHook
		for _, d := range msg.Result.Data {
			hooks = append(hooks, d.Hooks...)
		}
		return hooks
	}
	e.t.Fatalf("codex app-server gave no hooks/list answer: %v", sc.Err())
	return nil
}

// TestSetupCodexRefusesWhatCodexCannotRead: with a config.toml the real
// Codex cannot read, `setup codex` fails naming the file and Codex's
// complaint, and writes nothing: no hooks.json, config.toml unchanged.
func TestSetupCodexRefusesWhatCodexCannotRead(t *testing.T) {
	e := New(t, Codex, startModel(t))
	ws := workspace(t, e)
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)
	configFile := filepath.Join(e.Home, ".codex", "config.toml")
	config, _ := os.ReadFile(configFile)
	broken := append(config, "\n[hooks.state\n"...)
	writeFile(t, configFile, string(broken))

	r := e.Exec(ws, rl, "setup", "codex", "--user")
	if r.Exit != 1 || !strings.Contains(r.Stderr, configFile) || !strings.Contains(r.Stderr, "changed nothing") {
		t.Errorf("setup codex with a broken config.toml: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(e.Home, ".codex", "hooks.json")); !os.IsNotExist(err) {
		t.Errorf("setup codex wrote hooks.json (%v)", err)
	}
	if now, _ := os.ReadFile(configFile); !bytes.Equal(now, broken) {
		t.Errorf("setup codex changed config.toml:\n%s", now)
	}
}

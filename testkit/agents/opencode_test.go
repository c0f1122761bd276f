package agents

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
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

// openCodeKinds are opencode and Kilo, which run rewind-lsp's plugin.
var openCodeKinds = []Kind{OpenCode, Kilo}

// TestRewindOpenCode is TestRewindRealAgents for opencode and Kilo, after
// `rewind-lsp setup opencode|kilo --user` installed the plugin: three
// prompts make three turns with their files; `rewind 2 --mode both` puts
// the files back and forks the session through the agent's own server; the
// original session's next prompt carries the notice once (a synthetic part
// of the prompt); the fork, resumed with `--session`, sends the model only
// the first exchange, and the fork at turn 1's end that exchange with its
// answer; every hook answers within 5 s.
func TestRewindOpenCode(t *testing.T) {
	for _, k := range openCodeKinds {
		t.Run(string(k), func(t *testing.T) { rewindAgent(t, k) })
	}
}

// TestStepsOpenCode is TestStepsRealAgents for opencode and Kilo: one
// prompt of three tool calls (write, edit, bash) is one turn of three
// steps; rewind 1.2, undo and revert 1.2 work on them.
func TestStepsOpenCode(t *testing.T) {
	for _, k := range openCodeKinds {
		t.Run(string(k), func(t *testing.T) { stepsAgent(t, k) })
	}
}

// TestOwnUndoOpenCode: opencode's own undo (what /undo does: POST
// /session/{id}/revert to the last prompt, through its server) restores
// the files itself, the shell's included, and hides the turn; the next
// prompt commits it. rewind-lsp sees it at that prompt — its leaf, the
// last message before it, comes before turn 2's prompt — and records it as
// the agent's own rewind to turn 2: the conversation moved back, no file
// restored a second time (nothing was left to restore), and the new prompt
// is turn 2.
func TestOwnUndoOpenCode(t *testing.T) {
	for _, k := range openCodeKinds {
		t.Run(string(k), func(t *testing.T) { ownUndoOpenCode(t, k) })
	}
}

func ownUndoOpenCode(t *testing.T, k Kind) {
	model := startModel(t)
	e := New(t, k, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)
	if r := e.Exec(ws, rl, "setup", agentName[k], "--user"); r.Exit != 0 {
		t.Fatalf("setup: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	e.Instrument(rl)
	cli := rl + ".real"

	a, c := filepath.Join(ws, "a.txt"), filepath.Join(ws, "c.txt")
	p := []string{"", "First: create a.txt.", "Second: change a.txt and write b.txt from the shell.", "Third, after the undo: create c.txt."}
	model.On(p[1], fakemodel.Tools(WriteFile(k, ws, a, "one\n")), fakemodel.Say("Created a.txt."))
	model.On(p[2], fakemodel.Tools(EditFile(k, ws, a, "one", "two")), fakemodel.Tools(Shell(k, "echo shell > b.txt")), fakemodel.Say("Changed a.txt, wrote b.txt."))
	model.On(p[3], fakemodel.Tools(WriteFile(k, ws, c, "three\n")), fakemodel.Say("Created c.txt."))
	s := e.Prompt(ws, p[1]).Session
	e.Resume(ws, s, p[2])
	wantFiles(t, ws, map[string]string{"a.txt": "two\n", "b.txt": "shell\n"})

	second := ""
	for _, h := range byEvent(e.HookRuns(), "chat.message") {
		if h.Field("prompt") == p[2] {
			second = h.Field("message_id")
		}
	}
	if second == "" {
		t.Fatal("the plugin sent no message id with the second prompt")
	}
	e.openCodeServer(ws, func(call func(method, path string, body any) []byte) {
		call("POST", "/session/"+s+"/revert", map[string]any{"messageID": second})
	})
	// The agent restored both files itself, the shell's too.
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": ""})

	e.Resume(ws, s, p[3])
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": "", "c.txt": "three\n"})
	if q := last(model.For(p[3])); q == nil || !q.Mentions(p[1]) || q.Mentions(p[2]) {
		t.Errorf("the prompt after the undo did not send the model the first exchange alone: %v", userTexts(q))
	}

	var log commands.ListResult
	e.cli(t, ws, cli, &log, "log")
	var prompts []string
	for _, tn := range log.Turns {
		prompts = append(prompts, fmt.Sprintf("%d %s", tn.Turn, tn.Prompt))
	}
	if want := []string{"1 " + p[1], "2 " + p[3]}; !slices.Equal(prompts, want) {
		t.Errorf("log turns %q, want %q", prompts, want)
	}
	if len(log.Rewinds) != 1 {
		t.Fatalf("log shows %d rewinds, want the agent's own undo: %+v", len(log.Rewinds), log.Rewinds)
	}
	rw := log.Rewinds[0]
	if rw.Agent != agentName[k] || rw.Session != s || rw.Turn != 2 || rw.Prompt != p[2] || len(rw.Files) != 0 || len(rw.Offered) != 0 || !rw.Applied {
		t.Errorf("the agent's undo was recorded as %+v, want %s's rewind of session %s to turn 2, nothing restored besides", rw, agentName[k], s)
	}
	t.Logf("recorded: %s", rw.Title)
	for _, h := range e.HookRuns() {
		if h.Exit != 0 || h.Took() > 5*time.Second {
			t.Errorf("hook %s: exit %d after %v\n%s", h.Event(), h.Exit, h.Took(), h.Stderr)
		}
	}
}

// openCodeServer runs the agent's own server (`opencode serve`, `kilo
// serve`, without plugins) on the Env's data in folder dir while fn calls
// its HTTP API; call fails the test on an error answer.
func (e *Env) openCodeServer(dir string, fn func(call func(method, path string, body any) []byte)) {
	t := e.t
	t.Helper()
	prefix := strings.ToUpper(string(e.Kind))
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, e.Cmd, "serve", "--pure", "--port", "0", "--hostname", "127.0.0.1")
	cmd.Dir = dir
	cmd.Env = append(e.environ(), "PWD="+dir, prefix+"_SERVER_USERNAME=test", prefix+"_SERVER_PASSWORD=test")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	groupKill(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		cmd.Wait()
	}()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "http://"); i >= 0 {
				urls <- strings.Fields(sc.Text()[i:])[0]
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	var base string
	select {
	case base = <-urls:
	case <-time.After(90 * time.Second):
		t.Fatalf("%s serve did not say where it listens within 90 s", e.Kind)
	}
	fn(func(method, path string, body any) []byte {
		t.Helper()
		data, _ := json.Marshal(body)
		req, err := http.NewRequest(method, strings.TrimSuffix(base, "/")+path+"?directory="+url.QueryEscape(dir), bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth("test", "test")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got, _ := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s %s: %s\n%s", method, path, resp.Status, got)
		}
		return got
	})
}

// TestFirstPromptOpenCode runs opencode and Kilo, with rewind-lsp's plugin
// installed by setup, on one prompt in which the model writes a file with
// the write tool and another from bash, and checks what the plugin handed
// to the hook: the events in order, the session, the folder, the prompt
// with its message id and leaf, the tools and their arguments. With
// -update it keeps them in agent/testdata/<agent>/hooks.jsonl.
func TestFirstPromptOpenCode(t *testing.T) {
	for _, k := range openCodeKinds {
		t.Run(string(k), func(t *testing.T) { firstPromptOpenCode(t, k) })
	}
}

func firstPromptOpenCode(t *testing.T, k Kind) {
	model := startModel(t)
	e := New(t, k, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)
	if r := e.Exec(ws, rl, "setup", agentName[k], "--user"); r.Exit != 0 {
		t.Fatalf("setup: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	e.Instrument(rl)
	a := filepath.Join(ws, "a.txt")
	write, shell := WriteFile(k, ws, a, "hello\n"), Shell(k, "echo shell > b.txt")
	const prompt = "Write a.txt, then b.txt from the shell."
	model.On(prompt, fakemodel.Tools(write), fakemodel.Tools(shell), fakemodel.Say("Both written."))
	r := e.Prompt(ws, prompt)
	if r.Session == "" {
		t.Fatalf("no session id in the output:\n%s", r.Stdout)
	}
	wantFiles(t, ws, map[string]string{"a.txt": "hello\n", "b.txt": "shell\n"})
	// The user's configuration folder says the agent's plugin package is
	// installed (openCodeHome): the agent asked npm for nothing, which for
	// Kilo 7.7.7 fails (a version the registry does not have) after a wait.
	logs, _ := filepath.Glob(filepath.Join(e.Home, ".local", "share", agentName[k], "log", "*.log"))
	if len(logs) == 0 {
		t.Errorf("%s left no log in its data folder", k)
	}
	for _, l := range logs {
		if data, _ := os.ReadFile(l); bytes.Contains(data, []byte("dependency install")) {
			t.Errorf("%s installed its plugin package with npm at start (%s)", k, l)
		}
	}

	runs := e.HookRuns()
	ev := events[k]
	var got []string
	for _, h := range runs {
		got = append(got, h.Event())
		t.Logf("hook %-20s %v", h.Event(), h.Took())
		if h.Exit != 0 {
			t.Errorf("hook %s: exit %d\n%s", h.Event(), h.Exit, h.Stderr)
		}
		if s, c := h.Field("session_id"), h.Field("cwd"); s != r.Session || c != ws {
			t.Errorf("%s: session %q cwd %q, want %q %q", h.Event(), s, c, r.Session, ws)
		}
	}
	if want := []string{ev[0], ev[1], ev[2], ev[3], ev[2], ev[3], ev[4]}; !slices.Equal(got, want) {
		t.Fatalf("hook events %v, want %v", got, want)
	}
	var leaf struct {
		Leaf *string `json:"leaf_id"`
	}
	json.Unmarshal(runs[1].Payload, &leaf)
	if runs[1].Field("prompt") != prompt || !strings.HasPrefix(runs[1].Field("message_id"), "msg_") || leaf.Leaf == nil || *leaf.Leaf != "" {
		t.Errorf("chat.message: %s, want the prompt, its message id and an empty leaf", runs[1].Payload)
	}
	if end := runs[6].Field("leaf_id"); end <= runs[1].Field("message_id") {
		t.Errorf("session.idle: leaf %q, want a message after the prompt's %q", end, runs[1].Field("message_id"))
	}
	for i, call := range []fakemodel.Call{write, write, shell, shell} {
		h := runs[2+i]
		name, input := toolOf(t, k, h)
		if name != call.Name || h.Field("tool_use_id") == "" {
			t.Errorf("%s: tool %q (call %q), want %q", h.Event(), name, h.Field("tool_use_id"), call.Name)
		}
		if call.Name == "bash" && input["command"] != "echo shell > b.txt" || call.Name == "write" && input["filePath"] != a {
			t.Errorf("%s: input %v", h.Event(), input)
		}
	}
	if *update {
		dir := filepath.Join("..", "..", "agent", "testdata", agentName[k])
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		norm := normalizer(e.Dir(), e.Home, ws)
		var lines []string
		for _, h := range runs {
			lines = append(lines, `{"event":"`+h.Event()+`","payload":`+strings.TrimSpace(norm(string(h.Payload)))+`}`)
		}
		writeFile(t, filepath.Join(dir, "hooks.jsonl"), strings.Join(lines, "\n")+"\n")
		t.Logf("wrote %s", dir)
	}
}

// TestOpenCodeSetupAndShell: the plugin names the session to the agent's
// shell (REWIND_LSP_SESSION, through shell.env), so rewind-lsp run from
// there knows whose turn it is in. And setup keeps the rest: a plugin of
// the person's own in the same folder still runs beside rewind-lsp's (its
// shell.env too), a second setup changes nothing, and a rewind-lsp.js of
// the project's that rewind-lsp did not write is refused, untouched.
func TestOpenCodeSetupAndShell(t *testing.T) {
	for _, k := range openCodeKinds {
		t.Run(string(k), func(t *testing.T) {
			model := startModel(t)
			e := New(t, k, model)
			e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
			ws := workspace(t, e)
			rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
			copyFile(t, testkit.Binary(t), rl)
			plugins := filepath.Join(e.Home, ".config", agentName[k], "plugins")
			const mine = "export const Mine = async () => ({ \"shell.env\": async (input, output) => { output.env.MINE = \"kept\" } })\n"
			writeFile(t, filepath.Join(plugins, "mine.js"), mine)
			for i, want := range []string{"added rewind-lsp's hooks to", "nothing changed"} {
				r := e.Exec(ws, rl, "setup", agentName[k], "--user")
				if r.Exit != 0 || !strings.Contains(r.Stdout, want) || !strings.Contains(r.Stdout, filepath.Join(plugins, "rewind-lsp.js")) {
					t.Fatalf("setup %d: exit %d, want %q\n%s%s", i+1, r.Exit, want, r.Stdout, r.Stderr)
				}
			}
			foreign := filepath.Join(ws, "."+agentName[k], "plugins", "rewind-lsp.js")
			writeFile(t, foreign, "export const Other = async () => ({})\n")
			if r := e.Exec(ws, rl, "setup", agentName[k]); r.Exit == 0 || !strings.Contains(r.Stderr, "not rewind-lsp's plugin") {
				t.Errorf("setup over a foreign rewind-lsp.js: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
			}
			if got, _ := os.ReadFile(foreign); string(got) != "export const Other = async () => ({})\n" {
				t.Errorf("setup changed the foreign rewind-lsp.js: %q", got)
			}
			os.RemoveAll(filepath.Join(ws, "."+agentName[k]))
			if got, _ := os.ReadFile(filepath.Join(plugins, "mine.js")); string(got) != mine {
				t.Errorf("setup changed the person's plugin: %q", got)
			}
			const prompt = "Which session is this?"
			model.On(prompt, fakemodel.Tools(Shell(k, `echo "$REWIND_LSP_SESSION $MINE" > s.txt`)), fakemodel.Say("Noted."))
			s := e.Prompt(ws, prompt).Session
			wantFiles(t, ws, map[string]string{"s.txt": s + " kept\n"})
		})
	}
}

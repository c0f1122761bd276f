//go:build linux

package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/acpclient"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// The ACP agents the proxy is tested with, and the agent whose tools
// their model calls.
var acpAgents = []struct {
	kind  Kind
	tools Kind
}{
	{Gemini, Gemini},
	{CodexACP, Codex},
	{ClaudeCodeACP, Claude},
}

// acpCall is the model's call c as the ACP agent k names it:
// claude-code-acp offers Claude Code's file tools as tools of its own MCP
// server (mcp__acp__Write, mcp__acp__Edit), which write through the editor.
func acpCall(k Kind, c fakemodel.Call) fakemodel.Call {
	if k == ClaudeCodeACP {
		c.Name = "mcp__acp__" + c.Name
	}
	return c
}

// acpCommand is the agent's ACP command line: Gemini CLI's --acp mode in
// one process, codex-acp's native binary (its npm launcher starts it as a
// child).
func acpCommand(t *testing.T, e *Env) []string {
	switch e.Kind {
	case Gemini:
		e.ExtraEnv = append(e.ExtraEnv, "GEMINI_CLI_NO_RELAUNCH=true")
		return []string{e.Cmd, "--acp"}
	case ClaudeCodeACP:
		return []string{e.Cmd}
	case CodexACP:
		js, err := filepath.EvalSymlinks(e.Cmd)
		if err != nil {
			t.Fatal(err)
		}
		native := filepath.Join(filepath.Dir(filepath.Dir(js))+"-linux-x64", "bin", "codex-acp")
		if _, err := os.Stat(native); err == nil {
			return []string{native}
		}
		return []string{e.Cmd}
	}
	t.Fatalf("%s has no ACP mode here", e.Kind)
	return nil
}

// acpProxy starts rewind-lsp acp in front of the agent, in folder ws, and
// the scripted editor in front of it.
func acpProxy(t *testing.T, e *Env, ws string, extra ...string) *acpclient.Client {
	argv := append(append([]string{"acp"}, extra...), "--")
	argv = append(argv, acpCommand(t, e)...)
	cmd := exec.Command(testkit.Binary(t), argv...)
	cmd.Dir, cmd.Env = ws, e.environ()
	return acpclient.Start(t, cmd)
}

// TestACPRealAgents: each real ACP agent behind `rewind-lsp acp`, driven
// by a scripted editor: two prompts are two turns of the session, with a
// step per tool call that wrote files; `/rewind 2` is answered by the
// proxy in the result's words — the model hears nothing of it — and puts
// the files back byte for byte, the changed text file through the
// editor's fs/write_text_file; the next prompt carries the notice, once;
// `/undo` brings turn 2's end back; `/turns` lists the turns.
func TestACPRealAgents(t *testing.T) {
	for _, a := range acpAgents {
		t.Run(string(a.kind), func(t *testing.T) { acpAgent(t, a.kind, a.tools) })
	}
}

func acpAgent(t *testing.T, k, tools Kind) {
	model := startModel(t)
	e := New(t, k, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	c := acpProxy(t, e, ws)
	t.Cleanup(func() {
		if t.Failed() {
			for _, l := range c.Received() {
				t.Logf("received: %.600s", l)
			}
		}
	})
	c.Initialize()
	sid := c.NewSession(ws)
	names := c.Commands(sid, func(n []string) bool { return slices.Contains(n, "turns") || slices.Contains(n, "rewind-turns") })
	rewind, undo := "rewind", "undo"
	if slices.Contains(names, "rewind-rewind") {
		rewind = "rewind-rewind"
	}
	if slices.Contains(names, "rewind-undo") {
		undo = "rewind-undo"
	}
	t.Logf("%s's commands with the proxy's: %v", k, names)

	a, b := filepath.Join(ws, "a.txt"), filepath.Join(ws, "b.txt")
	p1, p2 := "Create a.txt with one line.", "Change a.txt, then write b.txt."
	model.On(p1, fakemodel.Tools(acpCall(k, WriteFile(tools, ws, a, "one\r\nline two\n"))), fakemodel.Say("Created."))
	model.On(p2, fakemodel.Tools(acpCall(k, EditFile(tools, ws, a, "line two", "line 2"))), fakemodel.Tools(acpCall(k, WriteFile(tools, ws, b, "bee\n"))), fakemodel.Say("Changed."))
	if r := c.Prompt(sid, p1); r.StopReason != "end_turn" {
		t.Fatalf("prompt 1 stopped with %q", r.StopReason)
	}
	// Codex writes its patch's lines with \n: turn 1's end is what the
	// agent wrote, and what the rewind must put back byte for byte.
	aStart, err := os.ReadFile(a)
	if err != nil || !strings.Contains(string(aStart), "line two") {
		t.Fatalf("a.txt after turn 1: %q, %v", aStart, err)
	}
	if r := c.Prompt(sid, p2); r.StopReason != "end_turn" {
		t.Fatalf("prompt 2 stopped with %q", r.StopReason)
	}
	// Gemini CLI's replace keeps the file's first line ending throughout:
	// turn 2's end is what the agent wrote.
	aEnd, err := os.ReadFile(a)
	if err != nil || !strings.Contains(string(aEnd), "line 2") {
		t.Fatalf("a.txt after turn 2: %q, %v", aEnd, err)
	}
	end := map[string]string{"a.txt": string(aEnd), "b.txt": "bee\n"}
	wantFiles(t, ws, end)

	// The turns and steps, as the command line reads them.
	rl := testkit.Binary(t)
	var log commands.ListResult
	waitFor(t, "turn 2 to end", func() bool {
		e.cli(t, ws, rl, &log, "log")
		return len(log.Turns) == 2 && log.Turns[1].Ended != ""
	})
	for i, want := range [][][]string{{{"a.txt"}}, {{"a.txt"}, {"b.txt"}}} {
		tu := log.Turns[i]
		if tu.Session != sid || tu.Source != journal.SourceACP {
			t.Errorf("turn %d: session %q source %q, want %q acp", i+1, tu.Session, tu.Source, sid)
		}
		var got [][]string
		for _, st := range tu.Steps {
			var files []string
			for _, ch := range st.Changed {
				files = append(files, ch.Path)
			}
			got = append(got, files)
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("turn %d (%q): steps wrote %v, want %v: %+v", i+1, tu.Prompt, got, want, tu.Steps)
		}
	}

	// /rewind 2 never reaches the agent.
	before := len(model.Requests())
	writes := len(c.Writes())
	r := c.Prompt(sid, "/"+rewind+" 2")
	if r.StopReason != "end_turn" || !strings.Contains(r.Text, "rewound to turn 2") || !strings.Contains(r.Text, "undo it with: /"+undo) {
		t.Fatalf("/%s 2 answered %q (%s)", rewind, r.Text, r.StopReason)
	}
	t.Logf("/%s 2 answered:\n%s", rewind, r.Text)
	wantFiles(t, ws, map[string]string{"a.txt": string(aStart), "b.txt": ""})
	if n := len(model.Requests()); n != before {
		t.Errorf("the model got %d requests during /%s", n-before, rewind)
	}
	ws1 := c.Writes()[writes:]
	if len(ws1) != 1 || ws1[0].Path != a || ws1[0].Content != string(aStart) || ws1[0].Session != sid {
		t.Errorf("the editor was asked to write %+v, want a.txt once", ws1)
	}

	// The notice reaches the model with the next prompt, once.
	p3, p4 := "What now?", "And now?"
	model.On(p3, fakemodel.Say("Noted."))
	model.On(p4, fakemodel.Say("Still noted."))
	c.Prompt(sid, p3)
	c.Prompt(sid, p4)
	const told = "rewound to the state before turn 2"
	if rs := model.For(p3); len(rs) == 0 || !rs[0].Mentions(told) {
		t.Errorf("the model was not told of the rewind at the next prompt: %v", userTexts(last(model.For(p3))))
	}
	if rs := model.For(p4); len(rs) == 0 || rs[len(rs)-1].Count(told) != 1 {
		t.Errorf("the notice is not in the conversation exactly once at the prompt after: %v", userTexts(last(model.For(p4))))
	}

	// /undo brings turn 2's end back; /turns lists the turns.
	before = len(model.Requests())
	r = c.Prompt(sid, "/"+undo)
	if !strings.Contains(r.Text, "undone") {
		t.Errorf("/%s answered %q", undo, r.Text)
	}
	wantFiles(t, ws, end)
	r = c.Prompt(sid, "/"+strings.Replace(rewind, "rewind", "turns", 1))
	if !strings.Contains(r.Text, p1) || !strings.Contains(r.Text, "step 1") {
		t.Errorf("/turns answered %q", r.Text)
	}
	// /revert 2.1 takes back turn 2's first step (the edit of a.txt) and
	// keeps its second (b.txt); /undo brings it back.
	r = c.Prompt(sid, "/"+strings.Replace(rewind, "rewind", "revert", 1)+" 2.1")
	if !strings.Contains(r.Text, "reverted") || !strings.Contains(r.Text, "a.txt") {
		t.Errorf("/revert 2.1 answered %q", r.Text)
	}
	wantFiles(t, ws, map[string]string{"a.txt": string(aStart), "b.txt": "bee\n"})
	c.Prompt(sid, "/"+undo)
	wantFiles(t, ws, end)
	if n := len(model.Requests()); n != before {
		t.Errorf("the model got %d requests during /%s, /turns and /revert", n-before, undo)
	}

	// The conversation: Gemini CLI's session and Codex's thread (through
	// `codex app-server`, Codex's own fork) are forked before turn 2 and
	// the answer names the resume command, the editor's session going on;
	// claude-code-acp's Claude Code writes its transcript only after the
	// prompt's answer (docs/ACP.md), so only the journal moves, and the
	// answer says why.
	r = c.Prompt(sid, "/"+rewind+" 2 conversation")
	t.Logf("/%s 2 conversation answered:\n%s", rewind, r.Text)
	resume := map[Kind]string{Gemini: "gemini --resume ", CodexACP: "codex resume "}[k]
	if resume == "" {
		if !strings.Contains(r.Text, "conversation: turn 2 was recorded by") {
			t.Errorf("/%s 2 conversation answered %q", rewind, r.Text)
		}
	} else {
		if !strings.Contains(r.Text, "resume it with: "+resume) || !strings.Contains(r.Text, "this editor's session goes on") {
			t.Errorf("/%s 2 conversation answered %q", rewind, r.Text)
		}
		// The fork holds turn 1's prompt and not turn 2's.
		_, after, _ := strings.Cut(r.Text, "session forked to ")
		fork, _, _ := strings.Cut(after, "\n")
		data, err := os.ReadFile(fork)
		if err != nil || !strings.Contains(string(data), p1) || strings.Contains(string(data), p2) {
			t.Errorf("the fork %s (%v) does not end before turn 2:\n%.3000s", fork, err, data)
		}
	}
	wantFiles(t, ws, end)
}

// TestACPAgentCrashEndsProxy: a real agent killed under the proxy ends it
// within seconds, with the agent's status.
func TestACPAgentCrashEndsProxy(t *testing.T) {
	for _, a := range acpAgents {
		t.Run(string(a.kind), func(t *testing.T) {
			model := startModel(t)
			e := New(t, a.kind, model)
			e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
			ws := workspace(t, e)
			c := acpProxy(t, e, ws)
			c.Initialize()
			c.NewSession(ws)
			agentPID := childOf(t, c.Cmd.Process.Pid)
			if err := syscall.Kill(agentPID, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			code, took, err := c.WaitExit(10 * time.Second)
			if err != nil {
				t.Fatalf("the proxy did not end with its agent: %v", err)
			}
			if code != 128+9 {
				t.Errorf("the proxy exited %d, want %d (the agent's, killed)", code, 128+9)
			}
			t.Logf("the proxy ended %v after its agent was killed", took.Round(time.Millisecond))
		})
	}
}

// TestACPUnwritableJournal: a store the proxy cannot write never blocks a
// prompt: the agent answers as without the proxy.
func TestACPUnwritableJournal(t *testing.T) {
	for _, a := range acpAgents {
		t.Run(string(a.kind), func(t *testing.T) {
			model := startModel(t)
			e := New(t, a.kind, model)
			store := filepath.Join(e.Dir(), "store")
			if err := os.WriteFile(store, []byte("not a folder"), 0o444); err != nil {
				t.Fatal(err)
			}
			e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+store)
			ws := workspace(t, e)
			c := acpProxy(t, e, ws)
			c.Initialize()
			sid := c.NewSession(ws)
			p := "Create a.txt."
			model.On(p, fakemodel.Tools(acpCall(a.kind, WriteFile(a.tools, ws, filepath.Join(ws, "a.txt"), "a\n"))), fakemodel.Say("Done."))
			start := time.Now()
			if r := c.Prompt(sid, p); r.StopReason != "end_turn" {
				t.Fatalf("the prompt stopped with %q", r.StopReason)
			}
			wantFiles(t, ws, map[string]string{"a.txt": "a\n"})
			t.Logf("the prompt took %v with a store that cannot be written", time.Since(start).Round(time.Millisecond))
		})
	}
}

// waitFor polls cond for up to 20 s: the proxy records a turn's end just
// after it answers the prompt.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// childOf is the one child process of pid (Linux: /proc, whichever of
// its threads started it).
func childOf(t *testing.T, pid int) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		procs, err := os.ReadDir("/proc")
		if err != nil {
			t.Skipf("no /proc here: %v", err)
		}
		for _, p := range procs {
			child, err := strconv.Atoi(p.Name())
			if err != nil {
				continue
			}
			stat, err := os.ReadFile(filepath.Join("/proc", p.Name(), "stat"))
			if err != nil {
				continue
			}
			// pid (comm) state ppid …; comm may hold spaces and parentheses.
			rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
			if f := strings.Fields(rest); len(f) > 1 && f[1] == strconv.Itoa(pid) {
				return child
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("process %d started no agent", pid)
	return 0
}

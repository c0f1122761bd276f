package agents

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// piTUI is pi's (or oh-my-pi's) interactive interface in a tmux session of
// its own, typed at as a person does.
type piTUI struct {
	t    *testing.T
	e    *Env
	sock string
}

// startTUI starts the agent's interface in folder dir, with args.
func startTUI(t *testing.T, e *Env, dir string, args ...string) *piTUI {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("the agent's interface is driven in tmux, which is not installed (apt-get install tmux): %v", err)
	}
	u := &piTUI{t: t, e: e, sock: fmt.Sprintf("rwpi-%d-%s", os.Getpid(), filepath.Base(filepath.Dir(e.Dir())))}
	env := e.environ()
	for i, kv := range env {
		if strings.HasPrefix(kv, "TERM=") {
			env[i] = "TERM=xterm-256color"
		}
	}
	env = append(env, "NO_COLOR=")
	cmd := []string{"-L", u.sock, "new-session", "-d", "-x", "150", "-y", "45", "-c", dir, "env", "-i"}
	cmd = append(append(append(cmd, env...), e.Cmd), args...)
	if out, err := exec.Command("tmux", cmd...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the agent's screen:\n%s", u.screen())
			for _, h := range e.HookRuns() {
				t.Logf("rewind-lsp %s (%s): exit %d: %.200s %s", strings.Join(h.Args, " "), h.Event(), h.Exit, h.Stdout, h.Stderr)
			}
		}
		// The agent writes to its home until it is gone.
		exec.Command("tmux", "-L", u.sock, "send-keys", "C-c").Run()
		exec.Command("tmux", "-L", u.sock, "send-keys", "C-c").Run()
		for i := 0; i < 50 && exec.Command("tmux", "-L", u.sock, "has-session").Run() == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
		exec.Command("tmux", "-L", u.sock, "kill-server").Run()
		os.Remove(filepath.Join(os.TempDir(), fmt.Sprintf("tmux-%d", os.Getuid()), u.sock))
	})
	return u
}

// ready waits until the interface has started: its status line names the
// model (keys typed before that reach the terminal, not the agent).
func (u *piTUI) ready() {
	u.t.Helper()
	u.waitFor(map[Kind]string{Pi: "mock-model", Omp: "Mock Model"}[u.e.Kind])
	time.Sleep(time.Second)
}

// screen is what the terminal shows now.
func (u *piTUI) screen() string {
	out, _ := exec.Command("tmux", "-L", u.sock, "capture-pane", "-p").Output()
	return string(out)
}

// keys sends tmux key names (Enter, Escape, Down…), or literal text after "-l".
func (u *piTUI) keys(args ...string) {
	u.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-L", u.sock, "send-keys"}, args...)...).CombinedOutput(); err != nil {
		u.t.Fatalf("send-keys %v: %v\n%s", args, err, out)
	}
	time.Sleep(300 * time.Millisecond)
}

// waitFor waits until the screen shows text.
func (u *piTUI) waitFor(text string) {
	u.t.Helper()
	end := time.Now().Add(60 * time.Second)
	for time.Now().Before(end) {
		if strings.Contains(u.screen(), text) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	u.t.Fatalf("the screen never showed %q:\n%s", text, u.screen())
}

// typeText types text into the agent's editor and waits until it shows
// there; an interface still starting may drop keys, so it types again.
func (u *piTUI) typeText(text string) {
	u.t.Helper()
	for try := 0; try < 3; try++ {
		u.keys("-l", text)
		end := time.Now().Add(5 * time.Second)
		for time.Now().Before(end) {
			if strings.Count(u.screen(), text) > 0 {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		u.keys("C-u")
	}
	u.t.Fatalf("the editor never showed %q:\n%s", text, u.screen())
}

// stops counts the Stop hook runs that finished.
func (u *piTUI) stops() int {
	n := 0
	for _, h := range u.e.HookRuns() {
		if h.Event() == "Stop" && h.Exit != -1 {
			n++
		}
	}
	return n
}

// prompt types a prompt and waits until its turn is over: the model's
// reply on the screen and the Stop hook finished.
func (u *piTUI) prompt(text, reply string) {
	u.t.Helper()
	stops := u.stops()
	u.typeText(text)
	u.keys("Enter")
	u.waitFor(reply)
	end := time.Now().Add(60 * time.Second)
	for u.stops() == stops {
		if time.Now().After(end) {
			u.t.Fatalf("the Stop hook of %q never finished:\n%s", text, u.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
}

// twoPromptsTUI starts the agent's interface after `rewind-lsp setup`,
// and runs two prompts in it: the first writes a.txt with the write tool,
// the second rewrites a.txt and writes b.txt from bash. It returns the
// interface and the person's rewind-lsp.
func twoPromptsTUI(t *testing.T, k Kind) (*piTUI, *Env, *fakemodel.Server, string, string) {
	model := startModel(t)
	e := New(t, k, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	cli := setupPi(t, e, ws)
	model.On("prompt one", fakemodel.Tools(WriteFile(k, ws, filepath.Join(ws, "a.txt"), "one\n")), fakemodel.Say("ok one done"))
	model.On("prompt two", fakemodel.Tools(Shell(k, "echo two > a.txt; echo b > b.txt")), fakemodel.Say("ok two done"))
	model.On("prompt three", fakemodel.Say("ok three done"))
	args := map[Kind][]string{Pi: {"--provider", "mock", "--model", "mock-model"}, Omp: {"--model", "mock/mock-model", "--no-title"}}[k]
	u := startTUI(t, e, ws, args...)
	u.ready()
	u.prompt("prompt one", "ok one done")
	u.prompt("prompt two", "ok two done")
	wantFiles(t, ws, map[string]string{"a.txt": "two\n", "b.txt": "b\n"})
	return u, e, model, ws, cli
}

// promptLeaf is the leaf the prompt hook of prompt named: where its entry
// hangs in the conversation.
func promptLeaf(t *testing.T, e *Env, prompt string) string {
	t.Helper()
	leaf := ""
	for _, h := range byEvent(e.HookRuns(), "UserPromptSubmit") {
		if h.Field("prompt") == prompt {
			leaf = h.Field("leaf_id")
		}
	}
	if leaf == "" {
		t.Fatalf("no prompt hook ran for %q", prompt)
	}
	return leaf
}

// TestPiTUITree: pi's /tree, typed in its interface, back to prompt two;
// after pi's own question (summarize the branch?) rewind-lsp asks whether
// the files go back too, naming the state and the files. "Files too" with
// a.txt changed by the person since: rewind-lsp says so and asks before it
// overwrites it; then both files are back as before prompt two, the rewind
// is recorded and undoable, and the next prompt hangs where prompt two
// did. "Conversation only": the files stay. "Cancel": pi does not move.
func TestPiTUITree(t *testing.T) {
	for _, choice := range []string{"Files too", "Conversation only", "Cancel"} {
		t.Run(choice, func(t *testing.T) { piTree(t, choice) })
	}
}

func piTree(t *testing.T, choice string) {
	u, e, _, ws, cli := twoPromptsTUI(t, Pi)
	if choice == "Files too" {
		writeFile(t, filepath.Join(ws, "a.txt"), "the person's\n")
	}
	u.keys("-l", "/tree")
	u.keys("Enter")
	u.waitFor("Session Tree")
	u.keys("Up")
	u.keys("Up")
	u.waitFor("› • user: prompt two")
	u.keys("Enter")
	u.waitFor("Summarize branch?")
	u.keys("Enter") // No summary
	u.waitFor("rewind-lsp: take the files back too, to the state before turn 2 (prompt two)?")
	if choice == "Files too" && !strings.Contains(u.screen(), "modify a.txt (changed since), delete b.txt") {
		t.Errorf("the question does not name the files:\n%s", u.screen())
	}
	switch choice {
	case "Conversation only":
		u.keys("Down")
	case "Cancel":
		u.keys("Down")
		u.keys("Down")
	}
	u.keys("Enter")
	if choice == "Files too" {
		u.waitFor("rewind-lsp: conflict: 1 file was edited since")
		u.keys("Enter") // Overwrite them too
		u.waitFor("rewind-lsp restored 2 files to the state before turn 2 (prompt two)")
	}
	time.Sleep(time.Second)
	if choice != "Cancel" {
		u.waitFor("prompt two") // back in the editor, to send again
		u.keys("C-u")
	}
	u.prompt("prompt three", "ok three done")

	leaf := promptLeaf(t, e, "prompt three")
	var log commands.ListResult
	e.cli(t, ws, cli, &log, "log")
	switch choice {
	case "Files too":
		wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": ""})
		if leaf != promptLeaf(t, e, "prompt two") {
			t.Errorf("prompt three hangs under %s, not where prompt two did", leaf)
		}
		if len(log.Rewinds) != 1 || log.Rewinds[0].Mode != "code" || !log.Rewinds[0].Applied || log.Rewinds[0].Target != string(log.Turns[1].Entry) {
			t.Errorf("the rewind to turn 2's start is not recorded: %+v", log.Rewinds)
		}
		var un commands.RewindResult
		e.cli(t, ws, cli, &un, "undo")
		wantFiles(t, ws, map[string]string{"a.txt": "the person's\n", "b.txt": "b\n"})
	case "Conversation only":
		wantFiles(t, ws, map[string]string{"a.txt": "two\n", "b.txt": "b\n"})
		if leaf != promptLeaf(t, e, "prompt two") || len(log.Rewinds) != 0 {
			t.Errorf("prompt three hangs under %s (prompt two's %s); rewinds %+v", leaf, promptLeaf(t, e, "prompt two"), log.Rewinds)
		}
	case "Cancel":
		wantFiles(t, ws, map[string]string{"a.txt": "two\n", "b.txt": "b\n"})
		if leaf == promptLeaf(t, e, "prompt two") || len(log.Rewinds) != 0 {
			t.Errorf("after Cancel the conversation went back all the same (rewinds %+v)", log.Rewinds)
		}
	}
	checkPiHooks(t, e)
}

// checkPiHooks checks that every hook the extension ran answered within
// 5 s, cleanly, and logs the slowest per event; the commands it ran for
// the person (rewind, log) are logged apart: they are not hooks, and a
// rewind refused for a conflict exits non-zero by design.
func checkPiHooks(t *testing.T, e *Env) {
	t.Helper()
	var hooks, cmds []HookRun
	for _, h := range e.HookRuns() {
		if len(h.Args) == 0 || h.Args[0] != "hook" {
			cmds = append(cmds, h)
			continue
		}
		hooks = append(hooks, h)
		if h.Exit != 0 || h.Stderr != "" || h.Took() > 5*time.Second {
			t.Errorf("hook %s: exit %d after %v: %s", h.Event(), h.Exit, h.Took(), h.Stderr)
		}
	}
	logHookTimes(t, hooks)
	for _, c := range cmds {
		t.Logf("the extension ran rewind-lsp %s: exit %d in %v", strings.Join(c.Args, " "), c.Exit, c.Took().Round(time.Millisecond))
	}
}

// TestPiTUIRewindCommand: the extension's /rewind (oh-my-pi: /rewind-lsp,
// its own /rewind being its /branch), typed in the agent's interface,
// lists rewind-lsp's turns (the latest first) and asks what goes back.
// "Code and conversation" to before turn 2: both files are back as before
// prompt two, the agent switches to the conversation's fork (a cut copy of
// the session) with prompt two back in its editor, and the next prompt,
// sent there, hands the model only the first exchange. "Code only": the
// files are back, the conversation stays where it was. Either is undone
// by `rewind-lsp undo`.
func TestPiTUIRewindCommand(t *testing.T) {
	for _, k := range PiAgents {
		for _, mode := range []string{"Code and conversation", "Code only"} {
			t.Run(string(k)+"/"+mode, func(t *testing.T) { piRewindCommand(t, k, mode) })
		}
	}
}

func piRewindCommand(t *testing.T, k Kind, mode string) {
	u, e, model, ws, cli := twoPromptsTUI(t, k)
	session := byEvent(e.HookRuns(), "UserPromptSubmit")[0].Field("session_id")
	var before commands.ListResult
	e.cli(t, ws, cli, &before, "log")
	u.keys("-l", map[Kind]string{Pi: "/rewind", Omp: "/rewind-lsp"}[k])
	u.keys("Enter")
	u.waitFor("rewind-lsp: go back to the state before which turn?")
	u.waitFor("Turn 1: prompt one")
	u.keys("Enter") // the latest turn first: turn 2
	u.waitFor("rewind-lsp: what goes back to the state before turn 2 (prompt two)?")
	if mode == "Code only" {
		u.keys("Down")
	}
	u.keys("Enter")
	var log commands.ListResult
	if mode == "Code only" {
		u.waitFor("rewind-lsp restored 2 files to the state before turn 2 (prompt two)")
	} else {
		u.waitFor("rewind-lsp restored 2 files; this conversation continues from before turn 2 (prompt two)")
		u.waitFor("prompt two") // back in the editor, to send again
		u.keys("C-u")
	}
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": ""})
	e.cli(t, ws, cli, &log, "log")
	want := map[string]string{"Code and conversation": "both", "Code only": "code"}[mode]
	if len(log.Rewinds) != 1 || string(log.Rewinds[0].Mode) != want || !log.Rewinds[0].Applied || log.Rewinds[0].Target != string(before.Turns[1].Entry) {
		t.Fatalf("the rewind to turn 2's start (mode %s) is not recorded: %+v", want, log.Rewinds)
	}
	u.prompt("prompt three", "ok three done")

	prompts := byEvent(e.HookRuns(), "UserPromptSubmit")
	now := prompts[len(prompts)-1].Field("session_id")
	q := last(model.For("prompt three"))
	if q == nil {
		t.Fatal("prompt three never reached the model")
	}
	switch mode {
	case "Code and conversation":
		if now == session || now == "" {
			t.Errorf("prompt three was sent in session %q, not in a fork of %s", now, session)
		}
		if !q.Mentions("prompt one") || q.Mentions("prompt two") {
			t.Errorf("the fork sent the model more or less than the first exchange:\n%s", strings.Join(q.UserTexts(), "\n---\n"))
		}
	case "Code only":
		if now != session || !q.Mentions("prompt two") {
			t.Errorf("prompt three went to session %s (was %s) with %q", now, session, q.UserTexts())
		}
	}
	var un commands.RewindResult
	e.cli(t, ws, cli, &un, "undo")
	wantFiles(t, ws, map[string]string{"a.txt": "two\n", "b.txt": "b\n"})
	checkPiHooks(t, e)
}

// TestOmpTUIBranch: oh-my-pi's /branch (its /rewind), typed in its
// interface. Its full-screen picker stays over everything until it has
// moved the conversation, so rewind-lsp asks once it has. Picked at the
// last tool call (after which nothing changed), nothing is asked. Back to
// prompt two: rewind-lsp asks whether the files go back too, naming the
// state and the files; "Files too" puts both back as before prompt two,
// and says so; the next prompt hangs where prompt two did; the rewind is
// recorded and undoable.
func TestOmpTUIBranch(t *testing.T) {
	u, e, _, ws, cli := twoPromptsTUI(t, Omp)
	u.keys("-l", "/branch")
	u.keys("Enter")
	u.waitFor("pick the point to continue from")
	u.keys("Up") // the bash call of prompt two: after it, the files as they are
	u.keys("Enter")
	u.waitFor("Rewound to selected point")
	time.Sleep(2 * time.Second)
	if strings.Contains(u.screen(), "rewind-lsp:") {
		t.Fatalf("rewind-lsp asked about files that would not change:\n%s", u.screen())
	}
	u.keys("-l", "/branch")
	u.keys("Enter")
	u.waitFor("pick the point to continue from")
	u.keys("Up") // prompt two
	u.keys("Enter")
	u.waitFor("rewind-lsp: the conversation went back; the files too, to the state before turn 2 (prompt two)?")
	if !strings.Contains(u.screen(), "modify a.txt, delete b.txt") {
		t.Errorf("the question does not name the files:\n%s", u.screen())
	}
	u.keys("Enter") // Files too
	u.waitFor("rewind-lsp restored 2 files to the state before turn 2 (prompt two)")
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": ""})
	u.keys("C-u") // prompt two is back in the editor
	u.prompt("prompt three", "ok three done")
	if leaf := promptLeaf(t, e, "prompt three"); leaf != promptLeaf(t, e, "prompt two") {
		t.Errorf("prompt three hangs under %s, not where prompt two did", leaf)
	}
	var log commands.ListResult
	e.cli(t, ws, cli, &log, "log")
	if len(log.Rewinds) != 1 || log.Rewinds[0].Mode != "code" || !log.Rewinds[0].Applied {
		t.Errorf("the rewind is not recorded: %+v", log.Rewinds)
	}
	var un commands.RewindResult
	e.cli(t, ws, cli, &un, "undo")
	wantFiles(t, ws, map[string]string{"a.txt": "two\n", "b.txt": "b\n"})
	checkPiHooks(t, e)
}

// TestPiTUIFork: pi's /fork, typed in its interface, from prompt two:
// rewind-lsp asks whether the files go back too; "Files too" puts both
// back as before prompt two, pi forks to a new session (prompt two back in
// its editor) and, there, rewind-lsp says what it restored; the next
// prompt, sent in the fork, hands the model only the first exchange.
func TestPiTUIFork(t *testing.T) {
	u, e, model, ws, _ := twoPromptsTUI(t, Pi)
	session := byEvent(e.HookRuns(), "UserPromptSubmit")[0].Field("session_id")
	u.keys("-l", "/fork")
	u.keys("Enter")
	u.waitFor("Fork from Message")
	u.keys("Enter") // the last prompt: prompt two
	u.waitFor("rewind-lsp: take the files back too, to the state before turn 2 (prompt two)?")
	u.keys("Enter") // Files too
	u.waitFor("rewind-lsp restored 2 files to the state before turn 2 (prompt two)")
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": ""})
	u.keys("C-u")
	u.prompt("prompt three", "ok three done")
	prompts := byEvent(e.HookRuns(), "UserPromptSubmit")
	if now := prompts[len(prompts)-1].Field("session_id"); now == session || now == "" {
		t.Errorf("prompt three was sent in session %q, not in a fork of %s", now, session)
	}
	if q := last(model.For("prompt three")); q == nil || !q.Mentions("prompt one") || q.Mentions("prompt two") {
		t.Errorf("the fork sent the model more or less than the first exchange: %v", userTexts(q))
	}
	checkPiHooks(t, e)
}

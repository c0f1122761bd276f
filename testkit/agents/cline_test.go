package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// Cline's tools, as Cline 3.0.65 offered them to the scripted model (chat
// completions) and as its hooks named them (tool_call {id, name, input}):
// editor {path, new_text, old_text?, insert_line?} (path absolute; no
// old_text creates the file), run_commands {commands: [...]}, read_files
// {files: [{path}]}, submit_and_exit {summary, verified} (a --yolo run
// ends only with it: a model that stops without it is asked again, for
// ever).

func clineWrite(path, content string) fakemodel.Call {
	return fakemodel.Call{Name: "editor", Args: map[string]any{"path": path, "new_text": content}}
}

func clineEdit(path, old, new string) fakemodel.Call {
	return fakemodel.Call{Name: "editor", Args: map[string]any{"path": path, "old_text": old, "new_text": new}}
}

func clineShell(command string) fakemodel.Call {
	return fakemodel.Call{Name: "run_commands", Args: map[string]any{"commands": []string{command}}}
}

func clineRead(path string) fakemodel.Call {
	return fakemodel.Call{Name: "read_files", Args: map[string]any{"files": []any{map[string]any{"path": path}}}}
}

func clineSubmit(summary string) fakemodel.Call {
	return fakemodel.Call{Name: "submit_and_exit", Args: map[string]any{"summary": summary, "verified": true}}
}

// killClineHub ends the hub daemons Cline started for the Env (it leaves
// one running, detached, after its terminal interface exits; it ignores
// SIGTERM): the processes run with `--cline-hub-daemon` whose HOME is the
// Env's.
func (e *Env) killClineHub() {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		if !bytes.Contains(cmdline, []byte("--cline-hub-daemon")) {
			continue
		}
		env, _ := os.ReadFile(filepath.Join(p, "environ"))
		if !slices.ContainsFunc(bytes.Split(env, []byte{0}), func(v []byte) bool { return string(v) == "HOME="+e.Home }) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(p)); err == nil {
			if proc, err := os.FindProcess(pid); err == nil {
				proc.Kill()
			}
		}
	}
}

// TestFirstPromptCline runs `cline --yolo` on one prompt in which the
// model writes a.txt with its editor and b.txt from its shell, every hook
// event recorded around `rewind-lsp hook cline EVENT`: Cline fires
// TaskStart and UserPromptSubmit together (detached), whose prompt is its
// own reminder, not the person's; then the tool events and TaskComplete.
// The one turn rewind-lsp records has the person's prompt (read from
// Cline's messages file), the session Cline resumes with --id, and the
// two files. With -update it keeps the payloads and the messages file in
// agent/testdata/cline.
func TestFirstPromptCline(t *testing.T) {
	model := startModel(t)
	e := New(t, Cline, model)
	t.Cleanup(e.killClineHub)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)
	rec := e.Recorder(filepath.Join(e.Dir(), "bin", "hook"), shellQuote(rl)+" hook cline")
	e.SetHooks(func(event string) string { return shellQuote(rec) + " " + event })

	const prompt = "Write a.txt, then b.txt from the shell."
	model.On(prompt, fakemodel.Tools(clineWrite(filepath.Join(ws, "a.txt"), "hello\n")),
		fakemodel.Tools(clineShell("echo shell > b.txt")), fakemodel.Tools(clineSubmit("Both written.")))
	r := e.Prompt(ws, prompt)
	t.Logf("cline ran in %v", r.Took)
	wantFiles(t, ws, map[string]string{"a.txt": "hello\n", "b.txt": "shell\n"})

	// TaskStart and UserPromptSubmit run detached: wait for them.
	var runs []HookRun
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		runs = e.HookRuns()
		finished := len(runs) > 0
		for _, h := range runs {
			finished = finished && !h.End.IsZero()
		}
		if finished || time.Now().After(deadline) {
			break
		}
	}
	var got []string
	session := ""
	for _, h := range runs {
		got = append(got, h.Event())
		if h.Exit != 0 || h.Took() > 5*time.Second {
			t.Errorf("hook %s: exit %d after %v\n%s", h.Event(), h.Exit, h.Took(), h.Stderr)
		}
		var p struct {
			Context struct {
				Root string `json:"rootSessionId"`
			} `json:"sessionContext"`
		}
		jsonDecode(t, h.Payload, &p)
		if session == "" {
			session = p.Context.Root
		}
		if p.Context.Root != session || session == "" {
			t.Errorf("%s: session %q, want %q", h.Event(), p.Context.Root, session)
		}
		if h.Event() == "UserPromptSubmit" && !strings.Contains(string(h.Payload), `"prompt":"[SYSTEM]`) {
			t.Errorf("UserPromptSubmit's prompt is no longer Cline's reminder: %s", h.Payload)
		}
	}
	if len(got) >= 2 {
		slices.Sort(got[:2]) // detached: in either order
	}
	want := []string{"TaskStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreToolUse", "PostToolUse", "PreToolUse", "PostToolUse", "TaskComplete"}
	if !slices.Equal(got, want) {
		t.Fatalf("hook events %v, want %v", got, want)
	}

	var log commands.ListResult
	e.cli(t, ws, rl, &log, "log")
	if len(log.Turns) != 1 {
		t.Fatalf("log shows %d turns, want 1: %+v", len(log.Turns), log.Turns)
	}
	var files []string
	for _, f := range log.Turns[0].Changed {
		files = append(files, f.Path)
	}
	if tn := log.Turns[0]; tn.Prompt != prompt || tn.Session != session || tn.Agent != "cline" || tn.Ended == "" ||
		!slices.Equal(files, []string{"a.txt", "b.txt"}) || len(tn.Steps) != 2 {
		t.Errorf("log turn: %+v (files %v), want prompt %q, session %s", tn, files, prompt, session)
	}
	if *update {
		saveClineFixtures(t, e, ws, runs, session)
	}
}

// saveClineFixtures keeps what Cline wrote, as saveFixtures does: every
// hook payload (hooks.jsonl) and the session's messages file.
func saveClineFixtures(t *testing.T, e *Env, ws string, runs []HookRun, session string) {
	dir := filepath.Join("..", "..", "agent", "testdata", "cline")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	norm := normalizer(e.Dir(), e.Home, ws)
	var lines []string
	for _, h := range runs {
		lines = append(lines, `{"event":"`+h.Event()+`","payload":`+strings.TrimSpace(norm(string(h.Payload)))+`}`)
	}
	writeFile(t, filepath.Join(dir, "hooks.jsonl"), strings.Join(lines, "\n")+"\n")
	messages := filepath.Join(e.Home, ".cline", "data", "sessions", session, session+".messages.json")
	data, err := os.ReadFile(messages)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "messages.json"), norm(string(data)))
	t.Logf("wrote %s", dir)
}

// clineTUI is Cline's terminal interface in a tmux session of its own,
// typed at as a person does.
type clineTUI struct {
	t    *testing.T
	e    *Env
	sock string
}

func (e *Env) startClineTUI(t *testing.T, dir string, args ...string) *clineTUI {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("Cline's terminal interface is driven in tmux, which is not installed (apt-get install tmux): %v", err)
	}
	u := &clineTUI{t: t, e: e, sock: fmt.Sprintf("rl-cline-%d-%d", os.Getpid(), time.Now().UnixNano())}
	targs := []string{"-L", u.sock, "-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "50", "-c", dir, "--", "env", "-i"}
	targs = append(append(append(targs, e.environ()...), e.Cmd), args...)
	if out, err := exec.Command("tmux", targs...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(u.close)
	// Its first start offers a subscription in a dialog: closed with Escape.
	u.waitFor("Auto-approve", 60*time.Second)
	for deadline := time.Now().Add(20 * time.Second); strings.Contains(u.screen(), "Press Enter to open"); time.Sleep(300 * time.Millisecond) {
		u.keys("Escape")
		if time.Now().After(deadline) {
			t.Fatalf("Cline's dialog does not close:\n%s", u.screen())
		}
	}
	return u
}

// close quits Cline (Ctrl-C twice), ends its tmux and the hub daemons it
// left.
func (u *clineTUI) close() {
	exec.Command("tmux", "-L", u.sock, "send-keys", "C-c").Run()
	time.Sleep(300 * time.Millisecond)
	exec.Command("tmux", "-L", u.sock, "send-keys", "C-c").Run()
	time.Sleep(time.Second)
	exec.Command("tmux", "-L", u.sock, "kill-server").Run()
	os.Remove(filepath.Join(os.TempDir(), fmt.Sprintf("tmux-%d", os.Getuid()), u.sock))
	u.e.killClineHub()
}

func (u *clineTUI) screen() string {
	out, _ := exec.Command("tmux", "-L", u.sock, "capture-pane", "-p").Output()
	return string(out)
}

func (u *clineTUI) keys(args ...string) {
	u.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-L", u.sock, "send-keys"}, args...)...).CombinedOutput(); err != nil {
		u.t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
}

func (u *clineTUI) waitFor(text string, d time.Duration) {
	u.t.Helper()
	for deadline := time.Now().Add(d); !strings.Contains(u.screen(), text); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			u.t.Fatalf("Cline's screen never showed %q:\n%s", text, u.screen())
		}
	}
}

// prompt types one prompt and waits for its turn to end: one more
// TaskComplete hook run finished.
func (u *clineTUI) prompt(text string) {
	u.t.Helper()
	done := func() int {
		n := 0
		for _, h := range u.e.HookRuns() {
			if h.Event() == "TaskComplete" && !h.End.IsZero() {
				n++
			}
		}
		return n
	}
	started := func() int { return len(byEvent(u.e.HookRuns(), "TaskStart", "TaskResume")) }
	before, starts := done(), started()
	u.keys("-l", text)
	// An Enter right after the last turn ended may come before the
	// interface takes input again, and keys typed while it draws itself
	// may be lost: the prompt is typed again while the screen does not
	// show it, and Enter pressed until the prompt starts a task.
	for i := 0; started() == starts; i++ {
		if i == 20 {
			u.t.Fatalf("Cline did not take the prompt %q:\n%s", text, u.screen())
		}
		time.Sleep(300 * time.Millisecond)
		if !strings.Contains(u.screen(), text) {
			u.keys("-l", text)
			time.Sleep(300 * time.Millisecond)
		}
		u.keys("Enter")
		for wait := time.Now().Add(3 * time.Second); started() == starts && time.Now().Before(wait); {
			time.Sleep(100 * time.Millisecond)
		}
	}
	for deadline := time.Now().Add(u.e.Timeout); done() == before; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			u.t.Fatalf("Cline's turn of %q did not end in %v:\n%s", text, u.e.Timeout, u.screen())
		}
	}
}

// TestRewindRealCline drives Cline's terminal interface as a person does,
// after `rewind-lsp setup cline --user`: one session of three prompts —
// the editor creates a.txt; it changes a.txt and the shell writes b.txt;
// it creates c.txt — and `log` shows three turns with their prompts (read
// from Cline's messages file), session, agent, files and steps; `rewind 2
// --mode both` puts the files back and writes a cut copy of the session;
// the session's next prompt hears of the rewind once, through
// PreToolUse's contextModification, and the one after does not; the copy,
// resumed with `cline --id` in Cline's terminal interface, sends the
// model only the first exchange, and its prompt is a turn of its own
// session; a fork at turn 1's end keeps its answer; every hook answers
// within 5 s.
func TestRewindRealCline(t *testing.T) {
	model := startModel(t)
	e := New(t, Cline, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)
	r := e.Exec(ws, rl, "setup", "cline", "--user")
	if r.Exit != 0 {
		t.Fatalf("setup cline: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	t.Logf("setup: %s", strings.TrimSpace(r.Stdout))
	e.Instrument(rl)
	cli := rl + ".real"

	a, c := filepath.Join(ws, "a.txt"), filepath.Join(ws, "c.txt")
	p := []string{"", "First: create a.txt.", "Second: change a.txt and write b.txt from the shell.", "Third: create c.txt.",
		"Fourth, on the fork: what do you remember?", "Fifth, after the rewind: read a.txt.", "Sixth, still there: read a.txt."}
	model.On(p[1], fakemodel.Tools(clineWrite(a, "one\n")), fakemodel.Say("Created a.txt."))
	model.On(p[2], fakemodel.Tools(clineEdit(a, "one", "two")), fakemodel.Tools(clineShell("echo shell > b.txt")), fakemodel.Say("Changed a.txt, wrote b.txt."))
	model.On(p[3], fakemodel.Tools(clineWrite(c, "three\n")), fakemodel.Say("Created c.txt."))
	model.On(p[4], fakemodel.Say("Noted."))
	model.On(p[5], fakemodel.Tools(clineRead(a)), fakemodel.Say("Read."))
	model.On(p[6], fakemodel.Tools(clineRead(a)), fakemodel.Say("Read."))

	u := e.startClineTUI(t, ws)
	u.prompt(p[1])
	u.prompt(p[2])
	u.prompt(p[3])
	wantFiles(t, ws, map[string]string{"a.txt": "two\n", "b.txt": "shell\n", "c.txt": "three\n"})
	sessions, _ := os.ReadDir(filepath.Join(e.Home, ".cline", "data", "sessions"))
	if len(sessions) != 1 {
		t.Fatalf("Cline's sessions: %v, want one", sessions)
	}
	s := sessions[0].Name()

	var log commands.ListResult
	e.cli(t, ws, cli, &log, "log")
	checkThreeTurns(t, log, p[1:4], s, "cline", [][]string{{"editor"}, {"editor", "run_commands"}, {"editor"}}, stepTool)

	var rw commands.RewindResult
	e.cli(t, ws, cli, &rw, "rewind", "2", "--mode", "both")
	if !rw.Applied {
		t.Fatalf("rewind 2 --mode both did not apply: %s", rw.FailureReason)
	}
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": "", "c.txt": ""})
	conv := rw.Conversation
	if conv == nil || conv.Agent != "cline" || conv.Session == "" || conv.Session == s || conv.Resume != "cline --id "+conv.Session || conv.Reason != "" {
		t.Fatalf("the conversation was not forked: %+v", conv)
	}
	t.Logf("fork: %s (%s)", conv.Resume, conv.Transcript)

	// The session goes on: its next prompt hears of the rewind once, at
	// its first PreToolUse; the one after does not. The notice names turn
	// 2's prompt, which the scripted model would take for that prompt's:
	// it answers it as the end of a turn.
	model.On(p[2], fakemodel.Say("Read."))
	n5 := len(model.Requests())
	u.prompt(p[5])
	n6 := len(model.Requests())
	u.prompt(p[6])
	n7 := len(model.Requests())
	var told []string
	for _, h := range e.HookRuns() {
		if strings.Contains(h.Stdout, notice) {
			told = append(told, h.Event())
			if !strings.HasPrefix(h.Stdout, `{"contextModification":"rewind-lsp: since your last prompt`) || !strings.Contains(h.Stdout, "a.txt") {
				t.Errorf("the notice was printed as %s", h.Stdout)
			}
		}
	}
	if !slices.Equal(told, []string{"PreToolUse"}) {
		t.Errorf("the notice was printed at %v, want once at PreToolUse", told)
	}
	if q := last(model.Requests()[n5:n6]); q == nil || q.Count(notice) != 1 || !q.Mentions(p[5]) {
		t.Errorf("the model was not told of the rewind once in the fifth prompt: %v", userTexts(q))
	}
	if q := last(model.Requests()[n6:n7]); q == nil || q.Count(notice) != 1 || !q.Mentions(p[6]) {
		t.Errorf("the sixth prompt's last request holds the notice %d times, want once (the fifth's, kept in the conversation)", q.Count(notice))
	}
	e.cli(t, ws, cli, &log, "log")
	if n := len(log.Turns); n != 3 || log.Turns[1].Prompt != p[5] || log.Turns[2].Prompt != p[6] {
		t.Errorf("after the rewind, log shows %d turns: %+v", n, log.Turns)
	}

	// The fork before turn 2, resumed in Cline's terminal interface: the
	// first exchange and nothing after.
	u.close()
	f := e.startClineTUI(t, ws, "--id", conv.Session)
	f.prompt(p[4])
	q := last(model.For(p[4]))
	if q == nil {
		t.Fatal("the fork's prompt never reached the model")
	}
	if !q.Mentions(p[1]) || q.Mentions(p[2]) || q.Mentions(p[3]) || q.Mentions(p[5]) || q.Mentions(notice) {
		t.Errorf("the resumed fork sent the model more or less than the first exchange:\n%s", strings.Join(q.UserTexts(), "\n---\n"))
	}
	e.cli(t, ws, cli, &log, "log")
	if tn := log.Turns[len(log.Turns)-1]; tn.Prompt != p[4] || tn.Session != conv.Session || tn.Agent != "cline" || tn.Ended == "" {
		t.Errorf("the fork's prompt is not the last turn of the fork's session: %+v", tn)
	}

	// A conversation-only rewind to turn 1's end: a copy that keeps the
	// first exchange with its answer, and nothing of the second.
	var rw1 commands.RewindResult
	e.cli(t, ws, cli, &rw1, "rewind", "turn:1:end", "--mode", "conversation")
	if c := rw1.Conversation; c == nil || c.Session == "" || c.Transcript == "" {
		t.Fatalf("rewind turn:1:end --mode conversation forked nothing: %+v", c)
	}
	if data, err := os.ReadFile(rw1.Conversation.Transcript); err != nil || !strings.Contains(string(data), p[1]) ||
		!strings.Contains(string(data), "Created a.txt.") || strings.Contains(string(data), p[2]) {
		t.Errorf("the fork at turn 1's end: %v\n%s", err, data)
	}

	for _, h := range e.HookRuns() {
		if h.Exit != 0 || h.Took() > 5*time.Second {
			t.Errorf("hook %s: exit %d after %v\n%s", h.Event(), h.Exit, h.Took(), h.Stderr)
		}
	}
	logHookTimes(t, e.HookRuns())
}

func jsonDecode(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
}

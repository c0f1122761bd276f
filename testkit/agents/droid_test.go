package agents

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

func init() {
	agentName[Droid] = "droid"
	agentName[Cline] = "cline"
}

// droid's tools, as droid 0.215 offered them to the scripted model (chat
// completions) and as its hooks named them: Create {file_path, content},
// Edit {file_path, old_str, new_str, change_all?}, Execute {command,
// riskLevel, riskLevelReason, …}, Read {file_path}.

func droidCreate(path, content string) fakemodel.Call {
	return fakemodel.Call{Name: "Create", Args: map[string]any{"file_path": path, "content": content}}
}

func droidEdit(path, old, new string) fakemodel.Call {
	return fakemodel.Call{Name: "Edit", Args: map[string]any{"file_path": path, "old_str": old, "new_str": new}}
}

func droidExecute(command string) fakemodel.Call {
	return fakemodel.Call{Name: "Execute", Args: map[string]any{"command": command, "riskLevel": "low", "riskLevelReason": "writes a file of the project"}}
}

func droidRead(path string) fakemodel.Call {
	return fakemodel.Call{Name: "Read", Args: map[string]any{"file_path": path}}
}

// TestFirstPromptDroid runs droid exec on one prompt in which the model
// writes a.txt with Create and b.txt with Execute, every hook event
// recorded: droid fires SessionStart, the tool events and Stop, and no
// UserPromptSubmit; no payload carries the prompt, which only the
// transcript holds. With -update it keeps the payloads and the transcript
// in agent/testdata/droid.
func TestFirstPromptDroid(t *testing.T) {
	model := startModel(t)
	e := New(t, Droid, model)
	e.SetHooks(e.HookRecorder())
	ws := workspace(t, e)
	const prompt = "Write a.txt, then b.txt from the shell."
	model.On(prompt, fakemodel.Tools(droidCreate(filepath.Join(ws, "a.txt"), "hello\n")),
		fakemodel.Tools(droidExecute("echo shell > b.txt")), fakemodel.Say("Both written."))
	r := e.Prompt(ws, prompt)
	t.Logf("droid ran in %v, session %s", r.Took, r.Session)
	wantFiles(t, ws, map[string]string{"a.txt": "hello\n", "b.txt": "shell\n"})
	runs := e.HookRuns()
	var got []string
	for _, h := range runs {
		got = append(got, h.Event())
		if s := sessionField(h); s != r.Session || h.Field("cwd") != ws {
			t.Errorf("%s: session %q cwd %q", h.Event(), s, h.Field("cwd"))
		}
		if strings.Contains(string(h.Payload), prompt) {
			t.Errorf("%s carries the prompt: droid's payloads do now, read it there", h.Event())
		}
	}
	want := []string{"SessionStart", "PreToolUse", "PostToolUse", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"}
	if !slices.Equal(got, want) {
		t.Fatalf("hook events %v, want %v", got, want)
	}
	transcript, _ := os.ReadFile(runs[0].Field("transcript_path"))
	if !strings.Contains(string(transcript), `"text":"`+prompt+`"`) {
		t.Errorf("the transcript does not hold the prompt")
	}
	if *update {
		saveFixtures(t, e, ws, runs)
	}
}

// droidStream is one `droid exec --input-format stream-json` process:
// droid exec resumes no session offline (`-s` asks Factory's servers), so
// a session of several prompts is one process reading them on stdin.
type droidStream struct {
	t      *testing.T
	e      *Env
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stdin  io.WriteCloser
	mu     sync.Mutex
	out    strings.Builder
	done   chan struct{}
}

func (e *Env) startDroidStream(t *testing.T, dir string) *droidStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, e.Cmd, "exec", "--auto", "high", "-m", "custom:"+droidModel, "--input-format", "stream-json", "-o", "stream-json")
	cmd.Dir, cmd.Env = dir, e.environ()
	groupKill(cmd)
	s := &droidStream{t: t, e: e, cmd: cmd, cancel: cancel, done: make(chan struct{})}
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			s.mu.Lock()
			s.out.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
		}
	}()
	t.Cleanup(s.close)
	return s
}

// session is the session id droid announced (its init line).
func (s *droidStream) session() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sessionOf(Droid, s.out.String())
}

// prompt sends one prompt and waits for its turn to end: one more Stop
// hook run finished.
func (s *droidStream) prompt(text string) {
	s.t.Helper()
	stops := func() int {
		n := 0
		for _, h := range s.e.HookRuns() {
			if h.Event() == "Stop" && !h.End.IsZero() && sessionField(h) == s.session() {
				n++
			}
		}
		return n
	}
	before := stops()
	line, _ := json.Marshal(map[string]string{"role": "user", "content": text})
	if _, err := s.stdin.Write(append(line, '\n')); err != nil {
		s.t.Fatalf("droid's stdin: %v", err)
	}
	deadline := time.Now().Add(s.e.Timeout)
	for stops() == before {
		select {
		case <-s.done:
			s.t.Fatalf("droid exited during %q:\n%s", text, tail(s.out.String()))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("droid's turn of %q did not end in %v", text, s.e.Timeout)
		}
	}
}

func (s *droidStream) close() {
	s.stdin.Close()
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
	}
	s.cancel() // the process group, whatever is left of it
	<-s.done
	s.cmd.Wait()
}

// TestRewindRealDroid drives droid as a person does offline, after
// `rewind-lsp setup droid --user`: one droid exec session carries three
// prompts — Create a.txt; Edit it and write b.txt with Execute; Create
// c.txt — and `log` shows three turns with their prompts (read from the
// transcript: no hook carries them), session, agent, files and steps;
// `rewind 2 --mode both` puts the files back and writes a cut copy of the
// conversation; the session's next prompt hears of the rewind once,
// through PostToolUse's additionalContext, and the one after does not;
// the cut copy, continued with `droid exec --fork`, sends the model only
// the first exchange; a fork at turn 1's end keeps its answer; a fork made
// by a conversation-only rewind hears, at its SessionStart, which files
// differ from its fork point; every hook answers within 5 s.
func TestRewindRealDroid(t *testing.T) {
	model := startModel(t)
	e := New(t, Droid, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)
	r := e.Exec(ws, rl, "setup", "droid", "--user")
	if r.Exit != 0 {
		t.Fatalf("setup droid: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	t.Logf("setup: %s", strings.TrimSpace(r.Stdout))
	e.Instrument(rl)
	cli := rl + ".real"

	a, c := filepath.Join(ws, "a.txt"), filepath.Join(ws, "c.txt")
	p := []string{"", "First: create a.txt.", "Second: change a.txt and write b.txt from the shell.", "Third: create c.txt.",
		"Fourth, on the fork: what do you remember?", "Fifth, back on the first session: read a.txt.", "Sixth, still there: read a.txt.",
		"Seventh, on the fork at turn 1's end.", "Eighth, on the fork at turn 2's end: read a.txt."}
	model.On(p[1], fakemodel.Tools(droidCreate(a, "one\n")), fakemodel.Say("Created a.txt."))
	model.On(p[2], fakemodel.Tools(droidEdit(a, "one", "two")), fakemodel.Tools(droidExecute("echo shell > b.txt")), fakemodel.Say("Changed a.txt, wrote b.txt."))
	model.On(p[3], fakemodel.Tools(droidCreate(c, "three\n")), fakemodel.Say("Created c.txt."))
	model.On(p[4], fakemodel.Say("Noted."))
	model.On(p[5], fakemodel.Tools(droidRead(a)), fakemodel.Say("Read."))
	model.On(p[6], fakemodel.Tools(droidRead(a)), fakemodel.Say("Read."))
	model.On(p[7], fakemodel.Say("Noted."))
	model.On(p[8], fakemodel.Tools(droidRead(a)), fakemodel.Say("Read."))

	st := e.startDroidStream(t, ws)
	st.prompt(p[1])
	st.prompt(p[2])
	st.prompt(p[3])
	s := st.session()
	if s == "" {
		t.Fatal("droid announced no session")
	}
	wantFiles(t, ws, map[string]string{"a.txt": "two\n", "b.txt": "shell\n", "c.txt": "three\n"})

	var log commands.ListResult
	e.cli(t, ws, cli, &log, "log")
	checkThreeTurns(t, log, p[1:4], s, "droid", [][]string{{"Create"}, {"Edit", "Execute"}, {"Create"}}, stepTool)

	// A conversation-only rewind to turn 2's end: the files stay (c.txt,
	// say, differs from that point), the conversation is forked there.
	var rw2 commands.RewindResult
	e.cli(t, ws, cli, &rw2, "rewind", "turn:2:end", "--mode", "conversation")
	if c := rw2.Conversation; c == nil || c.Session == "" || !rw2.Applied {
		t.Fatalf("rewind turn:2:end --mode conversation forked nothing: %+v %+v", rw2, c)
	}

	var rw commands.RewindResult
	e.cli(t, ws, cli, &rw, "rewind", "2", "--mode", "both")
	if !rw.Applied {
		t.Fatalf("rewind 2 --mode both did not apply: %s", rw.FailureReason)
	}
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": "", "c.txt": ""})
	conv := rw.Conversation
	if conv == nil || conv.Agent != "droid" || conv.Session == "" || conv.Session == s || conv.Resume != "droid exec --fork "+conv.Session {
		t.Fatalf("the conversation was not forked: %+v", conv)
	}
	t.Logf("fork: %s (%s)", conv.Resume, conv.Transcript)

	// The session goes on: its next prompt hears of the rewind once, at
	// its first PostToolUse; the one after does not. The notice names turn
	// 2's prompt, which the scripted model would take for that prompt's:
	// it answers it as the end of a turn.
	model.On(p[2], fakemodel.Say("Read."))
	n5 := len(model.Requests())
	st.prompt(p[5])
	n6 := len(model.Requests())
	st.prompt(p[6])
	n7 := len(model.Requests())
	var told []string
	for _, h := range byEvent(e.HookRuns(), "PostToolUse", "SessionStart", "Stop", "PreToolUse") {
		if strings.Contains(h.Stdout, notice) {
			told = append(told, h.Event())
			if !strings.Contains(h.Stdout, `"hookEventName":"PostToolUse"`) || !strings.Contains(h.Stdout, "a.txt") {
				t.Errorf("the notice was printed as %s", h.Stdout)
			}
		}
	}
	if len(told) != 1 || told[0] != "PostToolUse" {
		t.Errorf("the notice was printed at %v, want once at PostToolUse", told)
	}
	if q := last(model.Requests()[n5:n6]); q == nil || q.Count(notice) != 1 || !q.Mentions(p[5]) {
		t.Errorf("the model was not told of the rewind once in the fifth prompt: %v", userTexts(q))
	}
	if q := last(model.Requests()[n6:n7]); q == nil || q.Count(notice) != 1 || !q.Mentions(p[6]) {
		t.Errorf("the sixth prompt's last request holds the notice %d times, want once (the fifth's, kept in the conversation)", q.Count(notice))
	}

	// A conversation-only rewind to turn 1's end.
	var rw1 commands.RewindResult
	e.cli(t, ws, cli, &rw1, "rewind", "turn:1:end", "--mode", "conversation")
	if c := rw1.Conversation; c == nil || c.Session == "" {
		t.Fatalf("rewind turn:1:end --mode conversation forked nothing: %+v", c)
	}
	st.close()

	// The fork before turn 2, continued: the first exchange and nothing after.
	e.Resume(ws, conv.Session, p[4])
	q := last(model.For(p[4]))
	if q == nil {
		t.Fatal("the fork's prompt never reached the model")
	}
	if !q.Mentions(p[1]) || q.Mentions(p[2]) || q.Mentions(p[3]) || q.Mentions(notice) {
		t.Errorf("the resumed fork sent the model more or less than the first exchange:\n%s", strings.Join(q.UserTexts(), "\n---\n"))
	}

	// The fork at turn 1's end: the first exchange with its answer.
	e.Resume(ws, rw1.Conversation.Session, p[7])
	q = last(model.For(p[7]))
	answered := q != nil && slices.ContainsFunc(q.Messages, func(m fakemodel.Message) bool {
		return m.Role == "assistant" && strings.Contains(m.Text, "Created a.txt.")
	})
	if !answered || !q.Mentions(p[1]) || q.Mentions(p[2]) || q.Mentions(p[3]) {
		t.Errorf("the fork at turn 1's end did not send the first exchange with its answer:\n%s", strings.Join(userTexts(q), "\n---\n"))
	}

	// The fork at turn 2's end: the files differ from its fork point
	// (a.txt is back at turn 1's, b.txt gone), which its SessionStart tells
	// the model, once.
	const forkNotice = "rewind-lsp: this conversation continues from"
	e.Resume(ws, rw2.Conversation.Session, p[8])
	q = last(model.For(p[8]))
	if q == nil || !q.Mentions(p[2]) || q.Mentions(p[3]) {
		t.Fatalf("the fork at turn 2's end sent the model more or less than the first two exchanges:\n%s", strings.Join(userTexts(q), "\n---\n"))
	}
	if q.Count(forkNotice) != 1 {
		t.Errorf("the fork at turn 2's end was not told once what differs on disk:\n%s", strings.Join(userTexts(q), "\n---\n"))
	}
	told = nil
	for _, h := range e.HookRuns() {
		if strings.Contains(h.Stdout, forkNotice) {
			told = append(told, h.Event())
			if !strings.Contains(h.Stdout, "a.txt") || !strings.Contains(h.Stdout, "b.txt") {
				t.Errorf("the fork's notice does not name a.txt and b.txt: %s", h.Stdout)
			}
		}
	}
	if !slices.Equal(told, []string{"SessionStart"}) {
		t.Errorf("the fork's notice was printed at %v, want once at SessionStart", told)
	}

	for _, h := range e.HookRuns() {
		if h.Exit != 0 || h.Took() > 5*time.Second {
			t.Errorf("hook %s: exit %d after %v\n%s", h.Event(), h.Exit, h.Took(), h.Stderr)
		}
		if h.Stderr != "" {
			t.Logf("hook %s said: %s", h.Event(), h.Stderr)
		}
	}
	logHookTimes(t, e.HookRuns())
}

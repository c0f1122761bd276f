package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/agent/pi"
	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// pi and oh-my-pi are driven by tests of their own: they run no command
// hooks, only rewind-lsp's extension, which `setup` installs, and they
// offer no MCP.
func init() {
	agentName[Pi], agentName[Omp] = "pi", "omp"
	// The extension names the events as Claude Code's hooks do.
	events[Pi] = events[Claude]
	events[Omp] = events[Claude]
}

// PiAgents are pi and oh-my-pi.
var PiAgents = []Kind{Pi, Omp}

// TestRewindPiAgents drives pi and oh-my-pi as a person would, after
// `rewind-lsp setup pi|omp --user` (its extension is what makes rewind-lsp
// hear of anything): three prompts — a write; an edit plus a shell write;
// another write — then `log` shows three turns with their prompts, session,
// agent, files and steps; `rewind 2 --mode both` puts the files back and
// forks the conversation (a cut copy of the session file); the original
// session's next prompt carries the notice, through the message the
// extension returns from before_agent_start, and the one after does not;
// the fork, resumed with a new prompt, sends the model only the first
// exchange; a fork at turn 1's end keeps its answer; every hook answers
// within 5 s.
func TestRewindPiAgents(t *testing.T) {
	for _, k := range PiAgents {
		t.Run(string(k), func(t *testing.T) { rewindPi(t, k) })
	}
}

// setupPi installs rewind-lsp's extension for agent k with a copy of the
// binary under test, and puts a recorder in the binary's place: the hooks
// the extension runs are recorded, and the returned command is the
// person's own rewind-lsp.
func setupPi(t *testing.T, e *Env, ws string) string {
	t.Helper()
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)
	r := e.Exec(ws, rl, "setup", agentName[e.Kind], "--user")
	if r.Exit != 0 || strings.Contains(r.Stdout, "one more step") {
		t.Fatalf("setup %s: exit %d\n%s%s", agentName[e.Kind], r.Exit, r.Stdout, r.Stderr)
	}
	t.Logf("setup: %s", strings.TrimSpace(r.Stdout))
	e.Instrument(rl)
	return rl + ".real"
}

// TestFirstPromptPiAgents runs pi and oh-my-pi on one prompt in which the
// model writes a file with the agent's write tool and another from its
// bash, after `rewind-lsp setup`, and checks what the extension handed
// over: the events in order, the session, the folder, the prompt, the tools
// and their paths, each with the conversation's leaf entry.
func TestFirstPromptPiAgents(t *testing.T) {
	for _, k := range PiAgents {
		t.Run(string(k), func(t *testing.T) { firstPromptPi(t, k) })
	}
}

func firstPromptPi(t *testing.T, k Kind) {
	model := startModel(t)
	e := New(t, k, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	setupPi(t, e, ws)
	a := filepath.Join(ws, "a.txt")
	write, shell := WriteFile(k, ws, a, "hello\n"), Shell(k, "echo shell > b.txt")
	const prompt = "Write a.txt, then b.txt from the shell."
	model.On(prompt, fakemodel.Tools(write), fakemodel.Tools(shell), fakemodel.Say("Both written."))
	r := e.Prompt(ws, prompt)
	t.Logf("%s ran in %v, session %s", k, r.Took, r.Session)
	if r.Session == "" {
		t.Fatalf("no session id in the output:\n%s", tail(r.Stdout))
	}
	wantFiles(t, ws, map[string]string{"a.txt": "hello\n", "b.txt": "shell\n"})
	runs := e.HookRuns()
	var got []string
	for _, h := range runs {
		got = append(got, h.Event())
		t.Logf("hook %-20s %v", h.Event(), h.Took())
		if h.Exit != 0 || h.Stderr != "" {
			t.Errorf("hook %s: exit %d: %s", h.Event(), h.Exit, h.Stderr)
		}
		if sessionField(h) != r.Session || h.Field("cwd") != ws || h.Field("leaf_id") == "" || !strings.HasSuffix(h.Field("transcript_path"), "_"+r.Session+".jsonl") {
			t.Errorf("%s: %s", h.Event(), h.Payload)
		}
	}
	// pi -p does not wait for agent_end's handlers before it shuts down:
	// Stop and SessionEnd (which rewind-lsp ignores) run side by side, in
	// either order.
	if n := len(got); n > 1 && got[n-2] == "SessionEnd" {
		got[n-2], got[n-1] = got[n-1], got[n-2]
	}
	if want := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for i, call := range []fakemodel.Call{write, write, shell, shell} {
		h := byEvent(runs, "PreToolUse", "PostToolUse")[i]
		name, input := toolOf(t, k, h)
		if name != call.Name || call.Name == "bash" && input["command"] != "echo shell > b.txt" || call.Name == "write" && input["path"] != a {
			t.Errorf("%s %d: %s %v", h.Event(), i, name, input)
		}
	}
	if *update {
		saveFixtures(t, e, ws, runs)
	}
}

func rewindPi(t *testing.T, k Kind) {
	start := time.Now()
	model := startModel(t)
	e := New(t, k, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	cli := setupPi(t, e, ws)

	a, c := filepath.Join(ws, "a.txt"), filepath.Join(ws, "c.txt")
	p := []string{"", "First: create a.txt.", "Second: change a.txt and write b.txt from the shell.", "Third: create c.txt.",
		"Fourth, on the fork: what do you remember?", "Fifth, back on the first session.", "Sixth, still there.",
		"Seventh, on the fork at turn 1's end."}
	edit, shell := PiEdit(t, e, ws, a, "one\n", "two"), Shell(k, "echo shell > b.txt")
	model.On(p[1], fakemodel.Tools(WriteFile(k, ws, a, "one\n")), fakemodel.Say("Created a.txt."))
	model.On(p[2], fakemodel.Tools(edit), fakemodel.Tools(shell), fakemodel.Say("Changed a.txt, wrote b.txt."))
	model.On(p[3], fakemodel.Tools(WriteFile(k, ws, c, "three\n")), fakemodel.Say("Created c.txt."))
	for _, q := range p[4:] {
		model.On(q, fakemodel.Say("Noted."))
	}

	r := e.Prompt(ws, p[1])
	s := r.Session
	if s == "" {
		t.Fatalf("the agent reported no session:\n%s", tail(r.Stdout))
	}
	e.Resume(ws, s, p[2])
	e.Resume(ws, s, p[3])
	wantFiles(t, ws, map[string]string{"a.txt": "two\n", "b.txt": "shell\n", "c.txt": "three\n"})
	if *update {
		saveThreePrompts(t, e, ws, filepath.Join(e.Dir(), "store"), s)
	}

	var log commands.ListResult
	e.cli(t, ws, cli, &log, "log")
	checkThreeTurns(t, log, p[1:4], s, agentName[k], nil, stepTool)
	// Turn 2's steps: the edit, then the shell command.
	var steps []string
	for _, st := range log.Turns[1].Steps {
		var files []string
		for _, f := range st.Changed {
			files = append(files, f.Path)
		}
		steps = append(steps, st.Target+" "+st.Tool+" "+strings.Join(files, ","))
	}
	if want := []string{"2.1 edit a.txt", "2.2 bash b.txt"}; !slices.Equal(steps, want) {
		t.Errorf("turn 2's steps %q, want %q", steps, want)
	}

	var rw commands.RewindResult
	e.cli(t, ws, cli, &rw, "rewind", "2", "--mode", "both")
	if !rw.Applied {
		t.Fatalf("rewind 2 --mode both did not apply: %s", rw.FailureReason)
	}
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": "", "c.txt": ""})
	conv := rw.Conversation
	resume := map[Kind]string{Pi: "pi --session ", Omp: "omp --resume "}[k]
	if conv == nil || conv.Agent != agentName[k] || conv.Session == "" || conv.Session == s || !strings.HasPrefix(conv.Resume, resume) {
		t.Fatalf("the conversation was not forked: %+v", conv)
	}
	t.Logf("fork: %s (%s)", conv.Resume, conv.Transcript)

	// The original session, next: told once of the rewind; then not again.
	e.Resume(ws, s, p[5])
	e.Resume(ws, s, p[6])
	told := map[string]string{}
	for _, h := range byEvent(e.HookRuns(), "UserPromptSubmit") {
		told[h.Field("prompt")] = h.Stdout
	}
	if !strings.Contains(told[p[5]], notice) || !strings.Contains(told[p[5]], "a.txt") {
		t.Errorf("the prompt hook after the rewind printed %q, want the notice", told[p[5]])
	}
	if told[p[6]] != "" {
		t.Errorf("the prompt hook after that printed %q, want nothing", told[p[6]])
	}
	if q := last(model.For(p[5])); q == nil || q.Count(notice) != 1 {
		t.Errorf("the model was not told of the rewind once with the fifth prompt: %v", userTexts(q))
	}
	if q := last(model.For(p[6])); q == nil || q.Count(notice) > 1 {
		t.Errorf("the notice reached the model again with the sixth prompt: %v", userTexts(q))
	}

	var rw1 commands.RewindResult
	e.cli(t, ws, cli, &rw1, "rewind", "turn:1:end", "--mode", "conversation")
	if c := rw1.Conversation; c == nil || c.Session == "" {
		t.Fatalf("rewind turn:1:end --mode conversation forked nothing: %+v", c)
	}

	// The fork, resumed: the model gets the first exchange and nothing after.
	e.Resume(ws, conv.Session, p[4])
	q := last(model.For(p[4]))
	if q == nil {
		for _, r := range model.Requests() {
			t.Logf("request %s %q: %q", r.API, r.Prompt, r.UserTexts())
		}
		t.Fatal("the fork's prompt never reached the model")
	}
	if !q.Mentions(p[1]) || q.Mentions(p[2]) || q.Mentions(p[3]) || q.Mentions(notice) {
		t.Errorf("the resumed fork sent the model more or less than the first exchange:\n%s", strings.Join(q.UserTexts(), "\n---\n"))
	}

	// The conversation at turn 1's end, resumed: the first exchange with
	// its answer, and nothing after.
	e.Resume(ws, rw1.Conversation.Session, p[7])
	q = last(model.For(p[7]))
	answered := q != nil && slices.ContainsFunc(q.Messages, func(m fakemodel.Message) bool {
		return m.Role == "assistant" && strings.Contains(m.Text, "Created a.txt.")
	})
	if !answered || !q.Mentions(p[1]) || q.Mentions(p[2]) || q.Mentions(p[3]) {
		var sent []string
		if q != nil {
			for _, m := range q.Messages {
				sent = append(sent, fmt.Sprintf("%s: %.200s %.200q", m.Role, m.Text, m.Results))
			}
		}
		t.Errorf("the fork at turn 1's end, resumed, did not send the model the first exchange with its answer:\n%s", strings.Join(sent, "\n"))
	}

	for _, h := range e.HookRuns() {
		if h.Exit != 0 || h.Took() > 5*time.Second || h.Stderr != "" {
			t.Errorf("hook %s: exit %d after %v\n%s", h.Event(), h.Exit, h.Took(), h.Stderr)
		}
	}
	logHookTimes(t, e.HookRuns())
	t.Logf("%s: %v in all", k, time.Since(start).Round(time.Millisecond))
}

// TestPiExtensionNeverBlocks: the extension bounds every hook and never
// stops the agent. With a rewind-lsp that never answers, each of a
// prompt's six events is given up after 5 s and the prompt is done all
// the same; with a binary that is not there, the prompt runs as if there
// were no extension, and pi's stderr says why.
func TestPiExtensionNeverBlocks(t *testing.T) {
	model := startModel(t)
	e := New(t, Pi, model)
	ws := workspace(t, e)
	const prompt = "Write a.txt."
	model.On(prompt, fakemodel.Tools(WriteFile(Pi, ws, filepath.Join(ws, "a.txt"), "a\n")), fakemodel.Say("Written."))
	install := func(bin string) {
		src, err := pi.Extension(bin, "pi")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(e.Home, ".pi", "agent", "extensions", "rewind-lsp", "index.ts"), string(src))
	}

	starts := filepath.Join(e.Dir(), "starts")
	hang := filepath.Join(e.Dir(), "bin", "rewind-lsp")
	writeFile(t, hang, fmt.Sprintf("#!/bin/sh\necho \"$@\" >> %s\nexec sleep 60\n", shellQuote(starts)))
	if err := os.Chmod(hang, 0o755); err != nil {
		t.Fatal(err)
	}
	install(hang)
	r := e.Prompt(ws, prompt)
	data, _ := os.ReadFile(starts)
	n := strings.Count(string(data), "hook pi\n")
	t.Logf("with a rewind-lsp that never answers: %d hooks, the prompt took %v", n, r.Took)
	if n != 6 || r.Took > 6*5*time.Second+30*time.Second || !strings.Contains(r.Stderr, "did not answer within 5 s") {
		t.Errorf("%d hooks ran, the prompt took %v; stderr:\n%s", n, r.Took, tail(r.Stderr))
	}
	wantFiles(t, ws, map[string]string{"a.txt": "a\n"})

	os.Remove(filepath.Join(ws, "a.txt"))
	install(filepath.Join(e.Dir(), "gone", "rewind-lsp"))
	r = e.Prompt(ws, prompt)
	t.Logf("with no rewind-lsp: the prompt took %v", r.Took)
	if !strings.Contains(r.Stderr, "cannot run "+filepath.Join(e.Dir(), "gone", "rewind-lsp")) {
		t.Errorf("pi's stderr does not say the binary is missing:\n%s", tail(r.Stderr))
	}
	wantFiles(t, ws, map[string]string{"a.txt": "a\n"})
}

// TestOmpOwnRewind: oh-my-pi's own checkpoint and rewind tools take its
// conversation back and touch no file; rewind-lsp completes them. In one
// prompt the model checkpoints, writes d.txt with its write tool, rewinds
// (its report names what it learnt), then writes e.txt from its bash.
// d.txt is gone again (oh-my-pi alone leaves it), the model read in the
// report oh-my-pi kept for it what rewind-lsp restored, the turn stayed
// open through the rewind and ended with e.txt its only change, the
// rewind is recorded with the report, and `undo` brings d.txt back.
func TestOmpOwnRewind(t *testing.T) {
	model := startModel(t)
	e := New(t, Omp, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	writeFile(t, filepath.Join(e.Home, ".omp", "agent", "config.yml"), "checkpoint:\n  enabled: true\n")
	ws := workspace(t, e)
	cli := setupPi(t, e, ws)
	writeFile(t, filepath.Join(ws, "a.txt"), "a\n")

	const prompt = "Try d.txt; if it is wrong, rewind and write e.txt instead."
	// After the rewind oh-my-pi's model sees its conversation up to the
	// checkpoint and the report: the report's words pick the script.
	const report = "Back from the d.txt idea: it was wrong."
	model.On(prompt,
		fakemodel.Tools(fakemodel.Call{Name: "checkpoint", Args: map[string]any{"goal": "try d.txt"}}),
		fakemodel.Tools(WriteFile(Omp, ws, filepath.Join(ws, "d.txt"), "d\n")),
		fakemodel.Tools(fakemodel.Call{Name: "rewind", Args: map[string]any{"report": report}}))
	model.On(report, fakemodel.Tools(Shell(Omp, "echo e > e.txt")), fakemodel.Say("Wrote e.txt instead."))
	s := e.Prompt(ws, prompt).Session
	wantFiles(t, ws, map[string]string{"a.txt": "a\n", "d.txt": "", "e.txt": "e\n"})

	// What the model read after the rewind: oh-my-pi's report, with
	// rewind-lsp's words in it.
	q := last(model.For(report))
	if q == nil || !q.Mentions("rewind-lsp restored the files you changed since the checkpoint (@agent-1)") || !q.Mentions("delete d.txt") {
		for _, r := range model.Requests() {
			t.Logf("request %q round %d: %q", r.Prompt, r.Round, r.UserTexts())
		}
		t.Fatalf("the model never read what rewind-lsp restored")
	}
	for _, m := range q.Messages {
		if strings.Contains(m.Text, "rewind-lsp restored") {
			t.Logf("the model read (%s): %s", m.Role, m.Text)
		}
	}
	for _, h := range e.HookRuns() {
		if h.Exit != 0 || h.Stderr != "" || h.Took() > 5*time.Second {
			t.Errorf("hook %s: exit %d after %v: %s", h.Event(), h.Exit, h.Took(), h.Stderr)
		}
	}
	logHookTimes(t, e.HookRuns())

	var log commands.ListResult
	e.cli(t, ws, cli, &log, "log")
	if len(log.Turns) != 1 || log.Turns[0].Ended == "" || log.Turns[0].Session != s || len(log.Turns[0].Changed) != 1 || log.Turns[0].Changed[0].Path != "e.txt" {
		t.Fatalf("want one ended turn of session %s that changed e.txt only: %+v", s, log.Turns)
	}
	if len(log.Rewinds) != 1 || log.Rewinds[0].Target != "@agent-1" || !log.Rewinds[0].Applied || len(log.Summaries) != 1 || log.Summaries[0].Report != report {
		t.Errorf("the rewind to the checkpoint is not recorded with its report: %+v %+v", log.Rewinds, log.Summaries)
	}

	var un commands.RewindResult
	e.cli(t, ws, cli, &un, "undo")
	if !un.Applied {
		t.Fatalf("undo did not apply: %s", un.FailureReason)
	}
	wantFiles(t, ws, map[string]string{"a.txt": "a\n", "d.txt": "d\n", "e.txt": "e\n"})
}

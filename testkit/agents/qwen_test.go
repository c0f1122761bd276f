package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// Qwen Code is driven by tests of its own: its hooks run UserPromptSubmit
// again before each request that carries tool results (with an empty
// prompt), it runs no SessionEnd with a prompt on its command line, and it
// edits only files it read in the same process, so the shared tests'
// scripts do not fit it as they are.

// TestQwenFirstPrompt runs the real Qwen Code on one prompt in which the
// model writes a file with write_file and another from run_shell_command,
// every hook event recorded, and checks what its hooks were told: the
// events in order — the prompt's UserPromptSubmit again, with an empty
// prompt and the same prompt_id, before each request that carries a
// tool's result, and no SessionEnd — the session, the folder, the prompt,
// the tools and their inputs. With -update it keeps the payloads and the
// transcript in agent/testdata/qwen.
func TestQwenFirstPrompt(t *testing.T) {
	model := startModel(t)
	e := New(t, Qwen, model)
	e.SetHooks(e.HookRecorder())
	ws := workspace(t, e)
	a := filepath.Join(ws, "a.txt")
	write, shell := WriteFile(Qwen, ws, a, "hello\n"), Shell(Qwen, "echo shell > b.txt")
	const prompt = "Write a.txt, then b.txt from the shell."
	model.On(prompt, fakemodel.Tools(write), fakemodel.Tools(shell), fakemodel.Say("Both written."))

	r := e.Prompt(ws, prompt)
	t.Logf("qwen ran in %v, session %s", r.Took, r.Session)
	if r.Session == "" {
		t.Fatalf("no session id in the output:\n%s", tail(r.Stdout))
	}
	wantFiles(t, ws, map[string]string{"a.txt": "hello\n", "b.txt": "shell\n"})
	if n := len(model.For(prompt)); n != 3 {
		t.Fatalf("%d requests answered from the script, want 3", n)
	}

	runs := e.HookRuns()
	var got []string
	for _, h := range runs {
		got = append(got, h.Event())
		if h.Exit != 0 {
			t.Errorf("hook %s exited %d", h.Event(), h.Exit)
		}
	}
	want := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "UserPromptSubmit",
		"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"}
	if !slices.Equal(got, want) {
		t.Fatalf("hook events %v, want %v", got, want)
	}
	promptID := r.Session + "########0"
	for i, h := range runs {
		if s := sessionField(h); s != r.Session {
			t.Errorf("%s: session %q, want %q", h.Event(), s, r.Session)
		}
		if c := h.Field("cwd"); c != ws {
			t.Errorf("%s: cwd %q, want %q", h.Event(), c, ws)
		}
		if p := h.Field("prompt_id"); i > 0 && p != promptID {
			t.Errorf("%s: prompt_id %q, want %q", h.Event(), p, promptID)
		}
		if tr := h.Field("transcript_path"); !strings.HasSuffix(tr, "/chats/"+r.Session+".jsonl") || !strings.HasPrefix(tr, e.Home+"/.qwen/projects/") {
			t.Errorf("%s: transcript_path %q", h.Event(), tr)
		}
	}
	prompts := byEvent(runs, "UserPromptSubmit")
	if prompts[0].Field("prompt") != prompt || prompts[1].Field("prompt") != "" || prompts[2].Field("prompt") != "" {
		t.Errorf("UserPromptSubmit prompts %q, %q, %q; want the prompt, then empty twice",
			prompts[0].Field("prompt"), prompts[1].Field("prompt"), prompts[2].Field("prompt"))
	}
	tools := byEvent(runs, "PreToolUse", "PostToolUse")
	for i, call := range []fakemodel.Call{write, write, shell, shell} {
		name, input := toolOf(t, Qwen, tools[i])
		switch {
		case name != call.Name:
			t.Errorf("%s %d: tool %q, want %q", tools[i].Event(), i, name, call.Name)
		case call.Name == shell.Name && input["command"] != "echo shell > b.txt":
			t.Errorf("%s: shell input %v", tools[i].Event(), input)
		case call.Name == write.Name && input["file_path"] != a:
			t.Errorf("%s: write input %v", tools[i].Event(), input)
		}
		if i%2 == 1 && tools[i].Field("tool_use_id") != tools[i-1].Field("tool_use_id") {
			t.Errorf("the Pre and Post events of %s name two ids: %q, %q", name, tools[i-1].Field("tool_use_id"), tools[i].Field("tool_use_id"))
		}
	}
	if *update {
		saveFixtures(t, e, ws, runs)
	}
}

// qwenHome is the folder Qwen Code keeps its settings, sessions and file
// history in.
func qwenHome(e *Env) string { return filepath.Join(e.Home, ".qwen") }

// qwenTranscript reads the transcript of a Qwen Code session.
func qwenTranscript(t *testing.T, e *Env, session string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(qwenHome(e), "projects", "*", "chats", session+".jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts of session %s: %v", session, files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// qwenSetup starts Qwen Code as a person has it after `rewind-lsp setup
// qwen --user` (which keeps the settings already there, leaves no step to
// the person, and changes nothing run again): the hooks setup wrote run a
// recorder of the rewind-lsp under test, with the store in the test's
// folder. It returns the
// workspace and the rewind-lsp a person runs (not recorded).
func qwenSetup(t *testing.T, e *Env) (ws, cli string) {
	t.Helper()
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws = workspace(t, e)
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)
	settings := filepath.Join(qwenHome(e), "settings.json")
	r := e.Exec(ws, rl, "setup", "qwen", "--user")
	if r.Exit != 0 || !strings.Contains(r.Stdout, settings) || strings.Contains(r.Stdout, "one more step") {
		t.Fatalf("setup qwen: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	t.Logf("setup: %s", strings.TrimSpace(r.Stdout))
	// The settings the test's Qwen Code started with are kept; a second
	// setup changes nothing.
	data, _ := os.ReadFile(settings)
	var kept struct {
		Security struct{ Auth struct{ SelectedType string } }
		General  struct{ EnableAutoUpdate *bool }
		Privacy  struct{ UsageStatisticsEnabled *bool }
	}
	if err := json.Unmarshal(data, &kept); err != nil || kept.Security.Auth.SelectedType != "openai" ||
		kept.General.EnableAutoUpdate == nil || kept.Privacy.UsageStatisticsEnabled == nil {
		t.Fatalf("setup qwen lost the settings already there (%v):\n%s", err, data)
	}
	if r := e.Exec(ws, rl, "setup", "qwen", "--user"); r.Exit != 0 || !strings.Contains(r.Stdout, "nothing changed") {
		t.Fatalf("second setup qwen: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	if again, _ := os.ReadFile(settings); string(again) != string(data) {
		t.Fatalf("a second setup qwen changed %s", settings)
	}
	e.Instrument(rl)
	return ws, rl + ".real"
}

// TestQwenRewind drives the real Qwen Code as a person would, after
// `rewind-lsp setup qwen --user`: three prompts — write_file creates a.txt;
// read_file, edit changes it and run_shell_command writes b.txt; write_file
// creates c.txt — then `log` shows three turns with their prompts, session,
// agent, files and steps (the tool calls that changed files; read_file is
// none); `rewind 2 --mode both` puts the files back and forks the
// conversation; the original session's next prompt carries the notice
// (in Qwen Code's <qwen:user-prompt-submit-context> part) and the one after
// does not, though its UserPromptSubmit runs again before every tool
// result; the fork, resumed with `qwen --resume <id>`, sends the model only
// the first exchange; a fork at turn 1's end sends it with its answer;
// every hook answers within 5 s.
func TestQwenRewind(t *testing.T) {
	model := startModel(t)
	e := New(t, Qwen, model)
	ws, cli := qwenSetup(t, e)

	a, c := filepath.Join(ws, "a.txt"), filepath.Join(ws, "c.txt")
	p := []string{"", "First: create a.txt.", "Second: change a.txt and write b.txt from the shell.", "Third: create c.txt.",
		"Fourth, on the fork: what do you remember?", "Fifth, back on the first session.", "Sixth, still there.",
		"Seventh, on the fork at turn 1's end."}
	model.On(p[1], fakemodel.Tools(WriteFile(Qwen, ws, a, "one\n")), fakemodel.Say("Created a.txt."))
	model.On(p[2], fakemodel.Tools(ReadFile(Qwen, a)), fakemodel.Tools(EditFile(Qwen, ws, a, "one", "two")),
		fakemodel.Tools(Shell(Qwen, "echo shell > b.txt")), fakemodel.Say("Changed a.txt, wrote b.txt."))
	model.On(p[3], fakemodel.Tools(WriteFile(Qwen, ws, c, "three\n")), fakemodel.Say("Created c.txt."))
	model.On(p[5], fakemodel.Tools(Shell(Qwen, "true")), fakemodel.Say("Noted."))
	model.On(p[6], fakemodel.Tools(Shell(Qwen, "true")), fakemodel.Say("Noted."))
	for _, q := range []string{p[4], p[7]} {
		model.On(q, fakemodel.Say("Noted."))
	}

	s := e.Prompt(ws, p[1]).Session
	if s == "" {
		t.Fatal("Qwen Code reported no session")
	}
	e.Resume(ws, s, p[2])
	e.Resume(ws, s, p[3])
	wantFiles(t, ws, map[string]string{"a.txt": "two\n", "b.txt": "shell\n", "c.txt": "three\n"})
	if *update {
		saveThreePrompts(t, e, ws, filepath.Join(e.Dir(), "store"), s)
	}

	var log commands.ListResult
	e.cli(t, ws, cli, &log, "log")
	checkThreeTurns(t, log, p[1:4], s, "qwen", [][]string{{"write_file a.txt"}, {"edit a.txt", "run_shell_command b.txt"}, {"write_file c.txt"}}, stepToolFiles)

	var rw commands.RewindResult
	e.cli(t, ws, cli, &rw, "rewind", "2", "--mode", "both")
	if !rw.Applied {
		t.Fatalf("rewind 2 --mode both did not apply: %s", rw.FailureReason)
	}
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": "", "c.txt": ""})
	conv := rw.Conversation
	if conv == nil || conv.Agent != "qwen" || conv.Session == "" || conv.Session == s || conv.Resume != "qwen --resume "+conv.Session {
		t.Fatalf("the conversation was not forked: %+v", conv)
	}
	t.Logf("fork: %s (%s)", conv.Resume, conv.Transcript)

	// The original session, next: told once of the rewind, in its own
	// channel, though its prompt hook runs again before each tool result;
	// then not again.
	e.Resume(ws, s, p[5])
	e.Resume(ws, s, p[6])
	told := map[string][]string{}
	for _, h := range byEvent(e.HookRuns(), "UserPromptSubmit") {
		if h.Stdout != "" {
			told[h.Field("prompt")] = append(told[h.Field("prompt")], h.Stdout)
		}
	}
	if len(told) != 1 || len(told[p[5]]) != 1 || !strings.Contains(told[p[5]][0], notice) || !strings.Contains(told[p[5]][0], "a.txt") ||
		!strings.HasPrefix(told[p[5]][0], `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":`) {
		t.Errorf("the prompt hooks printed %q, want the notice once, at the fifth prompt", told)
	}
	for i, q := range model.For(p[5]) {
		if n := q.Count(notice); n != 1 || !q.Mentions("<qwen:user-prompt-submit-context>") {
			t.Errorf("request %d of the fifth prompt carries the notice %d times (want once, in Qwen Code's context part)", i, n)
		}
	}
	if q := last(model.For(p[6])); q == nil || q.Count(notice) > 1 {
		t.Errorf("the notice reached the model again with the sixth prompt")
	}

	// The conversation at turn 1's end, forked while the first session
	// still ends where it did.
	var rw1 commands.RewindResult
	e.cli(t, ws, cli, &rw1, "rewind", "turn:1:end", "--mode", "conversation")
	if c := rw1.Conversation; c == nil || c.Session == "" || c.Resume != "qwen --resume "+c.Session {
		t.Fatalf("rewind turn:1:end --mode conversation forked nothing: %+v", c)
	}

	// The fork, resumed: the model gets the first exchange and nothing after.
	e.Resume(ws, conv.Session, p[4])
	q := last(model.For(p[4]))
	if q == nil {
		t.Fatal("the fork's prompt never reached the model")
	}
	if !q.Mentions(p[1]) || q.Mentions(p[2]) || q.Mentions(p[3]) || q.Mentions(notice) {
		t.Errorf("the resumed fork sent the model more or less than the first exchange:\n%s", strings.Join(q.UserTexts(), "\n---\n"))
	}
	if orig := qwenTranscript(t, e, s); strings.Contains(orig, conv.Session) {
		t.Error("the original transcript names the fork")
	}

	// The conversation at turn 1's end, resumed: the first exchange
	// whole, its answer included, and nothing after.
	e.Resume(ws, rw1.Conversation.Session, p[7])
	q = last(model.For(p[7]))
	answered := q != nil && slices.ContainsFunc(q.Messages, func(m fakemodel.Message) bool {
		return m.Role == "assistant" && strings.Contains(m.Text, "Created a.txt.")
	})
	if !answered || !q.Mentions(p[1]) || q.Mentions(p[2]) || q.Mentions(p[3]) {
		t.Errorf("the fork at turn 1's end, resumed, did not send the model the first exchange with its answer:\n%s", strings.Join(userTexts(q), "\n---\n"))
	}

	for _, h := range e.HookRuns() {
		if h.Exit != 0 || h.Took() > 5*time.Second || h.Stderr != "" {
			t.Errorf("hook %s: exit %d after %v\n%s", h.Event(), h.Exit, h.Took(), h.Stderr)
		}
	}
	logHookTimes(t, e.HookRuns())
}

// TestQwenMCPToolSteps: a tool of another MCP server that writes a file is
// a step like Qwen Code's own tools (the shared test, its MCP tools named
// mcp__<server>__<tool>).
func TestQwenMCPToolSteps(t *testing.T) { mcpToolSteps(t, Qwen) }

// TestQwenSteps: after `rewind-lsp setup qwen --user`, one prompt of five
// tool calls — write_file creates a.txt, read_file reads it, edit changes
// it, run_shell_command writes b.txt, and another writes f.txt and fails
// (exit 3: Qwen Code runs PostToolUseFailure, not PostToolUse) — and `log`
// lists the turn's four steps (reading changed nothing) with their tools
// and files; `rewind 1.2` puts back the state after step 1; `undo` brings
// the turn's end back; `revert 1.2` takes back step 2 alone. Every hook,
// PostToolUseFailure's included, answers within 5 s.
func TestQwenSteps(t *testing.T) {
	model := startModel(t)
	e := New(t, Qwen, model)
	ws, cli := qwenSetup(t, e)
	a := filepath.Join(ws, "a.txt")
	prompt := "Create a.txt, change it, then write b.txt and f.txt from the shell."
	model.On(prompt, fakemodel.Tools(WriteFile(Qwen, ws, a, "one\n")), fakemodel.Tools(ReadFile(Qwen, a)),
		fakemodel.Tools(EditFile(Qwen, ws, a, "one", "two")), fakemodel.Tools(Shell(Qwen, "echo shell > b.txt")),
		fakemodel.Tools(Shell(Qwen, "echo f > f.txt; exit 3")), fakemodel.Say("Done."))
	e.Prompt(ws, prompt)
	end := map[string]string{"a.txt": "two\n", "b.txt": "shell\n", "f.txt": "f\n"}
	wantFiles(t, ws, end)
	if n := len(byEvent(e.HookRuns(), "PostToolUseFailure")); n != 1 {
		t.Errorf("%d PostToolUseFailure hook runs, want 1 (the shell command that failed)", n)
	}

	var log commands.ListResult
	e.cli(t, ws, cli, &log, "log")
	if len(log.Turns) != 1 {
		t.Fatalf("log shows %d turns, want 1: %+v", len(log.Turns), log.Turns)
	}
	var steps []string
	for _, st := range log.Turns[0].Steps {
		var files []string
		for _, c := range st.Changed {
			files = append(files, c.Path)
		}
		steps = append(steps, st.Target+" "+st.Tool+" "+strings.Join(files, ","))
	}
	if want := []string{"1.1 write_file a.txt", "1.2 edit a.txt", "1.3 run_shell_command b.txt", "1.4 run_shell_command f.txt"}; !slices.Equal(steps, want) {
		t.Fatalf("steps %q, want %q", steps, want)
	}

	var rw commands.RewindResult
	e.cli(t, ws, cli, &rw, "rewind", "1.2")
	if !rw.Applied {
		t.Fatalf("rewind 1.2 did not apply: %s", rw.FailureReason)
	}
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": "", "f.txt": ""})
	e.cli(t, ws, cli, &rw, "undo")
	if !rw.Applied {
		t.Fatalf("undo did not apply: %s", rw.FailureReason)
	}
	wantFiles(t, ws, end)
	e.cli(t, ws, cli, &rw, "revert", "1.2")
	if !rw.Applied {
		t.Fatalf("revert 1.2 did not apply: %s", rw.FailureReason)
	}
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": "shell\n", "f.txt": "f\n"})
	for _, h := range e.HookRuns() {
		if h.Exit != 0 || h.Took() > 5*time.Second || h.Stderr != "" {
			t.Errorf("hook %s: exit %d after %v: %s", h.Event(), h.Exit, h.Took(), h.Stderr)
		}
	}
	logHookTimes(t, e.HookRuns())
}

// TestQwenNamesItsSession: Qwen Code names its session to its shell's
// commands and to the MCP servers it starts in QWEN_CODE_SESSION_ID (the
// shared test), in a session and in that session resumed.
func TestQwenNamesItsSession(t *testing.T) { agentSessionEnv(t, Qwen) }

// TestQwenOwnRewindKeepsTheTurn: in one prompt the model checkpoints from
// its shell, writes d.txt with write_file, rewinds from its shell and
// writes e.txt from it (the shared test): the rewind is Qwen Code's own
// (its shell names the session), so d.txt is no conflict, the turn stays
// open and ends with e.txt only, and revert of the session takes it back.
func TestQwenOwnRewindKeepsTheTurn(t *testing.T) { ownRewind(t, Qwen) }

package agents

import (
	"encoding/json"
	"fmt"
	"io"
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

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == mcpWriterArg {
		os.Exit(serveMCPWriter())
	}
	os.Exit(testkit.Main(m))
}

// agentName is each agent's name on rewind-lsp's command line.
var agentName = map[Kind]string{Claude: "claude-code", Codex: "codex", Gemini: "gemini", Copilot: "copilot", Qwen: "qwen", OpenCode: "opencode", Kilo: "kilo"}

// notice is how every rewind-lsp notice to an agent begins.
const notice = "rewind-lsp: since your last prompt"

// TestRewindRealAgents drives each real agent as a person would, after
// `rewind-lsp setup <agent> --user` (nothing else makes its hooks run):
// three prompts — a file tool write; an edit plus a shell write; another
// write — then `log` shows three turns with their prompts, session, agent
// and files; `rewind 2 --mode both` puts the files back and forks the
// conversation; the original session's next prompt carries the notice and
// the one after does not; the fork, resumed with a new prompt, sends the
// model only the first exchange; every hook answers within 5 s.
//
// Gemini CLI deletes a session once it was resumed in a later minute than
// the one its file is named after and another session starts (see
// geminiResumedLater). Every Gemini run here is made one whose resumes
// crossed a minute, as a slow run's do, so the first session is gone as
// soon as a fork is resumed: both conversation rewinds of the first
// session are made before that, and one made after is refused, saying
// the session is gone.
func TestRewindRealAgents(t *testing.T) {
	for _, k := range All {
		t.Run(string(k), func(t *testing.T) { rewindAgent(t, k) })
	}
}

func rewindAgent(t *testing.T, k Kind) {
	model := startModel(t)
	e := New(t, k, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)

	r := e.Exec(ws, rl, "setup", agentName[k], "--user")
	if r.Exit != 0 || strings.Contains(r.Stdout, "one more step") {
		t.Fatalf("setup %s: exit %d\n%s%s", agentName[k], r.Exit, r.Stdout, r.Stderr)
	}
	t.Logf("setup: %s", strings.TrimSpace(r.Stdout))
	e.Instrument(rl)    // the hooks setup wrote (and Codex trusted) run it, recorded
	cli := rl + ".real" // the person's own commands are not hook runs

	a, c := filepath.Join(ws, "a.txt"), filepath.Join(ws, "c.txt")
	p := []string{"", "First: create a.txt.", "Second: change a.txt and write b.txt from the shell.", "Third: create c.txt.",
		"Fourth, on the fork: what do you remember?", "Fifth, back on the first session.", "Sixth, still there.",
		"Seventh, on the fork at turn 1's end."}
	model.On(p[1], fakemodel.Tools(WriteFile(k, ws, a, "one\n")), fakemodel.Say("Created a.txt."))
	model.On(p[2], fakemodel.Tools(EditFile(k, ws, a, "one", "two")), fakemodel.Tools(Shell(k, "echo shell > b.txt")), fakemodel.Say("Changed a.txt, wrote b.txt."))
	model.On(p[3], fakemodel.Tools(WriteFile(k, ws, c, "three\n")), fakemodel.Say("Created c.txt."))
	for _, q := range p[4:] {
		model.On(q, fakemodel.Say("Noted."))
	}

	s := e.Prompt(ws, p[1]).Session
	if s == "" {
		t.Fatal("the agent reported no session")
	}
	e.Resume(ws, s, p[2])
	e.Resume(ws, s, p[3])
	wantFiles(t, ws, map[string]string{"a.txt": "two\n", "b.txt": "shell\n", "c.txt": "three\n"})
	if *update {
		saveThreePrompts(t, e, ws, filepath.Join(e.Dir(), "store"), s)
	}
	if k == Gemini {
		geminiResumedLater(t, e, s)
	}

	var log commands.ListResult
	e.cli(t, ws, cli, &log, "log")
	checkThreeTurns(t, log, p[1:4], s, agentName[k], nil, stepTool)

	var rw commands.RewindResult
	e.cli(t, ws, cli, &rw, "rewind", "2", "--mode", "both")
	if !rw.Applied {
		t.Fatalf("rewind 2 --mode both did not apply: %s", rw.FailureReason)
	}
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": "", "c.txt": ""})
	conv := rw.Conversation
	if conv == nil || conv.Agent != agentName[k] || conv.Session == "" || conv.Session == s || !strings.HasPrefix(conv.Resume, e.Kind.command()+" ") {
		t.Fatalf("the conversation was not forked: %+v", conv)
	}
	t.Logf("fork: %s (%s)", conv.Resume, conv.Transcript)

	// The original session, next: told once of the rewind, in its own
	// channel; then not again. (Before a fork runs: Gemini CLI deletes a
	// session resumed in a later minute when another one starts.)
	e.Resume(ws, s, p[5])
	e.Resume(ws, s, p[6])
	prompts := byEvent(e.HookRuns(), events[k][1])
	told := map[string]string{}
	for _, h := range prompts {
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
		t.Errorf("the notice reached the model again with the sixth prompt")
	}

	// The conversation at turn 1's end, forked while the first session is
	// still there (resumed below).
	var rw1 commands.RewindResult
	e.cli(t, ws, cli, &rw1, "rewind", "turn:1:end", "--mode", "conversation")
	if c := rw1.Conversation; c == nil || c.Session == "" {
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

	// The conversation at turn 1's end, resumed: the first exchange
	// whole, its answer included, and nothing after.
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

	// Two other sessions started since the first one was resumed "in a
	// later minute": Gemini CLI deleted it (its cleanup runs unawaited at
	// each start, so one start alone might exit before it is done). A
	// conversation rewind to one of its turns now says so.
	if k == Gemini {
		if left := geminiFiles(t, e, s); len(left) > 0 {
			t.Fatalf("Gemini CLI kept the first session's files %v after other sessions started: this run did not take the path of a slow one", left)
		}
		var gone commands.RewindResult
		e.cli(t, ws, cli, &gone, "rewind", "turn:1:end", "--mode", "conversation")
		if c := gone.Conversation; c == nil || c.Session != "" || !strings.Contains(c.Reason, "no longer has session "+s) {
			t.Errorf("a conversation rewind into the deleted session: %+v", c)
		}
	}

	for _, h := range e.HookRuns() {
		if h.Exit != 0 || h.Took() > 5*time.Second {
			t.Errorf("hook %s: exit %d after %v\n%s", h.Event(), h.Exit, h.Took(), h.Stderr)
		}
	}
	logHookTimes(t, e.HookRuns())
}

// geminiResumedLater leaves in the chats folder of Gemini CLI's session
// what the CLI itself leaves there when it resumes the session in a later
// minute than the one the session's file is named after: a second file of
// the session, named after the later minute, that holds only a header and
// the session context (the CLI starts it before it loads the session, then
// writes to the session's own file). At its next start in another session
// the CLI takes that file for a broken session and deletes every file of
// the session. A run whose resumes cross a minute does this by itself; the
// file made here makes every run one of those.
func geminiResumedLater(t *testing.T, e *Env, session string) {
	t.Helper()
	file := ""
	for _, h := range e.HookRuns() {
		if h.Event() == "BeforeAgent" && sessionField(h) == session {
			file = h.Field("transcript_path") // the session's own file (SessionStart's may be another)
		}
	}
	stamp, ok := strings.CutPrefix(filepath.Base(file), "session-")
	var minute time.Time
	var err error
	if ok && len(stamp) > 16 {
		minute, err = time.Parse("2006-01-02T15-04", stamp[:16])
	}
	if !ok || len(stamp) <= 16 || err != nil {
		t.Fatalf("Gemini CLI's session file %q is not named session-<minute>-<id>.jsonl", file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The header and the session context: the file's first two lines.
	lines := strings.SplitAfterN(string(data), "\n", 3)
	if len(lines) < 3 || !strings.Contains(lines[0], `"sessionId":"`+session+`"`) || !strings.Contains(lines[1], "<session_context>") {
		t.Fatalf("Gemini CLI's session file %s does not begin with a header and the session context:\n%.400s", file, data)
	}
	later := filepath.Join(filepath.Dir(file), "session-"+minute.Add(time.Minute).Format("2006-01-02T15-04")+"-"+session[:8]+".jsonl")
	f, err := os.OpenFile(later, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.WriteString(lines[0] + lines[1])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// geminiFiles lists the files of Gemini CLI's chats folders named after
// session (its first 8 characters).
func geminiFiles(t *testing.T, e *Env, session string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", "chats", "session-*-"+session[:8]+".json*"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// command is the agent's command, as its resume commands begin.
func (k Kind) command() string { return string(k) }

// cli runs rewind-lsp --json in dir and decodes its output into v.
func (e *Env) cli(t *testing.T, dir, rl string, v any, args ...string) {
	t.Helper()
	r := e.Exec(dir, rl, append([]string{"--json"}, args...)...)
	if r.Exit != 0 {
		t.Fatalf("rewind-lsp %s: exit %d\n%s%s", strings.Join(args, " "), r.Exit, r.Stdout, r.Stderr)
	}
	if err := json.Unmarshal([]byte(r.Stdout), v); err != nil {
		t.Fatalf("rewind-lsp %s: %v\n%s", strings.Join(args, " "), err, r.Stdout)
	}
}

// wantFiles checks the workspace's files; "" means the file must not exist.
func wantFiles(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	for name, content := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case content == "" && !os.IsNotExist(err):
			t.Errorf("%s exists (%q), want it gone", name, got)
		case content != "" && (err != nil || string(got) != content):
			t.Errorf("%s = %q, %v; want %q", name, got, err, content)
		}
	}
}

// logHookTimes logs the slowest run of each hook event.
func logHookTimes(t *testing.T, runs []HookRun) {
	worst := map[string]time.Duration{}
	var order []string
	for _, h := range runs {
		if _, ok := worst[h.Event()]; !ok {
			order = append(order, h.Event())
		}
		worst[h.Event()] = max(worst[h.Event()], h.Took())
	}
	var parts []string
	for _, ev := range order {
		parts = append(parts, fmt.Sprintf("%s %v", ev, worst[ev].Round(time.Millisecond)))
	}
	t.Logf("%d hook runs; slowest per event: %s", len(runs), strings.Join(parts, ", "))
}

func userTexts(q *fakemodel.Request) []string {
	if q == nil {
		return nil
	}
	return q.UserTexts()
}

func last(rs []*fakemodel.Request) *fakemodel.Request {
	if len(rs) == 0 {
		return nil
	}
	return rs[len(rs)-1]
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

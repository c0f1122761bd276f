package main_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/agents"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// The real Claude Code (scripts/agents/install.sh) driven against the
// scripted model, with rewind-lsp's hooks installed by `setup claude-code`
// and its MCP server added with `claude mcp add`, as a person would.

// realHookBudget is what every hook run must stay under.
const realHookBudget = 5 * time.Second

// realClaude is one real Claude Code in a fresh home, hooked to the
// rewind-lsp under test, in a git repository.
type realClaude struct {
	t     *testing.T
	e     *agents.Env
	model *fakemodel.Server
	ws    string
	home  string // REWIND_LSP_HOME of the hooks, the MCP server and cli
	rl    string // the rewind-lsp the hooks and the MCP server run
}

func newRealClaude(t *testing.T) *realClaude {
	t.Helper()
	model, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	e := agents.New(t, agents.Claude, model)
	c := &realClaude{t: t, e: e, model: model, ws: filepath.Join(e.Dir(), "project"), home: filepath.Join(e.Dir(), "rewind-home"),
		rl: filepath.Join(e.Dir(), "bin", "rewind-lsp")}
	os.MkdirAll(c.ws, 0o755)
	if out, err := exec.Command("git", "-C", c.ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	os.MkdirAll(filepath.Dir(c.rl), 0o755)
	data, err := os.ReadFile(testkit.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.rl, data, 0o755); err != nil {
		t.Fatal(err)
	}
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+c.home)
	// The person's settings: MCP tools of the server "rewind" allowed.
	settings := filepath.Join(e.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"permissions": {"allow": ["mcp__rewind"]}}`+"\n"), 0o644)
	c.setup()
	return c
}

// setup runs `rewind-lsp setup claude-code --user` and adds the MCP server,
// in the agent's home. Every hook run is recorded with its time: the hooks
// name c.rl, which becomes a recorder of the real binary (c.rl.real); the
// MCP server, which talks on its stdin, runs the real binary.
func (c *realClaude) setup() {
	c.t.Helper()
	cmd := exec.Command(c.rl, "setup", "claude-code", "--user")
	cmd.Env = append(os.Environ(), "HOME="+c.e.Home)
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("setup: %v\n%s", err, out)
	}
	c.e.Instrument(c.rl)
	cmd = exec.Command(c.e.Cmd, "mcp", "add", "-s", "user", "rewind", "--", c.rl+".real", "mcp")
	cmd.Env = append(os.Environ(), "HOME="+c.e.Home, "PATH="+c.e.Bin+":"+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("claude mcp add: %v\n%s", err, out)
	}
}

// cli runs rewind-lsp on the workspace, as the person would in a terminal.
func (c *realClaude) cli(args ...string) result {
	c.t.Helper()
	cmd := exec.Command(c.rl+".real", append([]string{"--root", c.ws}, args...)...)
	cmd.Env = append(os.Environ(), "REWIND_LSP_HOME="+c.home)
	out, err := cmd.Output()
	r := result{stdout: string(out)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code, r.stderr = ee.ExitCode(), string(ee.Stderr)
	} else if err != nil {
		c.t.Fatal(err)
	}
	return r
}

func (c *realClaude) cliJSON(v any, args ...string) {
	c.t.Helper()
	r := c.cli(append([]string{"--json"}, args...)...)
	if r.code != 0 {
		c.t.Fatalf("rewind-lsp %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		c.t.Fatalf("rewind-lsp --json %v: %v\n%s", args, err, r.stdout)
	}
}

func (c *realClaude) read(rel string) string {
	data, err := os.ReadFile(filepath.Join(c.ws, rel))
	if err != nil {
		return "<missing>"
	}
	return string(data)
}

func (c *realClaude) write(rel, content string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.ws, rel), []byte(content), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// checkHooks fails the test for a hook run that failed, took realHookBudget or
// more, or complained on stderr (except what allow matches), and logs the
// slowest run of each event.
func (c *realClaude) checkHooks(allow *regexp.Regexp) {
	c.t.Helper()
	slowest := map[string]time.Duration{}
	for _, h := range c.e.HookRuns() {
		if h.Exit != 0 {
			c.t.Errorf("hook %s exited %d: %s", h.Event(), h.Exit, h.Stderr)
		}
		if h.Took() >= realHookBudget {
			c.t.Errorf("hook %s took %v", h.Event(), h.Took())
		}
		if h.Stderr != "" && (allow == nil || !allow.MatchString(h.Stderr)) {
			c.t.Errorf("hook %s said on stderr: %s", h.Event(), h.Stderr)
		}
		if h.Took() > slowest[h.Event()] {
			slowest[h.Event()] = h.Took()
		}
	}
	c.t.Logf("slowest hook run per event: %v", slowest)
}

// turns is the log's turns.
type realTurn struct {
	Turn    int    `json:"turn"`
	Prompt  string `json:"prompt"`
	Ended   string `json:"ended"`
	Session string `json:"session"`
	Changed []struct {
		Path   string `json:"path"`
		Change string `json:"change"`
	} `json:"changed"`
}

func (c *realClaude) turns(all bool) []realTurn {
	c.t.Helper()
	var l struct {
		Turns []realTurn `json:"turns"`
	}
	args := []string{"log"}
	if all {
		args = append(args, "--all")
	}
	c.cliJSON(&l, args...)
	return l.Turns
}

func changedPaths(t realTurn) []string {
	var out []string
	for _, ch := range t.Changed {
		out = append(out, ch.Path)
	}
	return out
}

// mcpTool is the model's call of one of rewind-lsp's MCP tools; Claude
// Code defers MCP tools, so the model loads them first (loadTools).
func mcpTool(name string, args map[string]any) fakemodel.Call {
	return fakemodel.Call{Name: "mcp__rewind__" + name, Args: args}
}

func loadTools(names ...string) fakemodel.Call {
	for i, n := range names {
		names[i] = "mcp__rewind__" + n
	}
	return fakemodel.Call{Name: "ToolSearch", Args: map[string]any{"query": "select:" + strings.Join(names, ",")}}
}

// TestRealClaudeMCPRewindInTurn: in one prompt the model checkpoints over
// MCP, writes d.txt, rewinds over MCP and writes e.txt from its shell. The
// turn stays open through its own rewind; its Stop ends it with e.txt
// only; nothing is a conflict; revert of the session takes e.txt back.
func TestRealClaudeMCPRewindInTurn(t *testing.T) {
	c := newRealClaude(t)
	c.write("a.txt", "a\n")
	const prompt = "Try d.txt; if it is wrong, rewind and write e.txt instead."
	c.model.On(prompt,
		fakemodel.Tools(loadTools("checkpoint", "rewind")),
		fakemodel.Tools(mcpTool("checkpoint", map[string]any{"goal": "try d.txt"})),
		fakemodel.Tools(agents.WriteFile(agents.Claude, c.ws, filepath.Join(c.ws, "d.txt"), "d\n")),
		fakemodel.Tools(mcpTool("rewind", map[string]any{"report": "d.txt was the wrong idea"})),
		fakemodel.Tools(agents.Shell(agents.Claude, "echo e > e.txt")),
		fakemodel.Say("Wrote e.txt instead."))
	r := c.e.Prompt(c.ws, prompt)
	for _, q := range c.model.For(prompt) {
		if q.Round == 4 && !q.Mentions("Restored 1 files to checkpoint agent-1: delete d.txt") {
			t.Fatalf("the MCP rewind's answer did not reach the model: %+v", q.Messages[len(q.Messages)-1])
		}
	}
	if c.read("d.txt") != "<missing>" || c.read("e.txt") != "e\n" {
		t.Fatalf("d.txt %q, e.txt %q", c.read("d.txt"), c.read("e.txt"))
	}
	ts := c.turns(false)
	if len(ts) != 1 || ts[0].Ended == "" || ts[0].Session != r.Session || strings.Join(changedPaths(ts[0]), ",") != "e.txt" {
		t.Fatalf("want one ended turn of session %s that changed e.txt only: %+v", r.Session, ts)
	}
	c.checkHooks(nil) // the Stop hook found its turn open
	var plan struct {
		Files []struct {
			Path     string
			Conflict bool
		}
	}
	c.cliJSON(&plan, "rewind", "1", "--dry-run")
	for _, f := range plan.Files {
		if f.Conflict {
			t.Errorf("%s is a conflict for a rewind to turn 1", f.Path)
		}
	}
	if out := c.cli("revert", "--session", r.Session); out.code != 0 {
		t.Fatalf("revert --session: exit %d %s", out.code, out.stderr)
	}
	if c.read("e.txt") != "<missing>" || c.read("a.txt") != "a\n" {
		t.Fatalf("after revert --session: e.txt %q, a.txt %q", c.read("e.txt"), c.read("a.txt"))
	}
}

// TestRealClaudeConversationNotice: after `rewind 2 --mode conversation`
// the files stay; `claude --resume <fork>` sends the model only the first
// exchange, and with the new prompt the notice naming the files that
// differ from before turn 2 and who changed them; the fork's next prompt
// carries no notice.
func TestRealClaudeConversationNotice(t *testing.T) {
	c := newRealClaude(t)
	c.model.On("prompt one", fakemodel.Tools(agents.WriteFile(agents.Claude, c.ws, filepath.Join(c.ws, "a.txt"), "one\n")), fakemodel.Say("ok one"))
	c.model.On("prompt two", fakemodel.Tools(agents.Shell(agents.Claude, "echo two > b.txt")), fakemodel.Say("ok two"))
	r := c.e.Prompt(c.ws, "prompt one")
	c.e.Resume(c.ws, r.Session, "prompt two")
	c.write("a.txt", "the person's\n")

	out := c.cli("rewind", "2", "--mode", "conversation")
	i := strings.Index(out.stdout, "claude --resume ")
	if out.code != 0 || i < 0 {
		t.Fatalf("rewind 2 --mode conversation: exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	fork := strings.Fields(out.stdout[i+len("claude --resume "):])[0]
	if c.read("b.txt") != "two\n" || c.read("a.txt") != "the person's\n" {
		t.Fatal("a conversation rewind changed files")
	}
	c.model.On("prompt three", fakemodel.Tools(agents.Shell(agents.Claude, "true")), fakemodel.Say("ok three"))
	c.e.Resume(c.ws, fork, "prompt three")
	// The fork's first prompt hangs where prompt two hung, as in a fork of
	// Claude Code's own; but this one is rewind-lsp's, recorded already.
	if rw := c.rewinds(); len(rw) != 1 || rw[0].Agent != "" {
		t.Fatalf("rewind-lsp's own fork was taken for Claude Code's rewind: %+v", rw)
	}
	reqs := c.model.For("prompt three")
	if len(reqs) == 0 {
		t.Fatal("the fork never asked the model")
	}
	q := reqs[0]
	if texts := strings.Join(q.UserTexts(), "\n"); strings.Contains(texts, "prompt two") || !strings.Contains(texts, "prompt one") {
		t.Fatalf("the fork did not resume before turn 2: %q", q.UserTexts())
	}
	for _, want := range []string{"before turn 2", "a.txt (changed by user)", "b.txt (changed by turn 2)"} {
		if !q.Mentions(want) {
			t.Errorf("the fork's first request lacks %q", want)
		}
	}
	c.model.On("prompt four", fakemodel.Say("ok four"))
	c.e.Resume(c.ws, fork, "prompt four")
	// Its request repeats the conversation (with the first notice, if
	// Claude Code keeps it), never a second notice.
	if q := c.model.For("prompt four"); len(q) == 0 || q[0].Count("differ on disk") > 1 {
		t.Fatalf("the fork was told twice")
	}
	c.checkHooks(nil)
}

// promptEntry finds the user entry of prompt text in session sid's
// transcript: its uuid and parentUuid.
func (c *realClaude) promptEntry(sid, text string) (uuid, parent string) {
	c.t.Helper()
	tr := filepath.Join(c.e.Home, ".claude", "projects", regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(c.ws, "-"), sid+".jsonl")
	data, err := os.ReadFile(tr)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		var e struct {
			Type       string `json:"type"`
			UUID       string `json:"uuid"`
			ParentUUID string `json:"parentUuid"`
			Message    struct {
				Content any `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(l), &e) == nil && e.Type == "user" && e.Message.Content == text {
			return e.UUID, e.ParentUUID
		}
	}
	c.t.Fatalf("no user entry %q in %s", text, tr)
	return "", ""
}

// claude runs Claude Code with args in the workspace (the flags its SDK
// uses) and fails the test unless it exits 0.
func (c *realClaude) claude(args ...string) string {
	c.t.Helper()
	cmd := exec.Command(c.e.Cmd, args...)
	cmd.Dir = c.ws
	cmd.Env = append([]string{"PATH=" + c.e.Bin + ":" + os.Getenv("PATH"), "HOME=" + c.e.Home, "ANTHROPIC_API_KEY=fake",
		"ANTHROPIC_BASE_URL=" + c.model.URL, "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"TERM=dumb", "NO_COLOR=1"}, c.e.ExtraEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("claude %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// restoreTwo has Claude Code put back the files of session sid's prompt
// two (--rewind-files: its Edit's a.txt, not the shell's b.txt and c.txt),
// after the person edited c.txt, and returns prompt two's parent entry,
// where a rewind to before prompt two continues.
func (c *realClaude) restoreTwo(sid string) string {
	c.t.Helper()
	c.write("c.txt", "the person's\n")
	two, parent := c.promptEntry(sid, "prompt two")
	if out := c.claude("-p", "--resume", sid, "--rewind-files", two); !strings.Contains(out, "rewound") {
		c.t.Fatalf("--rewind-files said %q", out)
	}
	if c.read("a.txt") != "one\n" || c.read("b.txt") != "b2\n" {
		c.t.Fatalf("Claude Code's own restore: a.txt %q b.txt %q", c.read("a.txt"), c.read("b.txt"))
	}
	return parent
}

type realRewind struct {
	Entry, Target, Mode, Agent, Session string
	Turn                                int
	Files, Kept, Offered                []string
	Undone, Applied                     bool
}

func (c *realClaude) rewinds() []realRewind {
	c.t.Helper()
	var l struct {
		Rewinds []realRewind `json:"rewinds"`
	}
	c.cliJSON(&l, "log", "--all")
	return l.Rewinds
}

// twoPrompts plays prompt one (a.txt by Write, b.txt from the shell) and
// prompt two (a.txt by Edit, c.txt and b.txt from the shell), with Claude
// Code's file checkpointing on, and returns the session.
func (c *realClaude) twoPrompts() string {
	c.t.Helper()
	c.e.ExtraEnv = append(c.e.ExtraEnv, "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=1")
	a := filepath.Join(c.ws, "a.txt")
	c.model.On("prompt one", fakemodel.Tools(agents.WriteFile(agents.Claude, c.ws, a, "one\n")),
		fakemodel.Tools(agents.Shell(agents.Claude, "echo b1 > b.txt")), fakemodel.Say("ok one"))
	c.model.On("prompt two", fakemodel.Tools(agents.EditFile(agents.Claude, c.ws, a, "one", "two")),
		fakemodel.Tools(agents.Shell(agents.Claude, "echo c2 > c.txt; echo b2 > b.txt")), fakemodel.Say("ok two"))
	c.model.On("prompt three", fakemodel.Tools(agents.Shell(agents.Claude, "echo d3 > d.txt")), fakemodel.Say("ok three"))
	c.model.On("prompt four", fakemodel.Say("ok four"))
	r := c.e.Prompt(c.ws, "prompt one")
	c.e.Resume(c.ws, r.Session, "prompt two")
	return r.Session
}

// TestRealClaudeOwnRewindRestoredCode: Claude Code rewinds its session to
// before prompt two and restores its files (--rewind-files, then
// --resume-session-at with a new prompt: what its "Restore code and
// conversation" does). Claude Code put back a.txt (its Edit) but not the
// shell's b.txt and c.txt; at the new prompt's first tool call
// rewind-lsp records the conversation rewind and restores b.txt, leaves
// c.txt (the person edited it since) and lists it; the new prompt is turn
// 2; undo brings b.txt back; the next prompt is told.
func TestRealClaudeOwnRewindRestoredCode(t *testing.T) {
	c := newRealClaude(t)
	sid := c.twoPrompts()
	parent := c.restoreTwo(sid)
	c.claude("-p", "--output-format", "json", "--allowedTools", "Write,Edit,Bash,Read", "--resume", sid, "--resume-session-at", parent, "--", "prompt three")
	if got := c.read("a.txt") + c.read("b.txt") + c.read("c.txt") + c.read("d.txt"); got != "one\nb1\nthe person's\nd3\n" {
		t.Fatalf("after the completed rewind: a, b, c, d = %q", got)
	}
	ts := c.turns(false)
	if len(ts) != 2 || ts[1].Prompt != "prompt three" || ts[1].Ended == "" || strings.Join(changedPaths(ts[1]), ",") != "d.txt" {
		t.Fatalf("turns on the branch: %+v", ts)
	}
	rw := c.rewinds()
	if len(rw) != 1 || rw[0].Agent != "claude-code" || rw[0].Session != sid || rw[0].Mode != "both" || rw[0].Turn != 2 ||
		strings.Join(rw[0].Files, ",") != "b.txt" || strings.Join(rw[0].Kept, ",") != "c.txt" {
		t.Fatalf("the agent's rewind: %+v", rw)
	}
	c.checkHooks(nil)
	if *updateFixtures {
		c.saveRewindFixtures("claude-rewind", sid)
	}
	if r := c.cli("undo"); r.code != 0 || c.read("b.txt") != "b2\n" {
		t.Fatalf("undo: exit %d %s, b.txt %q", r.code, r.stderr, c.read("b.txt"))
	}
	c.e.Resume(c.ws, sid, "prompt four")
	q := c.model.For("prompt four")
	if len(q) == 0 || !q[0].Mentions("b.txt") {
		t.Fatal("the next prompt was not told of the restore")
	}
}

// TestRealClaudeOwnRewindRestoredNothing: Claude Code rewinds only its
// conversation to before prompt two (--resume-session-at: "Restore
// conversation"). rewind-lsp records the conversation rewind, changes no
// file, and offers the files a code rewind would restore.
func TestRealClaudeOwnRewindRestoredNothing(t *testing.T) {
	c := newRealClaude(t)
	sid := c.twoPrompts()
	_, parent := c.promptEntry(sid, "prompt two")
	c.claude("-p", "--output-format", "json", "--allowedTools", "Write,Edit,Bash,Read", "--resume", sid, "--resume-session-at", parent, "--", "prompt three")
	if got := c.read("a.txt") + c.read("b.txt") + c.read("c.txt") + c.read("d.txt"); got != "two\nb2\nc2\nd3\n" {
		t.Fatalf("files changed: a, b, c, d = %q", got)
	}
	rw := c.rewinds()
	if len(rw) != 1 || rw[0].Agent != "claude-code" || rw[0].Mode != "conversation" || len(rw[0].Files) != 0 ||
		strings.Join(rw[0].Offered, ",") != "a.txt,b.txt,c.txt" {
		t.Fatalf("the agent's rewind: %+v", rw)
	}
	ts := c.turns(false)
	if len(ts) != 2 || ts[1].Prompt != "prompt three" {
		t.Fatalf("turns on the branch: %+v", ts)
	}
	c.checkHooks(nil)
	if log := c.cli("log").stdout; !strings.Contains(log, "3 files still differ: a.txt, b.txt, c.txt.\n    rewind-lsp rewind ") {
		t.Fatalf("log does not offer the rewind:\n%s", log)
	}
	// The offer is an ordinary rewind to the dropped turn's start, of those
	// files; the new prompt's d.txt is not among them.
	if r := c.cli("rewind", rw[0].Target, "--paths", strings.Join(rw[0].Offered, ",")); r.code != 0 {
		t.Fatalf("the offered rewind: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	if got := c.read("a.txt") + c.read("b.txt") + c.read("c.txt") + c.read("d.txt"); got != "one\nb1\n<missing>d3\n" {
		t.Fatalf("after the offered rewind: a, b, c, d = %q", got)
	}
}

var updateFixtures = flag.Bool("update", false, "rewrite agent/testdata/claude-rewind/ and claude-fork/ from what the real Claude Code wrote")

// saveRewindFixtures keeps what Claude Code wrote in sessions with its own
// rewind, in agent/testdata/<name>, for the agent package's tests: each
// session's transcript (the first transcript.jsonl, a second, its fork,
// fork.jsonl), every hook payload, and each prompt's recorded fork point
// as a line count in its transcript (the folders are renamed as in
// agent/testdata, which changes byte offsets).
func (c *realClaude) saveRewindFixtures(name string, sids ...string) {
	c.t.Helper()
	dir := filepath.Join("..", "..", "agent", "testdata", name)
	if err := os.RemoveAll(dir); err != nil {
		c.t.Fatal(err)
	}
	os.MkdirAll(dir, 0o755)
	dash := regexp.MustCompile(`[^A-Za-z0-9]`)
	norm := strings.NewReplacer(c.ws, "/w/project", c.e.Home, "/w/home", c.e.Dir(), "/w",
		dash.ReplaceAllString(c.ws, "-"), "-w-project").Replace
	files := []string{"transcript.jsonl", "fork.jsonl"}
	transcripts := map[string][]byte{}
	for i, sid := range sids {
		data, err := os.ReadFile(filepath.Join(c.e.Home, ".claude", "projects", dash.ReplaceAllString(c.ws, "-"), sid+".jsonl"))
		if err != nil {
			c.t.Fatal(err)
		}
		transcripts[sid] = data
		os.WriteFile(filepath.Join(dir, files[i]), []byte(norm(string(data))), 0o644)
	}
	var hooks []string
	for _, h := range c.e.HookRuns() {
		hooks = append(hooks, `{"event":"`+h.Event()+`","payload":`+strings.TrimSpace(norm(string(h.Payload)))+`}`)
	}
	os.WriteFile(filepath.Join(dir, "hooks.jsonl"), []byte(strings.Join(hooks, "\n")+"\n"), 0o644)
	var st struct{ Store string }
	c.cliJSON(&st, "status")
	journal, err := os.ReadFile(filepath.Join(st.Store, "journal"))
	if err != nil {
		c.t.Fatal(err)
	}
	type prompt struct {
		Prompt     string `json:"prompt"`
		Transcript string `json:"transcript"`
		ForkLines  int    `json:"forkLines"`
		ForkUUID   string `json:"forkUuid"`
		PromptID   string `json:"promptId"`
	}
	var prompts []prompt
	for _, l := range strings.Split(strings.TrimSpace(string(journal)), "\n") {
		var e struct {
			Kind, Prompt, ForkUUID, PromptID, Continues, Session string
			ForkBytes                                            int
		}
		json.Unmarshal([]byte(l[9:]), &e)
		if i := slices.Index(sids, e.Session); i >= 0 && e.Kind == "turnStart" && e.Continues == "" {
			prompts = append(prompts, prompt{e.Prompt, files[i], strings.Count(string(transcripts[e.Session][:e.ForkBytes]), "\n"), e.ForkUUID, e.PromptID})
		}
	}
	out, _ := json.MarshalIndent(prompts, "", "  ")
	os.WriteFile(filepath.Join(dir, "prompts.json"), append(out, '\n'), 0o644)
	c.t.Logf("wrote %s", dir)
}

// tui is Claude Code's interactive interface in a tmux session, typed at
// as a person does.
type tui struct {
	c    *realClaude
	sock string
}

func (c *realClaude) tui() *tui {
	c.t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		c.t.Fatalf("Claude Code's interface is driven in tmux, which is not installed (apt-get install tmux): %v", err)
	}
	// What a person has answered once: onboarding done, this folder
	// trusted, the API key accepted.
	key := "fake"
	cfg := map[string]any{"hasCompletedOnboarding": true, "theme": "dark",
		"customApiKeyResponses": map[string]any{"approved": []string{key}},
		"projects":              map[string]any{c.ws: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}}}
	data, _ := json.Marshal(cfg)
	claudeJSON := filepath.Join(c.e.Home, ".claude.json")
	old, _ := os.ReadFile(claudeJSON)
	var have map[string]any
	if json.Unmarshal(old, &have) == nil {
		for k, v := range cfg {
			have[k] = v
		}
		data, _ = json.Marshal(have)
	}
	os.WriteFile(claudeJSON, data, 0o600)
	// One tmux server per test: its own socket, removed with it.
	u := &tui{c: c, sock: fmt.Sprintf("rwclaude-%d-%s", os.Getpid(), filepath.Base(filepath.Dir(c.e.Dir())))}
	env := []string{"PATH=" + c.e.Bin + ":" + os.Getenv("PATH"), "HOME=" + c.e.Home, "ANTHROPIC_API_KEY=" + key,
		"ANTHROPIC_BASE_URL=" + c.model.URL, "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "TERM=xterm-256color"}
	env = append(env, c.e.ExtraEnv...)
	args := []string{"-L", u.sock, "new-session", "-d", "-x", "160", "-y", "50", "-c", c.ws, "env", "-i"}
	args = append(append(args, env...), c.e.Cmd, "--allowedTools", "Write,Edit,Bash,Read")
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		c.t.Fatalf("tmux: %v\n%s", err, out)
	}
	c.t.Cleanup(func() {
		// Claude Code writes to its home until it is gone.
		exec.Command("tmux", "-L", u.sock, "send-keys", "C-c").Run()
		exec.Command("tmux", "-L", u.sock, "send-keys", "C-c").Run()
		for i := 0; i < 50 && exec.Command("tmux", "-L", u.sock, "has-session").Run() == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
		exec.Command("tmux", "-L", u.sock, "kill-server").Run()
		os.Remove(filepath.Join(os.TempDir(), fmt.Sprintf("tmux-%d", os.Getuid()), u.sock))
		time.Sleep(500 * time.Millisecond)
	})
	return u
}

// screen is what the terminal shows now.
func (u *tui) screen() string {
	out, _ := exec.Command("tmux", "-L", u.sock, "capture-pane", "-p").Output()
	return string(out)
}

// keys sends tmux key names (Enter, Escape, Down…) or literal text with -l.
func (u *tui) keys(args ...string) {
	u.c.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-L", u.sock, "send-keys"}, args...)...).CombinedOutput(); err != nil {
		u.c.t.Fatalf("send-keys %v: %v\n%s", args, err, out)
	}
}

// waitFor waits until the screen shows text.
func (u *tui) waitFor(text string) {
	u.c.t.Helper()
	end := time.Now().Add(60 * time.Second)
	for time.Now().Before(end) {
		if strings.Contains(u.screen(), text) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	u.c.t.Fatalf("the screen never showed %q:\n%s", text, u.screen())
}

// prompt types a prompt and waits until its turn is over: the model's last
// reply on the screen and the Stop hook finished (a key pressed before that
// interrupts the turn).
func (u *tui) prompt(text, reply string) {
	u.c.t.Helper()
	stops := u.stops()
	u.keys("-l", text)
	time.Sleep(300 * time.Millisecond)
	u.keys("Enter")
	u.waitFor(reply)
	end := time.Now().Add(60 * time.Second)
	for u.stops() == stops {
		if time.Now().After(end) {
			u.c.t.Fatalf("the Stop hook of %q never finished:\n%s", text, u.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // the interface settles back to its prompt
}

// stops counts the Stop hook runs that finished.
func (u *tui) stops() int {
	n := 0
	for _, h := range u.c.e.HookRuns() {
		if h.Event() == "Stop" && h.Exit != -1 {
			n++
		}
	}
	return n
}

// TestRealClaudeTUIRewind: Claude Code's rewind driven in its interface as
// a person does — Esc Esc, prompt two, then "Restore code and conversation"
// or "Restore conversation" — and a new prompt. With its code restored,
// rewind-lsp restores what its shell wrote in prompt two and leaves c.txt,
// which the person changed since; with only the conversation restored, no
// file changes and the files are offered. Either way the new prompt is
// turn 2. "branch" does it in a fork: /branch first (a new session that
// copies the conversation), then the rewind there; the rewind is the
// fork's, its dropped turn the original session's.
func TestRealClaudeTUIRewind(t *testing.T) {
	for _, restore := range []bool{true, false} {
		name := map[bool]string{true: "restore code and conversation", false: "restore conversation"}[restore]
		t.Run(name, func(t *testing.T) { tuiRewind(t, restore, false) })
	}
	t.Run("branch, restore code and conversation", func(t *testing.T) { tuiRewind(t, true, true) })
}

func tuiRewind(t *testing.T, restore, branch bool) {
	c := newRealClaude(t)
	c.model.On("prompt one", fakemodel.Tools(agents.WriteFile(agents.Claude, c.ws, filepath.Join(c.ws, "a.txt"), "one\n")),
		fakemodel.Tools(agents.Shell(agents.Claude, "echo b1 > b.txt")), fakemodel.Say("ok one done"))
	c.model.On("prompt two", fakemodel.Tools(agents.EditFile(agents.Claude, c.ws, filepath.Join(c.ws, "a.txt"), "one", "two")),
		fakemodel.Tools(agents.Shell(agents.Claude, "echo c2 > c.txt; echo b2 > b.txt")), fakemodel.Say("ok two done"))
	c.model.On("prompt three", fakemodel.Tools(agents.Shell(agents.Claude, "echo d3 > d.txt")), fakemodel.Say("ok three done"))
	u := c.tui()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Claude Code's screen:\n%s", u.screen())
		}
	})
	u.waitFor("auto mode")
	u.prompt("prompt one", "ok one done")
	u.prompt("prompt two", "ok two done")
	c.write("c.txt", "the person's\n")
	session := c.e.HookRuns()[0].Field("session_id")
	if branch {
		u.keys("-l", "/branch")
		time.Sleep(300 * time.Millisecond)
		u.keys("Enter")
		u.waitFor("Branched session")
		session = ""
		for _, h := range c.e.HookRuns() {
			if h.Event() == "SessionStart" && h.Field("source") == "fork" {
				session = h.Field("session_id")
			}
		}
		if session == "" {
			t.Fatal("/branch ran no SessionStart hook with source fork")
		}
	}
	u.keys("Escape")
	time.Sleep(200 * time.Millisecond)
	u.keys("Escape")
	u.waitFor("Restore the code and/or conversation")
	u.keys("Up") // from "(current)" to prompt two
	time.Sleep(300 * time.Millisecond)
	u.keys("Enter")
	u.waitFor("Restore code and conversation")
	if !restore {
		u.keys("Down") // "Restore conversation"
		time.Sleep(300 * time.Millisecond)
	}
	u.keys("Enter")
	time.Sleep(time.Second)
	u.keys("C-u") // the rewound prompt is put back in the input box
	time.Sleep(300 * time.Millisecond)
	u.prompt("prompt three", "ok three done")

	files := c.read("a.txt") + c.read("b.txt") + c.read("c.txt") + c.read("d.txt")
	rw := c.rewinds()
	if len(rw) != 1 || rw[0].Agent != "claude-code" || rw[0].Turn != 2 || rw[0].Session != session {
		t.Fatalf("the agent's rewind: %+v, want one of session %s", rw, session)
	}
	if restore {
		if files != "one\nb1\nthe person's\nd3\n" || rw[0].Mode != "both" || strings.Join(rw[0].Files, ",") != "b.txt" ||
			strings.Join(rw[0].Kept, ",") != "c.txt" {
			t.Fatalf("restored code: a, b, c, d = %q; rewind %+v", files, rw[0])
		}
	} else if files != "two\nb2\nthe person's\nd3\n" || rw[0].Mode != "conversation" || strings.Join(rw[0].Offered, ",") != "a.txt,b.txt,c.txt" {
		t.Fatalf("restored nothing: a, b, c, d = %q; rewind %+v", files, rw[0])
	}
	ts := c.turns(false)
	if len(ts) != 2 || ts[1].Prompt != "prompt three" || ts[1].Ended == "" || ts[1].Session != session || strings.Join(changedPaths(ts[1]), ",") != "d.txt" {
		t.Fatalf("turns on the branch: %+v", ts)
	}
	c.checkHooks(nil)
}

package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

package e2e_test

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/testkit/agents"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// Claude Code's own rewind (its checkpoints restored or not), from the real binary's session files.

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
	dir := filepath.Join("..", "agent", "testdata", name)
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

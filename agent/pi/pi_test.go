package pi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/agenttest"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	piext "github.com/rewind-lsp/rewind-lsp/extensions/pi"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// The events pi's and oh-my-pi's extension handed over in one prompt
// (TestFirstPromptPiAgents in testkit/agents; TestParseRealPayloads checks
// their kinds and writes): each names the session, its file and the leaf
// entry; the prompt's leaf is the entry its user message hangs under in
// the session file.
func TestPiHookPayloads(t *testing.T) {
	for _, name := range []string{Name, OmpName} {
		t.Run(name, func(t *testing.T) {
			ag := map[string]agent.Agent{Name: Agent, OmpName: Omp}[name]
			data, err := os.ReadFile(filepath.Join("..", "testdata", name, "hooks.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var prompt *agent.Event
			for _, line := range agenttest.JSONLines(data) {
				var h struct {
					Payload json.RawMessage `json:"payload"`
				}
				if err := json.Unmarshal([]byte(line), &h); err != nil {
					t.Fatal(err)
				}
				ev, err := ag.Parse(h.Payload, "")
				if err != nil {
					t.Fatal(err)
				}
				if ev.SessionID == "" || ev.Leaf == nil || ev.Cwd != "/w/project" || !strings.HasSuffix(ev.Transcript, "_"+ev.SessionID+".jsonl") {
					t.Errorf("%s: %+v", ev.Name, ev)
				}
				if ev.Kind == agent.Prompt {
					prompt = ev
				}
				if (ev.Kind == agent.PreTool || ev.Kind == agent.PostTool) && ev.ToolUseID == "" {
					t.Errorf("%s %s: no tool call id", ev.Name, ev.ToolName)
				}
			}
			if prompt == nil {
				t.Fatal("no prompt")
			}
			// The prompt's user message hangs under the leaf the prompt hook named.
			file := filepath.Join("..", "testdata", name, filepath.Base(prompt.Transcript))
			parent := ""
			for _, line := range readLines(t, file) {
				var e struct {
					Type     string `json:"type"`
					ParentID string `json:"parentId"`
					Message  struct {
						Role string `json:"role"`
					} `json:"message"`
				}
				json.Unmarshal([]byte(line), &e)
				if e.Type == "message" && e.Message.Role == "user" {
					parent = e.ParentID
					break
				}
			}
			if parent == "" || prompt.Leaf == nil || parent != *prompt.Leaf {
				t.Errorf("the prompt's entry hangs under %q, the hook named leaf %v", parent, prompt.Leaf)
			}
		})
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return agenttest.JSONLines(data)
}

// What pi's and oh-my-pi's tools write: write and edit their path;
// oh-my-pi's edit in a text form (hashline, apply_patch) and bash, eval,
// task or another extension's tool anything (captured around); the
// read-only tools nothing.
func TestPiWrites(t *testing.T) {
	for _, c := range []struct {
		tool, input      string
		paths            []string
		capture, relevnt bool
	}{
		{"write", `{"path":"a.txt","content":"x"}`, []string{"/w/a.txt"}, false, true},
		{"edit", `{"path":"/w/b.txt","edits":[{"oldText":"a","newText":"b"}]}`, []string{"/w/b.txt"}, false, true},
		{"edit", `{"input":"[a.txt#B686]\nPUT 1.=1:\n+two\n"}`, nil, true, true},
		{"bash", `{"command":"echo x > y"}`, nil, true, true},
		{"eval", `{"code":"1"}`, nil, true, true},
		{"my_tool", `{}`, nil, true, true},
		{"read", `{"path":"a.txt"}`, nil, false, false},
		{"checkpoint", `{"goal":"try"}`, nil, false, false},
	} {
		ev := &agent.Event{ToolName: c.tool, ToolInput: json.RawMessage(c.input), Cwd: "/w"}
		paths, capture, relevant := pi{}.Writes(ev)
		if strings.Join(paths, ",") != strings.Join(c.paths, ",") || capture != c.capture || relevant != c.relevnt {
			t.Errorf("%s %s: %v %v %v, want %v %v %v", c.tool, c.input, paths, capture, relevant, c.paths, c.capture, c.relevnt)
		}
	}
}

// The notice is the message before_agent_start returns: hidden, kept in
// the session.
func TestPiNotice(t *testing.T) {
	var v struct {
		Message struct {
			CustomType string `json:"customType"`
			Content    string `json:"content"`
			Display    *bool  `json:"display"`
		} `json:"message"`
	}
	out := pi{}.Notice("rewind-lsp: <files> & more")
	if err := json.Unmarshal(out, &v); err != nil || v.Message.CustomType != "rewind-lsp" || v.Message.Content != "rewind-lsp: <files> & more" ||
		v.Message.Display == nil || *v.Message.Display || bytes.Count(out, []byte("\n")) != 1 {
		t.Errorf("notice %s", out)
	}
}

// pi and oh-my-pi, three prompts: the fork at turn 2's start is the
// session file's lines through the entry the prompt hook named, with a new
// header id, the original as parentSession, named as the agent names a
// session started now; it holds the first exchange and nothing of prompt
// 2. At turn 2's end it holds the second exchange too and nothing of
// prompt 3. oh-my-pi's title line stays first. A fork before the first
// prompt is refused.
func TestForkPiThreePrompts(t *testing.T) {
	for _, name := range []string{Name, OmpName} {
		t.Run(name, func(t *testing.T) {
			ag := map[string]agent.Agent{Name: Agent, OmpName: Omp}[name]
			fx := agenttest.LoadThree(t, name)
			path, orig := fx.CopyTo(t, fx.Turns[1].Transcript, t.TempDir())
			tn := fx.Turns[1]
			for _, end := range []bool{false, true} {
				p := journal.ForkPoint{ForkBytes: tn.StartBytes, ForkUUID: tn.StartUUID}
				if end {
					p = journal.ForkPoint{ForkBytes: tn.EndBytes, ForkUUID: tn.EndUUID}
				}
				fk, err := ag.Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Prompt: tn.Prompt, End: end, Point: p})
				if err != nil {
					t.Fatal(err)
				}
				got, _ := os.ReadFile(fk.Transcript)
				o, f := agenttest.JSONLines(orig), agenttest.JSONLines(got)
				n := 0
				for i, l := range o {
					if conv.TopString([]byte(l), "id") == p.ForkUUID {
						n = i + 1
					}
				}
				if n == 0 || len(f) != n {
					t.Fatalf("the fork has %d lines, want the original's first %d", len(f), n)
				}
				header := 0
				if name == OmpName {
					header = 1
					if conv.TopString([]byte(f[0]), "type") != "title" || f[0] != o[0] {
						t.Errorf("the fork's first line is not the title line: %.200s", f[0])
					}
				}
				var h map[string]any
				json.Unmarshal([]byte(f[header]), &h)
				if h["type"] != "session" || h["id"] != fk.Session || h["parentSession"] != path || h["cwd"] != "/w/project" || h["version"] != 3.0 {
					t.Errorf("the fork's header %v", h)
				}
				for i := range f {
					if i != header && f[i] != o[i] {
						t.Errorf("fork line %d differs from the original's", i+1)
					}
				}
				s := string(got)
				if !strings.Contains(s, fx.Turns[0].Prompt) || !strings.Contains(s, agenttest.ThreeAnswers[0]) || strings.Contains(s, tn.Prompt) != end ||
					strings.Contains(s, agenttest.ThreeAnswers[1]) != end || strings.Contains(s, fx.Turns[2].Prompt) {
					t.Errorf("the fork at turn 2's end=%v holds the wrong exchanges", end)
				}
				want := map[string]string{Name: "pi --session ", OmpName: "omp --resume "}[name] + fk.Session
				if b := filepath.Base(fk.Transcript); fk.Resume != want || !strings.HasPrefix(b, "20") || !strings.HasSuffix(b, "Z_"+fk.Session+".jsonl") ||
					filepath.Dir(fk.Transcript) != filepath.Dir(path) {
					t.Errorf("fork %+v", fk)
				}
			}
			first := fx.Turns[0]
			if _, err := ag.Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Point: journal.ForkPoint{ForkBytes: first.StartBytes, ForkUUID: first.StartUUID}}); err != agent.FirstTurn {
				t.Errorf("a fork before the first turn: %v", err)
			}
			var ref *agent.Refusal
			if _, err := ag.Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Point: journal.ForkPoint{ForkBytes: tn.StartBytes, ForkUUID: "0badf00d"}}); !errors.As(err, &ref) ||
				!strings.Contains(ref.Reason, "no longer holds entry 0badf00d") {
				t.Errorf("a fork at an entry the file lacks: %v", err)
			}
			os.WriteFile(path, orig[:tn.StartBytes-1], 0o600)
			if _, err := ag.Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Point: journal.ForkPoint{ForkBytes: tn.StartBytes, ForkUUID: tn.StartUUID}}); !errors.As(err, &ref) ||
				!strings.Contains(ref.Reason, "shorter") {
				t.Errorf("a fork of a cut file: %v", err)
			}
		})
	}
}

// Position is the leaf the event names, with the file's length up to its
// last whole line; nothing without a leaf.
func TestPiPosition(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	ev := &agent.Event{Kind: agent.Prompt, Transcript: path, Leaf: new(string)}
	*ev.Leaf = "e7ec0436"
	if tr, pos, err := (pi{}).Position(ev); err != nil || pos != (journal.ForkPoint{ForkBytes: 0, ForkUUID: "e7ec0436"}) || tr != path {
		t.Errorf("before the file exists: %+v %v", pos, err)
	}
	os.WriteFile(path, []byte("{\"type\":\"session\"}\n{\"type\":\"message\",\"id\":\"e7ec0436\"}\n{\"partial"), 0o600)
	if _, pos, err := (pi{}).Position(ev); err != nil || pos.ForkBytes != 54 {
		t.Errorf("position %+v %v", pos, err)
	}
	if tr, pos, _ := (pi{}).Position(&agent.Event{Kind: agent.Prompt, Transcript: path}); tr != "" {
		t.Errorf("a position without a leaf: %s %+v", tr, pos)
	}
}

// Setup writes the extension, with the binary's path and the agent's name,
// into the agent's extensions folder; again, it changes nothing; an older
// install of its own file is brought up to date; a file there that is not
// rewind-lsp's is refused; nothing else in the folder is touched.
func TestSetupPi(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PI_CODING_AGENT_DIR", "")
	for _, c := range []struct{ name, dir string }{{Name, ".pi/agent"}, {OmpName, ".omp/agent"}} {
		ag := map[string]agent.Agent{Name: Agent, OmpName: Omp}[c.name]
		ext := filepath.Join(home, c.dir, "extensions")
		other := filepath.Join(ext, "mine.ts")
		os.MkdirAll(ext, 0o755)
		os.WriteFile(other, []byte("export default function () {}\n"), 0o644)
		bin := "/opt/rewind lsp/bin/rewind-lsp"
		r, err := ag.Setup(agent.SetupOptions{Command: "rewind-lsp", Binary: bin})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(ext, "rewind-lsp", "index.ts")
		got, _ := os.ReadFile(path)
		if r.File != path || len(r.Added) != 1 || !strings.Contains(string(got), `const REWIND_LSP = "/opt/rewind lsp/bin/rewind-lsp";`) ||
			!strings.Contains(string(got), `const AGENT: string = "`+c.name+`";`) {
			t.Fatalf("%s: setup %+v wrote:\n%.600s", c.name, r, got)
		}
		if want := strings.Replace(strings.Replace(piext.Source, `"rewind-lsp";`, `"/opt/rewind lsp/bin/rewind-lsp";`, 1), `const AGENT: string = "pi";`, `const AGENT: string = "`+c.name+`";`, 1); string(got) != want {
			t.Errorf("%s: the installed extension differs from the repository's beyond its two constants", c.name)
		}
		if r, err := ag.Setup(agent.SetupOptions{Binary: bin}); err != nil || len(r.Added) != 0 {
			t.Errorf("%s: setup again: %+v %v", c.name, r, err)
		}
		os.WriteFile(path, []byte(piExtensionMark+"\n// an older version\n"), 0o644)
		if r, err := ag.Setup(agent.SetupOptions{Binary: bin}); err != nil || len(r.Added) != 1 || !strings.Contains(r.Added[0], "updated") {
			t.Errorf("%s: setup over an older install: %+v %v", c.name, r, err)
		}
		if now, _ := os.ReadFile(path); !bytes.Equal(now, got) {
			t.Errorf("%s: the older install was not replaced", c.name)
		}
		os.WriteFile(path, []byte("// someone else's\n"), 0o644)
		if _, err := ag.Setup(agent.SetupOptions{Binary: bin}); err == nil || !strings.Contains(err.Error(), "not rewind-lsp's extension") {
			t.Errorf("%s: setup over another extension: %v", c.name, err)
		}
		if now, _ := os.ReadFile(path); string(now) != "// someone else's\n" {
			t.Errorf("%s: another extension was changed", c.name)
		}
		if b, _ := os.ReadFile(other); string(b) != "export default function () {}\n" {
			t.Errorf("%s: another file of the folder changed", c.name)
		}
	}
	dir := t.TempDir()
	t.Setenv("PI_CODING_AGENT_DIR", dir)
	if r, err := (pi{}).Setup(agent.SetupOptions{Binary: "/bin/rewind-lsp"}); err != nil || r.File != filepath.Join(dir, "extensions", "rewind-lsp", "index.ts") {
		t.Errorf("with PI_CODING_AGENT_DIR: %+v %v", r, err)
	}
}

// The extension as kept in the repository has the two lines setup writes,
// once each, and hands the events to `rewind-lsp hook`.
func TestPiExtensionSource(t *testing.T) {
	out, err := Extension(`/a "quoted"\path`, OmpName)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	found := 0
	for sc.Scan() {
		switch sc.Text() {
		case `const REWIND_LSP = "/a \"quoted\"\\path";`, `const AGENT: string = "omp";`:
			found++
		}
	}
	if found != 2 {
		t.Errorf("the rendered extension lacks its constants:\n%.800s", out)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} {
		if !strings.Contains(piext.Source, `"`+ev+`"`) {
			t.Errorf("the extension never hands over %s", ev)
		}
	}
}

package agents

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

	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

var update = flag.Bool("update", false, "rewrite agent/testdata/<agent>/ from what the real agents wrote")

// events names, per agent, the hook events of one prompt with two tool
// calls: session start, prompt, tool before, tool after, turn end, session
// end.
var events = map[Kind][6]string{
	Claude:  {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"},
	Codex:   {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"},
	Gemini:  {"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"},
	Copilot: {"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop", "sessionEnd"},
	Qwen:    {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"},
	// The plugin's events (opencode and Kilo name no end of a session).
	OpenCode: {"session.created", "chat.message", "tool.execute.before", "tool.execute.after", "session.idle", ""},
	Kilo:     {"session.created", "chat.message", "tool.execute.before", "tool.execute.after", "session.idle", ""},
}

// TestFirstPrompt runs each real agent on one prompt in which the model
// writes a file with the agent's file tool and another from its shell,
// with every hook event recorded, and checks what the hooks were told:
// the events in order, the session, the prompt, the tools and their paths.
func TestFirstPrompt(t *testing.T) {
	for _, k := range All {
		t.Run(string(k), func(t *testing.T) { firstPrompt(t, k) })
	}
}

func firstPrompt(t *testing.T, k Kind) {
	model := startModel(t)
	e := New(t, k, model)
	e.TrustAllHooks = true
	e.SetHooks(e.HookRecorder())
	ws := workspace(t, e)
	a := filepath.Join(ws, "a.txt")
	write, shell := WriteFile(k, ws, a, "hello\n"), Shell(k, "echo shell > b.txt")
	const prompt = "Write a.txt, then b.txt from the shell."
	model.On(prompt, fakemodel.Tools(write), fakemodel.Tools(shell), fakemodel.Say("Both written."))

	r := e.Prompt(ws, prompt)
	t.Logf("%s ran in %v, session %s", k, r.Took, r.Session)
	if r.Session == "" {
		t.Fatalf("no session id in the output:\n%s", r.Stdout)
	}
	for name, want := range map[string]string{"a.txt": "hello\n", "b.txt": "shell\n"} {
		if got, err := os.ReadFile(filepath.Join(ws, name)); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}

	// The model was asked three times: the prompt, then each tool's result.
	reqs := model.For(prompt)
	if len(reqs) != 3 {
		t.Fatalf("%d requests answered from the script, want 3", len(reqs))
	}
	for i, q := range reqs {
		if q.Round != i {
			t.Errorf("request %d answered round %d", i, q.Round)
		}
	}

	ev := events[k]
	runs := e.HookRuns()
	var got []string
	for _, h := range runs {
		got = append(got, h.Event())
		if h.Exit == -1 {
			t.Errorf("hook %s never finished (killed by the agent?)", h.Event())
		}
		t.Logf("hook %-20s %v", h.Event(), h.Took())
	}
	want := []string{ev[0], ev[1], ev[2], ev[3], ev[2], ev[3], ev[4], ev[5]}
	if k == Copilot && len(got) > 1 { // it starts the session and prompt hooks together
		slices.Sort(got[:2])
		slices.Sort(want[:2])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("hook events %v, want %v", got, want)
	}
	for _, h := range runs {
		if s := sessionField(h); s != r.Session {
			t.Errorf("%s: session %q, want %q", h.Event(), s, r.Session)
		}
		if c := h.Field("cwd"); c != ws {
			t.Errorf("%s: cwd %q, want %q", h.Event(), c, ws)
		}
		if h.Event() == ev[1] && h.Field("prompt") != prompt {
			t.Errorf("%s: prompt %q, want %q", h.Event(), h.Field("prompt"), prompt)
		}
	}
	tools := byEvent(runs, ev[2], ev[3])
	for i, call := range []fakemodel.Call{write, write, shell, shell} {
		name, input := toolOf(t, k, tools[i])
		if name != ToolName(k, call) {
			t.Errorf("%s %d: tool %q, want %q", tools[i].Event(), i, name, ToolName(k, call))
		}
		switch {
		case call.Name == shell.Name:
			if input["command"] != "echo shell > b.txt" {
				t.Errorf("%s: shell input %v", tools[i].Event(), input)
			}
		case k == Codex: // the patch names the path
			if p, _ := input["command"].(string); !strings.Contains(p, "*** Add File: a.txt\n") {
				t.Errorf("%s: apply_patch input %v", tools[i].Event(), input)
			}
		default:
			if input["file_path"] != a && input["path"] != a {
				t.Errorf("%s: write input names no %s: %v", tools[i].Event(), a, input)
			}
		}
	}
	if *update {
		saveFixtures(t, e, ws, runs)
	}
}

func startModel(t *testing.T) *fakemodel.Server {
	s, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// workspace makes the folder "project" of the Env, a git repository.
func workspace(t *testing.T, e *Env) string {
	ws := filepath.Join(e.Dir(), "project")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return ws
}

func sessionField(h HookRun) string {
	if s := h.Field("session_id"); s != "" {
		return s
	}
	return h.Field("sessionId")
}

func byEvent(runs []HookRun, names ...string) []HookRun {
	var out []HookRun
	for _, h := range runs {
		if slices.Contains(names, h.Event()) {
			out = append(out, h)
		}
	}
	return out
}

// toolOf reads the tool name and input of a tool event.
func toolOf(t *testing.T, k Kind, h HookRun) (string, map[string]any) {
	var p struct {
		ToolName  string         `json:"tool_name"`
		ToolInput map[string]any `json:"tool_input"`
		Name      string         `json:"toolName"`
		Args      map[string]any `json:"toolArgs"`
	}
	if err := json.Unmarshal(h.Payload, &p); err != nil {
		t.Fatalf("%s payload: %v\n%s", h.Event(), err, h.Payload)
	}
	if k == Copilot {
		return p.Name, p.Args
	}
	return p.ToolName, p.ToolInput
}

// saveFixtures keeps what the agent wrote, its folders renamed to /w/home
// and /w/project: every hook payload (hooks.jsonl: one line per run, the
// event and the payload as the agent sent it) and its session files.
func saveFixtures(t *testing.T, e *Env, ws string, runs []HookRun) {
	if agentName[e.Kind] == "" {
		t.Fatalf("no name of %s on rewind-lsp's command line (agentName)", e.Kind)
	}
	dir := filepath.Join("..", "..", "agent", "testdata", agentName[e.Kind])
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	norm := normalizer(e.Dir(), e.Home, ws)
	var lines []string
	var transcript string
	for _, h := range runs {
		payload := strings.TrimSpace(norm(string(h.Payload)))
		lines = append(lines, `{"event":"`+h.Event()+`","payload":`+payload+`}`)
		for _, f := range []string{"transcript_path", "transcriptPath"} {
			if p := h.Field(f); p != "" {
				transcript = p
			}
		}
	}
	writeFile(t, filepath.Join(dir, "hooks.jsonl"), strings.Join(lines, "\n")+"\n")
	if transcript == "" {
		t.Fatalf("no hook named a transcript")
	}
	files := []string{transcript}
	if e.Kind == Copilot { // the session is a folder; resuming needs workspace.yaml too
		files = append(files, filepath.Join(filepath.Dir(transcript), "workspace.yaml"))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, filepath.Base(norm(f))), norm(string(data)))
	}
	t.Logf("wrote %s", dir)
}

// normalizer renames the test's folders in text (dir, holding home and
// ws, becomes /w), also as Claude Code spells a folder in its projects'
// names (every other character than a letter or digit as "-").
func normalizer(dir, home, ws string) func(string) string {
	dash := regexp.MustCompile(`[^A-Za-z0-9]`)
	r := strings.NewReplacer(ws, "/w/project", home, "/w/home", dir, "/w",
		dash.ReplaceAllString(ws, "-"), "-w-project")
	return r.Replace
}

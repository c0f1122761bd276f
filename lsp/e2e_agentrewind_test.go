package lsp

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// claudeReplay plays back, in a test's workspace, the session the real
// Claude Code wrote in agent/testdata/claude-rewind: every hook payload as
// it sent it (its folders renamed to the test's), the transcript as it
// stood at each event, and the tools' effects on the files (Write, Edit,
// the shell's commands). Between prompt two and prompt three the person
// edits c.txt and Claude Code rewinds the session to before prompt two;
// with restore, its rewind also puts back a.txt, the file its Edit wrote.
type claudeReplay struct {
	t          *testing.T
	w          *testkit.Sandbox
	transcript string
	lines      []string
	forks      []int // each prompt's fork point, in lines
	hooks      []json.RawMessage
	events     []string
}

func loadClaudeReplay(t *testing.T, w *testkit.Sandbox) *claudeReplay {
	t.Helper()
	mod, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(mod, "agent", "testdata", "claude-rewind")
	home := filepath.Join(w.Home, "claude-home")
	rename := strings.NewReplacer("/w/project", w.Root, "/w/home", home).Replace
	r := &claudeReplay{t: t, w: w, transcript: filepath.Join(home, ".claude", "projects", "-w-project", "session.jsonl")}
	os.MkdirAll(filepath.Dir(r.transcript), 0o700)
	data, err := os.ReadFile(filepath.Join(dir, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r.lines = strings.SplitAfter(rename(string(data)), "\n")
	var prompts []struct{ ForkLines int }
	raw, _ := os.ReadFile(filepath.Join(dir, "prompts.json"))
	if err := json.Unmarshal(raw, &prompts); err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts {
		r.forks = append(r.forks, p.ForkLines)
	}
	hooks, _ := os.ReadFile(filepath.Join(dir, "hooks.jsonl"))
	for _, l := range strings.Split(strings.TrimSpace(string(hooks)), "\n") {
		var h struct {
			Event   string
			Payload json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &h); err != nil {
			t.Fatal(err)
		}
		p := rename(string(h.Payload))
		// The transcript is the copy of this test.
		var m map[string]any
		json.Unmarshal([]byte(p), &m)
		if _, ok := m["transcript_path"]; ok {
			m["transcript_path"] = r.transcript
		}
		b, _ := json.Marshal(m)
		r.hooks, r.events = append(r.hooks, b), append(r.events, h.Event)
	}
	return r
}

// transcriptUpTo writes the first n lines of the transcript.
func (r *claudeReplay) transcriptUpTo(n int) {
	if n > len(r.lines) {
		n = len(r.lines)
	}
	if err := os.WriteFile(r.transcript, []byte(strings.Join(r.lines[:n], "")), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// run plays every event, running the hook (the binary with store) for
// each, and returns the most any hook took.
func (r *claudeReplay) run(store string, restore bool) time.Duration {
	r.t.Helper()
	prompt, starts := -1, 0
	var slowest time.Duration
	done := map[string]bool{} // tool calls carried out
	for i, payload := range r.hooks {
		ev := r.events[i]
		// A tool runs after its PreToolUse hook, before its PostToolUse
		// (the hooks see PreToolUse only for the shell).
		var call struct {
			ID string `json:"tool_use_id"`
		}
		json.Unmarshal(payload, &call)
		if ev == "PostToolUse" && !done[call.ID] {
			r.tool(payload)
		}
		switch ev {
		case "UserPromptSubmit":
			prompt++
			r.transcriptUpTo(r.forks[prompt])
		case "SessionStart":
			starts++
			if starts == 3 { // Claude Code run with --rewind-files: prompt two is over
				r.w.Write("c.txt", "the person's\n")
				if restore {
					r.w.Write("a.txt", "one\n")
				}
			}
		default:
			if prompt >= 0 && prompt+1 < len(r.forks) {
				r.transcriptUpTo(r.forks[prompt+1])
			} else if prompt >= 0 {
				r.transcriptUpTo(len(r.lines))
			}
		}
		start := time.Now()
		cmd := r.w.Command([]string{"--store", store, "hook", "claude-code"})
		cmd.Dir, cmd.Stdin = r.w.Root, bytes.NewReader(payload)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			r.t.Fatalf("hook %s: %v\n%s", ev, err, stderr.String())
		}
		if d := time.Since(start); d > slowest {
			slowest = d
		}
		if ev == "PreToolUse" {
			r.tool(payload)
			done[call.ID] = true
		}
	}
	return slowest
}

// tool carries out the tool call of a PreToolUse payload in the workspace.
func (r *claudeReplay) tool(payload []byte) {
	r.t.Helper()
	var p struct {
		Cwd      string `json:"cwd"`
		ToolName string `json:"tool_name"`
		Input    struct {
			FilePath  string `json:"file_path"`
			Content   string `json:"content"`
			OldString string `json:"old_string"`
			NewString string `json:"new_string"`
			Command   string `json:"command"`
		} `json:"tool_input"`
	}
	json.Unmarshal(payload, &p)
	switch p.ToolName {
	case "Write":
		os.WriteFile(p.Input.FilePath, []byte(p.Input.Content), 0o644)
	case "Edit":
		data, _ := os.ReadFile(p.Input.FilePath)
		os.WriteFile(p.Input.FilePath, []byte(strings.Replace(string(data), p.Input.OldString, p.Input.NewString, 1)), 0o644)
	case "Bash":
		cmd := exec.Command("sh", "-c", p.Input.Command)
		cmd.Dir = p.Cwd
		if out, err := cmd.CombinedOutput(); err != nil {
			r.t.Fatalf("%s: %v\n%s", p.Input.Command, err, out)
		}
	}
}

// TestClaudeOwnRewindReachesEditor: Claude Code's own rewind, as the real
// binary wrote it, replayed while an editor runs the server. When Claude
// Code restored its files, the hook's completion goes through the server:
// b.txt (its shell's) comes back as a WorkspaceEdit, c.txt (the person's)
// is left, and the editor is told with rewind/agentRewind. When it
// restored nothing, no file changes and the notification offers the files.
func TestClaudeOwnRewindReachesEditor(t *testing.T) {
	for _, restore := range []bool{true, false} {
		name := map[bool]string{true: "restored code", false: "restored nothing"}[restore]
		t.Run(name, func(t *testing.T) {
			w := testkit.NewSandbox(t)
			r := loadClaudeReplay(t, w)
			_, e := startServer(t, w, testkit.VSCodeLike)
			mark := e.Conn.NotifCount()
			slowest := r.run(w.Store, restore)
			t.Logf("slowest hook: %v", slowest)
			m, _ := e.Conn.WaitNotification("rewind/agentRewind", mark, didChangeWait, nil)
			if m == nil {
				t.Fatal("the editor was not told of Claude Code's rewind")
			}
			var n agentRewindParams
			json.Unmarshal(m.Params, &n)

			if n.Agent != "claude-code" || n.Turn != 2 || n.Prompt != "prompt two" || n.Root != w.Root || n.Target == "" {
				t.Fatalf("rewind/agentRewind %s", m.Params)
			}
			// The words the editors show come with it.
			if want := words.Session("claude-code", n.Session); n.SessionLabel != want || n.Session == "" {
				t.Errorf("sessionLabel %q, want %q", n.SessionLabel, want)
			}
			shown := map[bool][3]string{
				true: {"Claude Code rewound to turn 2 (prompt two), code and conversation",
					"Claude Code rewound to turn 2 (prompt two) and restored its own edits; rewind-lsp restored what its shell changed too: b.txt. Left as they are (changed since by someone else): c.txt.",
					"undo:Undo"},
				false: {"Claude Code rewound to turn 2 (prompt two), conversation only",
					"Claude Code rewound its conversation to turn 2 (prompt two) but restored no files; 3 files still differ: a.txt, b.txt, c.txt.",
					"rewindFiles:Rewind the Files showDiff:Show Diff"},
			}[restore]
			var actions []string
			for _, a := range n.Actions {
				actions = append(actions, a.ID+":"+a.Title)
			}
			if n.Title != shown[0] || n.Message != shown[1] || strings.Join(actions, " ") != shown[2] {
				t.Errorf("title %q\nmessage %q\nactions %q\nwant %q", n.Title, n.Message, actions, shown)
			}
			got := map[string]string{}
			for _, f := range []string{"a.txt", "b.txt", "c.txt", "d.txt"} {
				got[f] = w.Read(f)
			}
			if restore {
				if n.Mode != "both" || !reflect.DeepEqual(n.Files, []string{"b.txt"}) || !reflect.DeepEqual(n.Kept, []string{"c.txt"}) || len(n.Offered) != 0 {
					t.Fatalf("rewind/agentRewind %s", m.Params)
				}
				if want := map[string]string{"a.txt": "one\n", "b.txt": "b1\n", "c.txt": "the person's\n", "d.txt": "d3\n"}; !reflect.DeepEqual(got, want) {
					t.Fatalf("files %v, want %v", got, want)
				}
				return
			}
			if n.Mode != "conversation" || len(n.Files) != 0 || !reflect.DeepEqual(n.Offered, []string{"a.txt", "b.txt", "c.txt"}) {
				t.Fatalf("rewind/agentRewind %s", m.Params)
			}
			if want := map[string]string{"a.txt": "two\n", "b.txt": "b2\n", "c.txt": "the person's\n", "d.txt": "d3\n"}; !reflect.DeepEqual(got, want) {
				t.Fatalf("files %v, want %v", got, want)
			}
			// Rewind the Files: the offered rewind goes through.
			var rr struct {
				Applied bool
			}
			e.MustCmd("rewind.rewind", map[string]any{"target": n.Target, "paths": n.Offered}, &rr)
			waitSaved(t, e)
			if !rr.Applied || w.Read("b.txt") != "b1\n" {
				t.Fatalf("the offered rewind: applied %v, b.txt %q", rr.Applied, w.Read("b.txt"))
			}
		})
	}
}

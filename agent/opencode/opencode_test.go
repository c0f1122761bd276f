package opencode

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	ocplugin "github.com/rewind-lsp/rewind-lsp/extensions/opencode"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// The plugin's payloads read as the hook needs them: the prompt's message
// id as its prompt id, the leaf when it names one (an empty leaf, the
// session's first prompt, is not a missing one), and a position in the
// agent's database at that leaf.
func TestOpenCodeParseAndPosition(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("OPENCODE_DB", "")
	t.Setenv("KILO_DB", "")
	cases := []struct {
		payload string
		kind    agent.EventKind
		leaf    string // "-": no leaf
	}{
		{`{"hook_event_name":"chat.message","session_id":"ses_1","cwd":"/w","prompt":"Hi","message_id":"msg_3","leaf_id":"msg_2"}`, agent.Prompt, "msg_2"},
		{`{"hook_event_name":"chat.message","session_id":"ses_1","cwd":"/w","prompt":"Hi","message_id":"msg_1","leaf_id":""}`, agent.Prompt, ""},
		{`{"hook_event_name":"chat.message","session_id":"ses_1","cwd":"/w","prompt":"Hi","message_id":"msg_1"}`, agent.Prompt, "-"},
		{`{"hook_event_name":"session.idle","session_id":"ses_1","cwd":"/w","leaf_id":"msg_9"}`, agent.Stop, "msg_9"},
		{`{"hook_event_name":"session.created","session_id":"ses_1","cwd":"/w","source":"startup"}`, agent.SessionStart, "-"},
		{`{"hook_event_name":"tool.execute.before","session_id":"ses_1","cwd":"/w","tool_name":"write","tool_use_id":"c1","tool_input":{"filePath":"a.txt"}}`, agent.PreTool, "-"},
		{`{"hook_event_name":"message.updated","session_id":"ses_1"}`, agent.Ignored, "-"},
	}
	for _, ag := range []agent.Agent{Agent, Kilo} {
		for _, c := range cases {
			ev, err := ag.Parse([]byte(c.payload), "")
			if err != nil {
				t.Fatalf("%s: %v", c.payload, err)
			}
			if ev.Kind != c.kind || ev.SessionID != "ses_1" {
				t.Errorf("%s: kind %v session %q", c.payload, ev.Kind, ev.SessionID)
			}
			if c.kind == agent.Prompt && (ev.Prompt != "Hi" || !strings.HasPrefix(ev.PromptID, "msg_")) {
				t.Errorf("%s: prompt %q id %q", c.payload, ev.Prompt, ev.PromptID)
			}
			tr, pos, err := ag.Position(ev)
			if c.leaf == "-" {
				if ev.Leaf != nil || err == nil {
					t.Errorf("%s: leaf %v, position %s %+v %v; want none and an error", c.payload, ev.Leaf, tr, pos, err)
				}
				continue
			}
			db := filepath.Join(data, ag.Name(), ag.Name()+".db")
			if err != nil || tr != db || pos.ForkUUID != c.leaf || pos.ForkBytes != 0 {
				t.Errorf("%s: position %s %+v %v, want %s at %q", c.payload, tr, pos, err, db, c.leaf)
			}
		}
		if _, err := ag.Parse([]byte(`{"session_id":`), ""); err == nil {
			t.Errorf("%s: bad JSON accepted", ag.Name())
		}
	}
	// The database the agent is told to use.
	for env, want := range map[string]string{"/elsewhere/x.db": "/elsewhere/x.db", "mine.db": filepath.Join(data, "opencode", "mine.db")} {
		t.Setenv("OPENCODE_DB", env)
		tr, _, err := Agent.Position(&agent.Event{Kind: agent.Prompt, Leaf: new(string)})
		if err != nil || tr != want {
			t.Errorf("OPENCODE_DB=%s: %q %v, want %q", env, tr, err, want)
		}
	}
	t.Setenv("OPENCODE_DB", ":memory:")
	if _, _, err := Agent.Position(&agent.Event{Kind: agent.Prompt, Leaf: new(string)}); err == nil {
		t.Error("a database in memory has a position")
	}
}

// What each tool call may write: the file tools' filePath, a patch's
// files, everything for bash and for tools that are not the agent's own,
// nothing for the tools that only read.
func TestOpenCodeWrites(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: n.go\n+x\n*** Update File: /abs/o.go\n@@\n-a\n+b\n*** End Patch\n"
	cases := []struct {
		tool, input string
		paths       []string
		capture     bool
		relevant    bool
	}{
		{"write", `{"filePath":"a.txt","content":"x"}`, []string{"/w/a.txt"}, false, true},
		{"edit", `{"filePath":"/w/sub/b.txt","oldString":"a","newString":"b"}`, []string{"/w/sub/b.txt"}, false, true},
		{"multiedit", `{"filePath":"c.txt","edits":[]}`, []string{"/w/c.txt"}, false, true},
		{"write", `{"content":"x"}`, nil, false, true},
		{"apply_patch", `{"patchText":` + conv.Quote(patch) + `}`, []string{"/w/n.go", "/abs/o.go"}, false, true},
		{"patch", `{"patchText":"not a patch"}`, nil, true, true},
		{"bash", `{"command":"make","description":"build"}`, nil, true, true},
		{"github_create_file", `{"path":"x"}`, nil, true, true},
		{"read", `{"filePath":"a.txt"}`, nil, false, false},
		{"grep", `{"pattern":"x"}`, nil, false, false},
		{"task", `{"prompt":"x"}`, nil, false, false},
	}
	for _, c := range cases {
		ev := &agent.Event{Kind: agent.PostTool, Cwd: "/w", ToolName: c.tool, ToolInput: json.RawMessage(c.input)}
		paths, capture, relevant := Agent.Writes(ev)
		if !slices.Equal(paths, c.paths) || capture != c.capture || relevant != c.relevant {
			t.Errorf("%s %s: %q %v %v, want %q %v %v", c.tool, c.input, paths, capture, relevant, c.paths, c.capture, c.relevant)
		}
	}
}

// A fork needs a point before the turn and the agent's database; without
// them it is refused with the reason, and nothing is started.
func TestOpenCodeForkRefusals(t *testing.T) {
	db := filepath.Join(t.TempDir(), "opencode.db")
	var r *agent.Refusal
	if _, err := Agent.Fork(agent.ForkRequest{Session: "ses_1", Transcript: db, Prompt: "Hi"}); !errors.As(err, &r) || !strings.Contains(r.Reason, "first") {
		t.Errorf("fork before the first prompt: %v", err)
	}
	if _, err := Agent.Fork(agent.ForkRequest{Session: "ses_1", Transcript: db, End: true}); !errors.As(err, &r) || !strings.Contains(r.Reason, "end of that turn") {
		t.Errorf("fork at an end without a position: %v", err)
	}
	point := journal.ForkPoint{ForkUUID: "msg_2"}
	if _, err := Agent.Fork(agent.ForkRequest{Session: "ses_1", Transcript: db, Point: point}); !errors.As(err, &r) || !strings.Contains(r.Reason, "database") {
		t.Errorf("fork with the database missing: %v", err)
	}
	os.WriteFile(db, nil, 0o600)
	t.Setenv("PATH", t.TempDir())
	if _, err := Kilo.Fork(agent.ForkRequest{Session: "ses_1", Transcript: db, Point: point, Dir: t.TempDir()}); !errors.As(err, &r) || !strings.Contains(r.Reason, "kilo is not on PATH") {
		t.Errorf("fork without kilo: %v", err)
	}
}

// setup writes the plugin into the project's plugin folder, or the
// user's; twice changes nothing; other plugins stay; an older install of
// its own is brought up to date; a file of that name it did not write is
// refused, untouched.
func TestOpenCodeSetup(t *testing.T) {
	root, config := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	for _, ag := range []openCode{Agent, Kilo} {
		o := agent.SetupOptions{Command: "'/opt/rewind lsp/rewind-lsp'", Root: root}
		project := filepath.Join(root, ag.project, "plugins")
		other := filepath.Join(project, "other.ts")
		os.MkdirAll(project, 0o755)
		os.WriteFile(other, []byte("export const Other = async () => ({})\n"), 0o644)
		r, err := ag.Setup(o)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ocplugin.Render(o.Command, ag.name)
		path := filepath.Join(project, "rewind-lsp.js")
		if got, _ := os.ReadFile(path); r.File != path || len(r.Added) != 1 || string(got) != want {
			t.Errorf("%s: setup %+v wrote %s", ag.name, r, path)
		}
		if got, _ := os.ReadFile(other); string(got) != "export const Other = async () => ({})\n" {
			t.Errorf("%s: another plugin changed", ag.name)
		}
		if r, err := ag.Setup(o); err != nil || len(r.Added) != 0 {
			t.Errorf("%s: setup again: %+v %v", ag.name, r, err)
		}
		o.Command = "rewind-lsp"
		if r, err := ag.Setup(o); err != nil || len(r.Added) != 1 || !strings.Contains(r.Added[0], "updated") {
			t.Errorf("%s: setup with another command: %+v %v", ag.name, r, err)
		}
		o.User = true
		r, err = ag.Setup(o)
		if user := filepath.Join(config, ag.dir, "plugins", "rewind-lsp.js"); err != nil || r.File != user {
			t.Errorf("%s: setup --user: %+v %v, want %s", ag.name, r, err, user)
		}
		os.WriteFile(path, []byte("export const Mine = 1\n"), 0o644)
		o.User = false
		if _, err := ag.Setup(o); err == nil || !strings.Contains(err.Error(), "not rewind-lsp's plugin") {
			t.Errorf("%s: a foreign rewind-lsp.js: %v", ag.name, err)
		}
		if got, _ := os.ReadFile(path); string(got) != "export const Mine = 1\n" {
			t.Errorf("%s: the foreign file was changed", ag.name)
		}
	}
	if _, err := Agent.Setup(agent.SetupOptions{Command: "rewind-lsp"}); err == nil {
		t.Error("setup with no project and no --user succeeded")
	}
}

// A prompt's leaf tells which earlier turns an undo dropped: the first
// turn whose own leaf is not before it.
func TestOwnRewindDropped(t *testing.T) {
	points := []string{"", "msg_0005", "msg_0009"} // turns 1, 2, 3: the last message before each prompt
	for leaf, want := range map[string]int{
		"msg_0012": -1, // after turn 3: nothing dropped
		"msg_0009": 2,  // back to before turn 3's prompt (/undo once)
		"msg_0007": 2,  // a message of turn 2 (an undo to a part of it)
		"msg_0005": 1,  // before turn 2's prompt
		"":         0,  // the whole conversation
	} {
		if got := OwnRewindDropped(leaf, points); got != want {
			t.Errorf("leaf %q: %d, want %d", leaf, got, want)
		}
	}
}

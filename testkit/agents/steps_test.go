package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// TestStepsRealAgents: each real agent, after `rewind-lsp setup <agent>
// --user`, runs one prompt of three tool calls — a file tool creates a.txt,
// another changes it, the shell writes b.txt — and `log` lists the turn's
// three steps with their tools and files; `rewind 1.2` puts back the state
// after step 1 byte for byte; `undo` brings the turn's end back; `revert
// 1.2` takes back step 2 alone, steps 1 and 3 kept.
func TestStepsRealAgents(t *testing.T) {
	for _, k := range All {
		t.Run(string(k), func(t *testing.T) { stepsAgent(t, k) })
	}
}

func stepsAgent(t *testing.T, k Kind) {
	model := startModel(t)
	e := New(t, k, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)
	if r := e.Exec(ws, rl, "setup", agentName[k], "--user"); r.Exit != 0 || strings.Contains(r.Stdout, "one more step") {
		t.Fatalf("setup %s: exit %d\n%s%s", agentName[k], r.Exit, r.Stdout, r.Stderr)
	}

	a := filepath.Join(ws, "a.txt")
	calls := []fakemodel.Call{WriteFile(k, ws, a, "one\n"), EditFile(k, ws, a, "one", "two"), Shell(k, "echo shell > b.txt")}
	prompt := "Create a.txt, change it, then write b.txt from the shell."
	model.On(prompt, fakemodel.Tools(calls[0]), fakemodel.Tools(calls[1]), fakemodel.Tools(calls[2]), fakemodel.Say("Done."))
	if s := e.Prompt(ws, prompt).Session; s == "" {
		t.Fatal("the agent reported no session")
	}
	end := map[string]string{"a.txt": "two\n", "b.txt": "shell\n"}
	wantFiles(t, ws, end)

	var log commands.ListResult
	e.cli(t, ws, rl, &log, "log")
	if len(log.Turns) != 1 {
		t.Fatalf("log shows %d turns, want 1: %+v", len(log.Turns), log.Turns)
	}
	steps := log.Turns[0].Steps
	wantFilesOf := [][]string{{"a.txt"}, {"a.txt"}, {"b.txt"}}
	if len(steps) != 3 {
		t.Fatalf("turn 1 has %d steps, want 3: %+v", len(steps), steps)
	}
	for i, st := range steps {
		var files []string
		for _, c := range st.Changed {
			files = append(files, c.Path)
		}
		if st.Step != i+1 || st.Target != "1."+string(rune('1'+i)) || st.Tool != ToolName(k, calls[i]) || !slices.Equal(files, wantFilesOf[i]) {
			t.Errorf("step %d: %+v (files %v), want tool %s, files %v", i+1, st, files, ToolName(k, calls[i]), wantFilesOf[i])
		}
	}

	var rw commands.RewindResult
	e.cli(t, ws, rl, &rw, "rewind", "1.2")
	if !rw.Applied {
		t.Fatalf("rewind 1.2 did not apply: %s", rw.FailureReason)
	}
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": ""})

	var un commands.RewindResult
	e.cli(t, ws, rl, &un, "undo")
	if !un.Applied {
		t.Fatalf("undo did not apply: %s", un.FailureReason)
	}
	wantFiles(t, ws, end)

	var rv commands.RewindResult
	e.cli(t, ws, rl, &rv, "revert", "1.2")
	if !rv.Applied {
		t.Fatalf("revert 1.2 did not apply: %s", rv.FailureReason)
	}
	wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": "shell\n"})
}

// TestMCPToolStepsRealAgents: a tool of another MCP server that writes a
// file is a step like the agent's own tools — each real agent, in one
// prompt, writes m.txt through the MCP server "writer" and then a.txt with
// its file tool: two steps, the MCP tool's named as the agent's hooks name
// it, and `rewind 1.2` leaves m.txt written and a.txt not.
func TestMCPToolStepsRealAgents(t *testing.T) {
	for _, k := range All {
		t.Run(string(k), func(t *testing.T) { mcpToolSteps(t, k) })
	}
}

func mcpToolSteps(t *testing.T, k Kind) {
	model := startModel(t)
	e := New(t, k, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	ws := workspace(t, e)
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)
	if r := e.Exec(ws, rl, "setup", agentName[k], "--user"); r.Exit != 0 || strings.Contains(r.Stdout, "one more step") {
		t.Fatalf("setup %s: exit %d\n%s%s", agentName[k], r.Exit, r.Stdout, r.Stderr)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e.AddMCPServer("writer", self, mcpWriterArg)

	m, a := filepath.Join(ws, "m.txt"), filepath.Join(ws, "a.txt")
	var replies []fakemodel.Reply
	if load, ok := LoadMCPTools(k, "writer", "write"); ok {
		replies = append(replies, fakemodel.Tools(load))
	}
	replies = append(replies, fakemodel.Tools(MCPTool(k, "writer", "write", map[string]any{"path": m, "content": "m\n"})),
		fakemodel.Tools(WriteFile(k, ws, a, "a\n")), fakemodel.Say("Done."))
	prompt := "Write m.txt through the writer, then a.txt."
	model.On(prompt, replies...)
	e.Prompt(ws, prompt)
	wantFiles(t, ws, map[string]string{"m.txt": "m\n", "a.txt": "a\n"})

	var log commands.ListResult
	e.cli(t, ws, rl, &log, "log")
	if len(log.Turns) != 1 {
		t.Fatalf("log shows %d turns, want 1: %+v", len(log.Turns), log.Turns)
	}
	steps := log.Turns[0].Steps
	if len(steps) != 2 || len(steps[0].Changed) != 1 || steps[0].Changed[0].Path != "m.txt" || !strings.Contains(steps[0].Tool, "write") || steps[0].Detail != "m.txt" ||
		len(steps[1].Changed) != 1 || steps[1].Changed[0].Path != "a.txt" {
		t.Fatalf("want the MCP tool's step (m.txt) and the file tool's (a.txt): %+v", steps)
	}
	t.Logf("the MCP tool's step: %s", steps[0].Title)
	var rw commands.RewindResult
	e.cli(t, ws, rl, &rw, "rewind", "1.2")
	if !rw.Applied {
		t.Fatalf("rewind 1.2 did not apply: %s", rw.FailureReason)
	}
	wantFiles(t, ws, map[string]string{"m.txt": "m\n", "a.txt": ""})
}

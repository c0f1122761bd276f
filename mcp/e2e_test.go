package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// agentWS is a workspace an MCP client drives through the real binary.
type agentWS struct {
	*testkit.Sandbox
	t *testing.T
}

// newAgentWS makes a sandbox whose store folder exists (empty).
func newAgentWS(t *testing.T) *agentWS {
	w := &agentWS{Sandbox: testkit.NewSandbox(t), t: t}
	if err := os.Mkdir(w.Store, 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

// cli runs the command line on the workspace, alone (no server).
func (w *agentWS) cli(args ...string) (string, int) {
	w.t.Helper()
	c := w.Command(append([]string{"--root", w.Root, "--store", w.Store}, args...), "REWIND_LSP_NO_SERVER=1")
	out, err := c.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return string(out), code
}

// connect starts `rewind-lsp mcp` and connects the SDK's client to it
// over its stdin and stdout.
func (w *agentWS) connect() *sdk.ClientSession {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	w.t.Cleanup(cancel)
	cmd := w.Command([]string{"--root", w.Root, "--store", w.Store, "mcp"})
	cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		w.t.Fatalf("connect to rewind-lsp mcp: %v", err)
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its text and whether it is a tool error.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func ok(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	text, isErr := call(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s %v: tool error %q", tool, args, text)
	}
	return text
}

func toolErr(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, want string) {
	t.Helper()
	text, isErr := call(t, cs, tool, args)
	if !isErr || !strings.Contains(text, want) {
		t.Fatalf("%s %v: %q (error %v), want a tool error saying %q", tool, args, text, isErr, want)
	}
}

// TestMCPToolsAndErrors: the four tools, their error texts, agent-<n>
// labels counted per root across connections.
func TestMCPToolsAndErrors(t *testing.T) {
	w := newAgentWS(t)
	w.Write("a.txt", "one\n")
	cs := w.connect()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, []string{"checkpoint", "diff", "rewind", "turns"}) {
		t.Fatalf("tools %v", names)
	}
	toolErr(t, cs, "rewind", map[string]any{"report": "tried X"}, "No active checkpoint.")
	toolErr(t, cs, "rewind", map[string]any{"report": "  \n"}, "Report cannot be empty.")
	toolErr(t, cs, "rewind", map[string]any{}, "Report cannot be empty.")
	toolErr(t, cs, "checkpoint", map[string]any{"goal": " "}, "Goal cannot be empty.")
	toolErr(t, cs, "checkpoint", map[string]any{}, "Goal cannot be empty.")
	if got := ok(t, cs, "checkpoint", map[string]any{"goal": "try a cache"}); !strings.Contains(got, "agent-1") {
		t.Fatalf("first checkpoint: %q", got)
	}
	if got := ok(t, cs, "checkpoint", map[string]any{"goal": "try a pool"}); !strings.Contains(got, "agent-2") {
		t.Fatalf("second checkpoint: %q", got)
	}
	cs.Close()
	// A new connection counts the root's agent checkpoints on, and has no
	// active checkpoint of its own.
	cs = w.connect()
	toolErr(t, cs, "rewind", map[string]any{"report": "x"}, "No active checkpoint.")
	if got := ok(t, cs, "checkpoint", map[string]any{"goal": "third"}); !strings.Contains(got, "agent-3") {
		t.Fatalf("checkpoint of a new connection: %q", got)
	}
	turns := ok(t, cs, "turns", nil)
	for _, want := range []string{"@agent-1", "try a cache", "@agent-3"} {
		if !strings.Contains(turns, want) {
			t.Errorf("turns lacks %q:\n%s", want, turns)
		}
	}
	w.Write("a.txt", "two\n")
	if d := ok(t, cs, "diff", map[string]any{"target": "@agent-1"}); !strings.Contains(d, "-two\n+one\n") {
		t.Fatalf("diff to @agent-1:\n%s", d)
	}
	toolErr(t, cs, "diff", map[string]any{"target": "@nope"}, "no checkpoint has that label")
	// Every agent checkpoint is an ordinary journal entry.
	if out, _ := w.cli("log"); !strings.Contains(out, "@agent-2") || !strings.Contains(out, "try a pool") {
		t.Fatalf("log lacks the agent's checkpoints:\n%s", out)
	}
}

// TestMCPCheckpointEditRewindUndo: an MCP client checkpoints, edits files, rewinds with a report: the files are
// back, the report is in log, and undo takes the rewind back.
func TestMCPCheckpointEditRewindUndo(t *testing.T) {
	w := newAgentWS(t)
	w.Write("src/main.go", "package main\n")
	w.Write("keep.txt", "mine\n")
	cs := w.connect()
	ok(t, cs, "checkpoint", map[string]any{"goal": "inline the parser"})
	// The agent's exploration: an edit, a new file, a deletion (as its
	// shell would make them).
	w.Write("src/main.go", "package main\n\nfunc parse() {}\n")
	w.Write("src/parse_inline.go", "package main\n")
	os.Remove(filepath.Join(w.Root, "keep.txt"))

	text, isErr := call(t, cs, "rewind", map[string]any{"report": "inlining broke the error positions"})
	if isErr {
		t.Fatalf("rewind refused the agent's own changes since its checkpoint: %q", text)
	}
	t.Logf("rewind: %s", text)
	if w.Read("src/main.go") != "package main\n" || w.Read("src/parse_inline.go") != "<missing>" || w.Read("keep.txt") != "mine\n" {
		t.Fatalf("files not back: main=%q inline=%q keep=%q", w.Read("src/main.go"), w.Read("src/parse_inline.go"), w.Read("keep.txt"))
	}
	log, _ := w.cli("log")
	if !strings.Contains(log, "inlining broke the error positions") {
		t.Fatalf("report not in log:\n%s", log)
	}
	t.Logf("log:\n%s", log)
	// The checkpoint was used: rewinding again needs a new one.
	toolErr(t, cs, "rewind", map[string]any{"report": "again"}, "No active checkpoint.")
	if out, code := w.cli("undo"); code != 0 {
		t.Fatalf("undo: exit %d %s", code, out)
	}
	if w.Read("src/main.go") != "package main\n\nfunc parse() {}\n" || w.Read("src/parse_inline.go") != "package main\n" || w.Read("keep.txt") != "<missing>" {
		t.Fatal("undo did not bring the agent's exploration back")
	}
}

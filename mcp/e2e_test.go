package mcp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// bin is the rewind-lsp binary, built once for these tests.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rewind-lsp-mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "rewind-lsp")
	build := exec.Command("go", "build", "-o", bin, "../cmd/rewind-lsp")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build rewind-lsp:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// agentWS is a workspace an MCP client drives through the real binary.
type agentWS struct {
	t           *testing.T
	root, store string
}

func newAgentWS(t *testing.T) *agentWS {
	return &agentWS{t: t, root: t.TempDir(), store: t.TempDir()}
}

func (w *agentWS) write(rel, content string) {
	w.t.Helper()
	p := filepath.Join(w.root, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *agentWS) read(rel string) string {
	data, err := os.ReadFile(filepath.Join(w.root, rel))
	if err != nil {
		return "<missing>"
	}
	return string(data)
}

// cli runs the command line on the workspace.
func (w *agentWS) cli(args ...string) (string, int) {
	w.t.Helper()
	c := exec.Command(bin, append([]string{"--root", w.root, "--store", w.store}, args...)...)
	c.Env = append(os.Environ(), "REWIND_LSP_NO_SERVER=1")
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
	cmd := exec.Command(bin, "--root", w.root, "--store", w.store, "mcp")
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
	w.write("a.txt", "one\n")
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
	w.write("a.txt", "two\n")
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
	w.write("src/main.go", "package main\n")
	w.write("keep.txt", "mine\n")
	cs := w.connect()
	ok(t, cs, "checkpoint", map[string]any{"goal": "inline the parser"})
	// The agent's exploration: an edit, a new file, a deletion (as its
	// shell would make them).
	w.write("src/main.go", "package main\n\nfunc parse() {}\n")
	w.write("src/parse_inline.go", "package main\n")
	os.Remove(filepath.Join(w.root, "keep.txt"))

	text, isErr := call(t, cs, "rewind", map[string]any{"report": "inlining broke the error positions"})
	if isErr {
		t.Fatalf("rewind refused the agent's own changes since its checkpoint: %q", text)
	}
	t.Logf("rewind: %s", text)
	if w.read("src/main.go") != "package main\n" || w.read("src/parse_inline.go") != "<missing>" || w.read("keep.txt") != "mine\n" {
		t.Fatalf("files not back: main=%q inline=%q keep=%q", w.read("src/main.go"), w.read("src/parse_inline.go"), w.read("keep.txt"))
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
	if w.read("src/main.go") != "package main\n\nfunc parse() {}\n" || w.read("src/parse_inline.go") != "package main\n" || w.read("keep.txt") != "<missing>" {
		t.Fatal("undo did not bring the agent's exploration back")
	}
}

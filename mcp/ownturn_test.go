package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// hook feeds the Claude Code hook one event of session sid and returns
// its stderr.
func (w *agentWS) hook(sid string, ev map[string]any) string {
	w.t.Helper()
	ev["session_id"], ev["cwd"] = sid, w.Root
	return w.feedHook("claude-code", ev)
}

// feedHook runs `rewind-lsp hook AGENT` on one event (no server) and
// returns its stderr.
func (w *agentWS) feedHook(agent string, ev map[string]any) string {
	w.t.Helper()
	data, _ := json.Marshal(ev)
	c := w.Command([]string{"--store", w.Store, "hook", agent}, "REWIND_LSP_NO_SERVER=1")
	c.Dir = w.Root
	c.Stdin = strings.NewReader(string(data))
	var errb strings.Builder
	c.Stderr = &errb
	if err := c.Run(); err != nil {
		w.t.Fatalf("hook %v: %v", ev["hook_event_name"], err)
	}
	return errb.String()
}

// connectAs starts `rewind-lsp mcp` as the agent of session sid starts
// it: its environment names the session.
func (w *agentWS) connectAs(sid string) *sdk.ClientSession {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	w.t.Cleanup(cancel)
	cmd := w.Command([]string{"--root", w.Root, "--store", w.Store, "mcp"}, "REWIND_LSP_NO_SERVER=1", "CLAUDE_CODE_SESSION_ID="+sid)
	cmd.Stderr = os.Stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		w.t.Fatalf("connect to rewind-lsp mcp: %v", err)
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPRewindInsideTurn: within one prompt the agent checkpoints, writes
// d.txt, rewinds over MCP and writes e.txt. Its turn stays open through
// its own rewind; its Stop ends it with e.txt only; nothing is a conflict;
// revert of the session takes e.txt back.
func TestMCPRewindInsideTurn(t *testing.T) {
	w := newAgentWS(t)
	w.Write("a.txt", "a\n")
	const sid = "0a6e7c1e-1111-4222-8333-444455556666"
	cs := w.connectAs(sid)
	w.hook(sid, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "try d, then e"})
	ok(t, cs, "checkpoint", map[string]any{"goal": "try d"})
	w.Write("d.txt", "d\n")
	w.hook(sid, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": w.Root + "/d.txt", "content": "d\n"}})
	ok(t, cs, "rewind", map[string]any{"report": "d was wrong"})
	if w.Read("d.txt") != "<missing>" {
		t.Fatal("the rewind left d.txt")
	}
	w.hook(sid, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "t1",
		"tool_input": map[string]any{"command": "echo e > e.txt"}})
	w.Write("e.txt", "e\n")
	w.hook(sid, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "t1",
		"tool_input": map[string]any{"command": "echo e > e.txt"}})
	if stderr := w.hook(sid, map[string]any{"hook_event_name": "Stop"}); stderr != "" {
		t.Fatalf("Stop: %s", stderr)
	}

	var log struct {
		Turns []struct {
			Turn    int    `json:"turn"`
			Ended   string `json:"ended"`
			Session string `json:"session"`
			Changed []struct {
				Path, Change string
			} `json:"changed"`
		} `json:"turns"`
	}
	out, _ := w.cli("--json", "log")
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("log: %v\n%s", err, out)
	}
	if len(log.Turns) != 1 || log.Turns[0].Ended == "" || len(log.Turns[0].Changed) != 1 || log.Turns[0].Changed[0].Path != "e.txt" {
		t.Fatalf("want one ended turn that changed e.txt only:\n%s", out)
	}
	if out, code := w.cli("--json", "rewind", "1", "--dry-run"); code != 0 || strings.Contains(out, `"conflict": true`) || strings.Contains(out, `"conflict":true`) {
		t.Fatalf("rewind 1 --dry-run: exit %d, a conflict:\n%s", code, out)
	}
	if out, code := w.cli("revert", "--session", sid); code != 0 {
		t.Fatalf("revert --session: exit %d\n%s", code, out)
	}
	if w.Read("e.txt") != "<missing>" || w.Read("a.txt") != "a\n" {
		t.Fatalf("after revert --session: e.txt %q, a.txt %q", w.Read("e.txt"), w.Read("a.txt"))
	}
}

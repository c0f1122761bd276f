package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// codexHook feeds the Codex hook one event of thread sid, turn turnID.
func (w *agentWS) codexHook(sid, turnID string, ev map[string]any) string {
	w.t.Helper()
	ev["session_id"], ev["turn_id"], ev["cwd"] = sid, turnID, w.Root
	return w.feedHook("codex", ev)
}

// codexCall calls a tool as Codex does: the thread named in the call's
// _meta, the server's environment naming no session.
func codexCall(t *testing.T, cs *sdk.ClientSession, sid, tool string, args map[string]any) string {
	t.Helper()
	meta := sdk.Meta{"callId": "call_1", "threadId": sid, "sessionId": sid, "x-codex-turn-metadata": map[string]any{"thread_id": sid, "session_id": sid}}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Meta: meta, Name: tool, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", tool, err, res)
	}
	return res.Content[0].(*sdk.TextContent).Text
}

// TestMCPRewindInsideTurnNamedByTheCall: Codex starts its MCP servers
// with no session in their environment and names its thread in each
// tools/call's _meta. Within one prompt it checkpoints, writes d.txt with
// apply_patch, rewinds over MCP and writes e.txt from its shell: its turn
// stays open through its own rewind, its Stop ends it with e.txt only,
// and revert of the session takes e.txt back.
func TestMCPRewindInsideTurnNamedByTheCall(t *testing.T) {
	w := newAgentWS(t)
	w.Write("a.txt", "a\n")
	const sid, turn = "01a20f7e-6441-7313-a99d-bf4b77b0c67a", "01a20f7e-645a-7223-ad04-4e30c132a789"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := w.Command([]string{"--root", w.Root, "--store", w.Store, "mcp"}, "REWIND_LSP_NO_SERVER=1", "CLAUDE_CODE_SESSION_ID=", "REWIND_LSP_SESSION=")
	cmd.Stderr = os.Stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "codex-mcp-client", Version: "0.169.0"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	w.codexHook(sid, turn, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "try d, then e"})
	codexCall(t, cs, sid, "checkpoint", map[string]any{"goal": "try d"})
	w.Write("d.txt", "d\n")
	patch := "*** Begin Patch\n*** Add File: d.txt\n+d\n*** End Patch\n"
	w.codexHook(sid, turn, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "apply_patch", "tool_use_id": "call_2",
		"tool_input": map[string]any{"command": patch}})
	codexCall(t, cs, sid, "rewind", map[string]any{"report": "d was wrong"})
	if w.Read("d.txt") != "<missing>" {
		t.Fatal("the rewind left d.txt")
	}
	shell := map[string]any{"command": "echo e > e.txt"}
	w.codexHook(sid, turn, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "call_3", "tool_input": shell})
	w.Write("e.txt", "e\n")
	w.codexHook(sid, turn, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "call_3", "tool_input": shell})
	if stderr := w.codexHook(sid, turn, map[string]any{"hook_event_name": "Stop"}); stderr != "" {
		t.Fatalf("Stop: %s", stderr)
	}

	var log struct {
		Turns []struct {
			Ended   string `json:"ended"`
			Session string `json:"session"`
			Changed []struct{ Path string }
		} `json:"turns"`
	}
	out, _ := w.cli("--json", "log")
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("log: %v\n%s", err, out)
	}
	if len(log.Turns) != 1 || log.Turns[0].Ended == "" || log.Turns[0].Session != sid || len(log.Turns[0].Changed) != 1 || log.Turns[0].Changed[0].Path != "e.txt" {
		t.Fatalf("want one ended turn of %s that changed e.txt only:\n%s", sid, out)
	}
	if out, code := w.cli("revert", "--session", sid); code != 0 {
		t.Fatalf("revert --session: exit %d\n%s", code, out)
	}
	if w.Read("e.txt") != "<missing>" || w.Read("a.txt") != "a\n" {
		t.Fatalf("after revert --session: e.txt %q, a.txt %q", w.Read("e.txt"), w.Read("a.txt"))
	}
}

package mcp_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPStepTargets: a turn of two Claude Code file-tool calls, fed to the
// hook; the agent's diff to "1.2" is step 2's change backwards, its turns
// list the steps, and its rewind to "1.2" puts back the state after step 1.
func TestMCPStepTargets(t *testing.T) {
	w := newAgentWS(t)
	w.Write("a.txt", "a\n")
	hook := func(ev map[string]any) {
		t.Helper()
		ev["session_id"], ev["cwd"] = "S", w.Root
		data, _ := json.Marshal(ev)
		c := w.Command([]string{"--root", w.Root, "--store", w.Store, "hook", "claude-code"}, "REWIND_LSP_NO_SERVER=1")
		c.Stdin = strings.NewReader(string(data))
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("hook %s: %v\n%s", ev["hook_event_name"], err, out)
		}
	}
	hook(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "two edits"})
	for i, text := range []string{"a\nb\n", "a\nb\nc\n"} {
		in := map[string]any{"file_path": filepath.Join(w.Root, "a.txt")}
		id := []string{"t1", "t2"}[i]
		hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": in, "tool_use_id": id})
		w.Write("a.txt", text)
		hook(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": in, "tool_use_id": id})
	}
	hook(map[string]any{"hook_event_name": "Stop"})

	cs := w.connect()
	if turns := ok(t, cs, "turns", map[string]any{}); !strings.Contains(turns, "turn 1, step 2: Edit a.txt") {
		t.Errorf("turns does not list step 2:\n%s", turns)
	}
	if diff := ok(t, cs, "diff", map[string]any{"target": "1.2"}); !strings.Contains(diff, "-c\n") || strings.Contains(diff, "-b\n") {
		t.Errorf("diff to 1.2 is not step 2 backwards:\n%s", diff)
	}
	toolErr(t, cs, "diff", map[string]any{"target": "1.5"}, "its steps: 1, 2")
	ok(t, cs, "rewind", map[string]any{"report": "step 2 was wrong", "target": "1.2"})
	if got := w.Read("a.txt"); got != "a\nb\n" {
		t.Fatalf("after the rewind to 1.2: %q", got)
	}
}

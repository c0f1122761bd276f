package e2e_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// TestPiGoBackFindsTheRecordedState: pi's extension hands over, where the
// person goes back in pi's /tree or /fork, the conversation's path to the
// entry picked; `hook pi` answers with the recorded state that goes with
// it. Two turns of a pi session recorded from their hook events (the
// leaf entry at each); then a path ending at prompt two (pi goes on from
// the entry before it) names the state before turn 2, one ending at turn
// 1's tool result the state after that step, one ending at prompt one the
// state before turn 1, at turn 1's answer with nothing after it the state
// before turn 2 (where that turn started), and a path rewind-lsp never
// saw nothing. Another agent's turns are not pi's.
func TestPiGoBackFindsTheRecordedState(t *testing.T) {
	w := newWS(t)
	session := "01a2f000-0000-7000-8000-000000000001"
	file := filepath.Join(w.Root, "..", "sessions", "s.jsonl") // pi has not written it yet: it need not exist
	event := func(name, leaf string, kv ...any) string {
		t.Helper()
		ev := map[string]any{"hook_event_name": name, "session_id": session, "transcript_path": file, "cwd": w.Root, "leaf_id": leaf}
		for i := 0; i+1 < len(kv); i += 2 {
			ev[kv[i].(string)] = kv[i+1]
		}
		data, _ := json.Marshal(ev)
		r := w.runIn(string(data), "hook", "pi")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("hook pi %s: exit %d: %s", name, r.code, r.stderr)
		}
		return r.stdout
	}
	tool := func(name, leaf, id, command string) {
		event(name, leaf, "tool_name", "bash", "tool_input", map[string]any{"command": command}, "tool_use_id", id)
	}
	// Turn 1: entries e0 (before it), u1 (the prompt), a1 (the call), t1 (its result), a2 (the answer).
	event("UserPromptSubmit", "e0", "prompt", "prompt one")
	tool("PreToolUse", "a1", "call_1", "echo one > a.txt")
	w.Write("a.txt", "one\n")
	tool("PostToolUse", "a1", "call_1", "echo one > a.txt")
	event("Stop", "a2")
	// Turn 2: u2, a3, t3, a4.
	event("UserPromptSubmit", "a2", "prompt", "prompt two")
	tool("PreToolUse", "a3", "call_2", "echo two > a.txt")
	w.Write("a.txt", "two\n")
	tool("PostToolUse", "a3", "call_2", "echo two > a.txt")
	event("Stop", "a4")

	var log commands.ListResult
	w.okJSON(&log, "log")
	if len(log.Turns) != 2 || len(log.Turns[0].Steps) != 1 {
		t.Fatalf("want two turns, the first with a step: %+v", log.Turns)
	}
	type entry struct {
		ID         string `json:"id"`
		Type       string `json:"type"`
		Role       string `json:"role"`
		ToolCallID string `json:"toolCallId"`
	}
	e0 := entry{"e0", "model_change", "", ""}
	u1 := entry{"u1", "message", "user", ""}
	a1 := entry{"a1", "message", "assistant", ""}
	t1 := entry{"t1", "message", "toolResult", "call_1"}
	a2 := entry{"a2", "message", "assistant", ""}
	u2 := entry{"u2", "message", "user", ""}
	for _, c := range []struct {
		name   string
		path   []entry
		target string
		title  string
	}{
		{"prompt two", []entry{e0, u1, a1, t1, a2, u2}, string(log.Turns[1].Entry), "the state before turn 2 (prompt two)"},
		{"turn 1's tool result", []entry{e0, u1, a1, t1}, string(log.Turns[0].Steps[0].Entry), `after step 1 of turn 1 (bash "echo one > a.txt")`},
		{"prompt one", []entry{e0, u1}, string(log.Turns[0].Entry), "the state before turn 1 (prompt one)"},
		{"turn 1's answer", []entry{e0, u1, a1, t1, a2}, string(log.Turns[1].Entry), "the state before turn 2 (prompt two)"},
		{"an entry never recorded", []entry{{"zz", "message", "assistant", ""}}, "", ""},
	} {
		out := event("GoBack", "a4", "path", c.path)
		var got commands.AgentTargetResult
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: hook pi GoBack printed %q: %v", c.name, out, err)
		}
		if string(got.Target) != c.target || got.Title != c.title {
			t.Errorf("%s: got %q %q, want %q %q", c.name, got.Target, got.Title, c.target, c.title)
		}
	}
	// The same path handed over by oh-my-pi: none of these turns is its.
	data, _ := json.Marshal(map[string]any{"hook_event_name": "GoBack", "session_id": session, "transcript_path": file, "cwd": w.Root,
		"leaf_id": "a4", "path": []entry{e0, u1, a1, t1, a2, u2}})
	if r := w.runIn(string(data), "hook", "omp"); r.code != 0 || r.stdout != "{\"target\":\"\",\"title\":\"\"}\n" {
		t.Errorf("hook omp GoBack on pi's turns: exit %d, %q %s", r.code, r.stdout, r.stderr)
	}
}

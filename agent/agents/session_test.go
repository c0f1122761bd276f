package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The session each agent names to the commands it runs, as the real
// binaries set it; an explicit REWIND_LSP_SESSION wins; an agent run from
// Claude Code's shell, which inherits Claude Code's variable, is the one
// whose session it is; Gemini CLI's variables name none.
func TestSessionFromEnv(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"CLAUDE_CODE_SESSION_ID": "claude-1"}, "claude-1"},
		{map[string]string{"CODEX_THREAD_ID": "codex-1", "CODEX_SESSION_ID": "codex-1", "CODEX_TOOL_CALL_ID": "call_1"}, "codex-1"},
		{map[string]string{"COPILOT_AGENT_SESSION_ID": "copilot-1", "COPILOT_CLI": "1"}, "copilot-1"},
		{map[string]string{"GEMINI_CLI": "1", "GEMINI_CLI_NO_RELAUNCH": "true"}, ""},
		{map[string]string{"CLAUDE_CODE_SESSION_ID": "claude-1", "CODEX_THREAD_ID": "codex-1"}, "codex-1"},
		{map[string]string{"CLAUDE_CODE_SESSION_ID": "claude-1", "COPILOT_AGENT_SESSION_ID": "copilot-1"}, "copilot-1"},
		{map[string]string{"QWEN_CODE_SESSION_ID": "qwen-1", "QWEN_CODE": "1"}, "qwen-1"},
		{map[string]string{"CLAUDE_CODE_SESSION_ID": "claude-1", "QWEN_CODE_SESSION_ID": "qwen-1"}, "qwen-1"},
		{map[string]string{"REWIND_LSP_SESSION": "mine", "CODEX_THREAD_ID": "codex-1", "CLAUDE_CODE_SESSION_ID": "claude-1"}, "mine"},
		{map[string]string{}, ""},
	}
	for _, c := range cases {
		if got := SessionFromEnv(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("SessionFromEnv(%v) = %q, want %q", c.env, got, c.want)
		}
	}
}

// A tools/call as the real Codex sent it (testdata/codex/mcp-tools-call.json)
// names its thread; without threadId, its turn metadata still does; a
// call whose _meta names no session (Gemini CLI's) gives "".
func TestSessionFromMeta(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "codex", "mcp-tools-call.json"))
	if err != nil {
		t.Fatal(err)
	}
	var call struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(data, &call); err != nil {
		t.Fatal(err)
	}
	// The thread the session's hooks call session_id: the rollout's id.
	turn, _ := call.Params.Meta["x-codex-turn-metadata"].(map[string]any)
	thread, _ := turn["session_id"].(string)
	if thread == "" {
		t.Fatalf("the fixture names no session: %s", data)
	}
	if got := SessionFromMeta(call.Params.Meta); got != thread {
		t.Errorf("Codex's call names session %q, want %q", got, thread)
	}
	delete(call.Params.Meta, "threadId")
	if got := SessionFromMeta(call.Params.Meta); got != thread {
		t.Errorf("without threadId: %q, want %q from the turn metadata", got, thread)
	}
	if got := SessionFromMeta(map[string]any{"progressToken": "d0883783-3236-4c89-9875-0d2e56661e29"}); got != "" {
		t.Errorf("Gemini CLI's call names session %q", got)
	}
}

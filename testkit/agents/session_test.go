package agents

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/agent/agents"
	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// sessionVars are the environment variables each real agent sets to its
// session id for the commands its shell tool runs and for the MCP servers
// it starts (agents.SessionFromEnv reads them).
var sessionVars = map[Kind]struct{ shell, mcp []string }{
	Claude:  {shell: []string{"CLAUDE_CODE_SESSION_ID"}, mcp: []string{"CLAUDE_CODE_LAUNCHED_BY_SESSION_IDS", "CLAUDE_CODE_SESSION_ID"}},
	Codex:   {shell: []string{"CODEX_SESSION_ID", "CODEX_THREAD_ID"}},
	Gemini:  {},
	Copilot: {shell: []string{"COPILOT_AGENT_SESSION_ID"}, mcp: []string{"COPILOT_AGENT_SESSION_ID"}},
	Qwen:    {shell: []string{"QWEN_CODE_SESSION_ID"}, mcp: []string{"QWEN_CODE_SESSION_ID"}},
}

// TestAgentsNameTheirSession asks each real agent which session its
// tools' processes run under: in a session and then in that session
// resumed, the model runs `env` from the agent's shell, and the agent
// starts an MCP server (rewind-lsp mcp, its environment kept first).
// The variables that hold the session id are exactly sessionVars (Gemini
// CLI's hold it nowhere); agents.SessionFromEnv finds the session in each
// environment that names it. Codex names its thread in each MCP tool
// call's _meta instead, which agents.SessionFromMeta reads (with -update,
// the call is kept in agent/testdata/codex/mcp-tools-call.json).
func TestAgentsNameTheirSession(t *testing.T) {
	for _, k := range All {
		t.Run(string(k), func(t *testing.T) { agentSessionEnv(t, k) })
	}
}

func agentSessionEnv(t *testing.T, k Kind) {
	model := startModel(t)
	e := New(t, k, model)
	e.ExtraEnv = append(e.ExtraEnv, "REWIND_LSP_HOME="+filepath.Join(e.Dir(), "store"))
	e.Timeout = 40 * time.Second
	ws := workspace(t, e)
	dumps := filepath.Join(e.Dir(), "dumps")
	if err := os.MkdirAll(dumps, 0o755); err != nil {
		t.Fatal(err)
	}
	mcp := filepath.Join(e.Dir(), "bin", "mcp-env")
	writeFile(t, mcp, fmt.Sprintf("#!/bin/sh\nenv > %s/mcp-env.$$\ntee %s/mcp-in.$$ | %s mcp --root %s\n",
		shellQuote(dumps), shellQuote(dumps), shellQuote(testkit.Binary(t)), shellQuote(ws)))
	if err := os.Chmod(mcp, 0o755); err != nil {
		t.Fatal(err)
	}
	e.AddMCPServer("rewind", mcp)

	first := []fakemodel.Reply{fakemodel.Tools(Shell(k, "env > "+shellQuote(filepath.Join(dumps, "shell-1"))))}
	if k == Codex { // and an MCP tool call, to see its _meta
		load, _ := LoadMCPTools(k, "rewind", "turns")
		first = append(first, fakemodel.Tools(load), fakemodel.Tools(MCPTool(k, "rewind", "turns", map[string]any{})))
	}
	model.On(envPrompts[0], append(first, fakemodel.Say("Done."))...)
	model.On(envPrompts[1], fakemodel.Tools(Shell(k, "env > "+shellQuote(filepath.Join(dumps, "shell-2")))), fakemodel.Say("Done."))
	s1 := e.Prompt(ws, envPrompts[0]).Session
	s2 := e.Resume(ws, s1, envPrompts[1]).Session
	if s1 == "" || s2 != s1 {
		t.Fatalf("sessions %q, then resumed %q", s1, s2)
	}

	want := sessionVars[k]
	check := func(file string, vars []string) {
		t.Helper()
		env := readEnv(t, file)
		var holding []string
		for name, v := range env {
			if v == s1 {
				holding = append(holding, name)
			}
		}
		slices.Sort(holding)
		if !slices.Equal(holding, vars) {
			t.Errorf("%s: the session id is in %q, want %q", filepath.Base(file), holding, vars)
		}
		named := ""
		if len(vars) > 0 {
			named = s1
		}
		if got := agents.SessionFromEnv(func(n string) string { return env[n] }); got != named {
			t.Errorf("%s: agents.SessionFromEnv = %q, want %q", filepath.Base(file), got, named)
		}
		if k == Gemini {
			for name, v := range env {
				if strings.Contains(v, s1) || strings.Contains(v, s1[:8]) {
					t.Errorf("%s: %s=%s names Gemini CLI's session", filepath.Base(file), name, v)
				}
			}
		}
	}
	check(filepath.Join(dumps, "shell-1"), want.shell)
	check(filepath.Join(dumps, "shell-2"), want.shell)
	mcpEnvs, _ := filepath.Glob(filepath.Join(dumps, "mcp-env.*"))
	if len(mcpEnvs) == 0 {
		t.Fatal("the agent started no MCP server")
	}
	for _, f := range mcpEnvs {
		check(f, want.mcp)
	}
	if k == Codex {
		call := codexToolCall(t, dumps)
		var p struct {
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		json.Unmarshal(call, &p)
		if got := agents.SessionFromMeta(p.Params.Meta); got != s1 {
			t.Errorf("Codex's MCP tool call names session %q, want %q:\n%s", got, s1, call)
		}
		if *update {
			norm := normalizer(e.Dir(), e.Home, ws)
			writeFile(t, filepath.Join("..", "..", "agent", "testdata", "codex", "mcp-tools-call.json"), norm(string(call))+"\n")
		}
	}
}

// readEnv reads the output of `env`: NAME=value lines (a value spanning
// lines keeps only its first).
func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the agent's shell did not run env: %v", err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if name, v, ok := strings.Cut(line, "="); ok && name != "" && !strings.ContainsAny(name, " \t") {
			env[name] = v
		}
	}
	return env
}

// codexToolCall is the tools/call request Codex sent the MCP server.
func codexToolCall(t *testing.T, dumps string) []byte {
	t.Helper()
	ins, _ := filepath.Glob(filepath.Join(dumps, "mcp-in.*"))
	for _, in := range ins {
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m struct{ Method string }
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.Method == "tools/call" {
				f.Close()
				return append([]byte(nil), sc.Bytes()...)
			}
		}
		f.Close()
	}
	t.Fatal("Codex sent the MCP server no tools/call")
	return nil
}

// envPrompts are the two prompts of TestAgentsNameTheirSession.
var envPrompts = [2]string{"Show me your shell's environment.", "Show it once more, resumed."}

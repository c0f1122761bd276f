package agents

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// TestOwnRewindKeepsTheTurn: after `rewind-lsp setup <agent> --user`, in
// one prompt the model checkpoints, writes d.txt with its file tool,
// rewinds, and writes e.txt from its shell — Codex through rewind-lsp's MCP
// tools (its calls name the thread in their _meta; its sandboxed shell can
// reach neither the store nor a running server), Copilot CLI with the
// command line from its shell (which names the session in
// COPILOT_AGENT_SESSION_ID). The rewind is the agent's own: d.txt is no
// conflict, the turn stays open, its Stop ends it with e.txt only, and
// revert of the session takes e.txt back.
func TestOwnRewindKeepsTheTurn(t *testing.T) {
	for _, k := range []Kind{Codex, Copilot} {
		t.Run(string(k), func(t *testing.T) { ownRewind(t, k) })
	}
}

func ownRewind(t *testing.T, k Kind) {
	model := startModel(t)
	e := New(t, k, model)
	// The store is the default one in the agent's home: Codex starts its
	// MCP servers with HOME and PATH only.
	ws := workspace(t, e)
	rl := filepath.Join(e.Dir(), "rl", "rewind-lsp")
	copyFile(t, testkit.Binary(t), rl)
	if r := e.Exec(ws, rl, "setup", agentName[k], "--user"); r.Exit != 0 || strings.Contains(r.Stdout, "one more step") {
		t.Fatalf("setup: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	e.Instrument(rl)
	cli := rl + ".real"
	writeFile(t, filepath.Join(ws, "a.txt"), "a\n")

	const prompt = "Try d.txt; if it is wrong, rewind and write e.txt instead."
	d := WriteFile(k, ws, filepath.Join(ws, "d.txt"), "d\n")
	e2 := Shell(k, "echo e > e.txt")
	var replies []fakemodel.Reply
	switch k {
	case Codex:
		e.AddMCPServer("rewind", cli, "mcp")
		load, _ := LoadMCPTools(k, "rewind", "checkpoint", "rewind")
		replies = []fakemodel.Reply{fakemodel.Tools(load),
			fakemodel.Tools(MCPTool(k, "rewind", "checkpoint", map[string]any{"goal": "try d.txt"})),
			fakemodel.Tools(d),
			fakemodel.Tools(MCPTool(k, "rewind", "rewind", map[string]any{"report": "d.txt was the wrong idea"})),
			fakemodel.Tools(e2)}
	case Copilot, Qwen:
		q := shellQuote(cli)
		replies = []fakemodel.Reply{
			fakemodel.Tools(Shell(k, q+" checkpoint try")),
			fakemodel.Tools(d),
			fakemodel.Tools(Shell(k, q+` rewind @try --report "d.txt was the wrong idea"`)),
			fakemodel.Tools(e2)}
	}
	model.On(prompt, append(replies, fakemodel.Say("Wrote e.txt instead."))...)
	s := e.Prompt(ws, prompt).Session
	wantFiles(t, ws, map[string]string{"a.txt": "a\n", "d.txt": "", "e.txt": "e\n"})
	// What the rewind answered, as the model read it.
	done := map[Kind]string{Codex: "Restored 1 files to checkpoint agent-1: delete d.txt", Copilot: "rewound to checkpoint @try", Qwen: "rewound to checkpoint @try"}[k]
	if q := last(model.For(prompt)); q == nil || !q.Mentions(done) {
		var results []string
		if q != nil {
			for _, m := range q.Messages {
				results = append(results, m.Results...)
			}
		}
		t.Errorf("the model never read %q; the tool results: %q", done, results)
	}

	var log commands.ListResult
	e.cli(t, ws, cli, &log, "log")
	if len(log.Turns) != 1 || log.Turns[0].Ended == "" || log.Turns[0].Session != s || len(log.Turns[0].Changed) != 1 || log.Turns[0].Changed[0].Path != "e.txt" {
		t.Fatalf("want one ended turn of session %s that changed e.txt only: %+v", s, log.Turns)
	}
	for _, h := range e.HookRuns() {
		if h.Exit != 0 || h.Stderr != "" {
			t.Errorf("hook %s: exit %d: %s", h.Event(), h.Exit, h.Stderr)
		}
	}
	if r := e.Exec(ws, cli, "revert", "--session", s); r.Exit != 0 {
		t.Fatalf("revert --session: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
	}
	wantFiles(t, ws, map[string]string{"a.txt": "a\n", "e.txt": ""})
}

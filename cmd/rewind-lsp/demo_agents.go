package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/claudecode"
	"github.com/rewind-lsp/rewind-lsp/agent/codex"
	"github.com/rewind-lsp/rewind-lsp/agent/pi"
	"github.com/rewind-lsp/rewind-lsp/textdiff"
)

// The demo's three agent sessions, with ids in each agent's own form.
const (
	demoClaudeSession = "6f1c2a9e-3b7d-4c85-9e41-0d2b8a7f5c13"
	demoPiSession     = "01a20f6e-2d41-7a93-b6c5-8e1f4a7d2c90"
	demoCodexSession  = "01a20f70-5c3e-7d21-b8a4-3e9f6c0d1a72"
)

// field is one member of a hook payload, in the order the agent writes
// it; shown marks the members the demo prints (the rest print as "…").
type field struct {
	key   string
	val   any
	shown bool
}

// payload is a hook event's JSON object, its members in order.
type payload []field

// MarshalJSON writes the members in their order, as the agent does.
func (p payload) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		v, err := json.Marshal(f.val)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// display is the payload as the demo prints it: the shown members, a
// string cut after its second line, and "…" for everything left out.
func (p payload) display() string {
	var parts []string
	hidden := false
	for _, f := range p {
		if !f.shown {
			hidden = true
			continue
		}
		k, _ := json.Marshal(f.key)
		var v string
		switch x := f.val.(type) {
		case payload:
			v = x.display()
		case string:
			if lines := strings.SplitAfter(x, "\n"); len(lines) > 3 || len(lines) == 3 && lines[2] != "" {
				x = lines[0] + lines[1] + "…"
			}
			b, _ := json.Marshal(x)
			v = string(b)
		default:
			b, _ := json.Marshal(x)
			v = string(b)
		}
		parts = append(parts, string(k)+":"+v)
	}
	if hidden {
		parts = append(parts, "…")
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// show marks members of p as printed.
func show(p payload, keys ...string) payload {
	for i := range p {
		for _, k := range keys {
			if p[i].key == k {
				p[i].shown = true
			}
		}
	}
	return p
}

// claudeEvent is a Claude Code 2.1 hook payload of the demo's session,
// with the members of the real ones (agent/testdata/claude-code) in their
// order; extra follows hook_event_name.
func (d *demoRun) claudeEvent(event string, extra ...field) payload {
	transcript := filepath.Join(d.home, ".claude", "projects", strings.ReplaceAll(d.ws, "/", "-"), demoClaudeSession+".jsonl")
	p := payload{{"session_id", demoClaudeSession, false}, {"transcript_path", transcript, false}, {"cwd", d.ws, false}}
	if event != "SessionStart" {
		p = append(p, field{"prompt_id", d.claudePrompt, false}, field{"permission_mode", "default", false})
	}
	if event != "SessionStart" && event != "UserPromptSubmit" {
		p = append(p, field{"effort", map[string]string{"level": "medium"}, false})
	}
	p = append(p, field{"hook_event_name", event, true})
	return append(p, extra...)
}

// claudeWrite is the PostToolUse of Claude Code's Write tool: rel written
// with text, over old (nil: created).
func (d *demoRun) claudeWrite(rel, text string, old *string, callID string) payload {
	abs := filepath.Join(d.ws, rel)
	kind, orig := "create", any(nil)
	if old != nil {
		kind, orig = "update", *old
	}
	input := payload{{"file_path", abs, true}, {"content", text, false}}
	response := payload{{"type", kind, false}, {"filePath", abs, false}, {"content", text, false},
		{"structuredPatch", []any{}, false}, {"originalFile", orig, false}, {"userModified", false, false}}
	return d.claudeEvent("PostToolUse", field{"tool_name", "Write", true}, field{"tool_input", input, true},
		field{"tool_response", response, false}, field{"tool_use_id", callID, false}, field{"duration_ms", 18, false})
}

// piEvent is a payload rewind-lsp's extension hands over from pi 0.73,
// with the members of the real ones (agent/testdata/pi) in their order:
// the session, its file, the folder and the conversation's last entry;
// extra follows them.
func (d *demoRun) piEvent(event string, extra ...field) payload {
	folder := "--" + strings.ReplaceAll(strings.TrimPrefix(d.ws, "/"), "/", "-") + "--"
	file := filepath.Join(d.home, ".pi", "agent", "sessions", folder, "2026-11-28T09-31-02-118Z_"+demoPiSession+".jsonl")
	p := payload{{"hook_event_name", event, true}, {"session_id", demoPiSession, false}, {"transcript_path", file, false},
		{"cwd", d.ws, false}, {"leaf_id", d.piLeaf, false}}
	return append(p, extra...)
}

// piWrite is a Pre/PostToolUse of pi's write tool: rel written with text.
func (d *demoRun) piWrite(event, rel, text, callID string) payload {
	input := payload{{"content", text, false}, {"path", filepath.Join(d.ws, rel), true}}
	extra := []field{{"tool_name", "write", true}, {"tool_input", input, true}, {"tool_use_id", callID, false}}
	if event == "PostToolUse" {
		extra = append(extra, field{"is_error", false, false}, field{"details", nil, false})
	}
	return d.piEvent(event, extra...)
}

// codexEvent is a Codex 0.169 hook payload of the demo's session, with
// the members of the real ones (agent/testdata/codex) in their order;
// extra follows permission_mode.
func (d *demoRun) codexEvent(event string, extra ...field) payload {
	rollout := filepath.Join(d.home, ".codex", "sessions", "rollout-"+demoCodexSession+".jsonl")
	p := payload{{"session_id", demoCodexSession, false}}
	if event != "SessionStart" {
		p = append(p, field{"turn_id", d.codexTurnID, false})
	}
	p = append(p, field{"transcript_path", rollout, false}, field{"cwd", d.ws, false}, field{"hook_event_name", event, true},
		field{"model", "gpt-5.5", false}, field{"permission_mode", "bypassPermissions", false})
	return append(p, extra...)
}

// codexTool is a Pre/PostToolUse of Codex's tool (apply_patch, or Bash
// for its shell) with the call's input; a PostToolUse has its response.
func (d *demoRun) codexTool(event, tool string, input payload, response, callID string) payload {
	extra := []field{{"tool_name", tool, true}, {"tool_input", input, true}}
	if event == "PostToolUse" {
		extra = append(extra, field{"tool_response", response, false})
	}
	return d.codexEvent(event, append(extra, field{"tool_use_id", callID, false})...)
}

// hook shows and runs one hook event of agent name, as the agent runs it:
// its stdin the payload, its stdout what the agent reads.
func (d *demoRun) hook(name string, p payload) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	d.sent = append(d.sent, sentHook{name, data})
	fmt.Fprintf(d.out, "$ echo '%s' | rewind-lsp hook %s\n", p.display(), name)
	var errb bytes.Buffer
	code := run(d.ctx, []string{"--root", d.ws, "--store", d.store, "hook", name}, bytes.NewReader(data), d.out, &errb)
	if errb.Len() > 0 {
		d.out.Write(errb.Bytes())
	}
	if code != exitOK {
		return fmt.Errorf("the %s hook exited %d", name, code)
	}
	return nil
}

// applyPatch is Codex's apply_patch input that updates rel from old to
// text: the line diff's hunks under "*** Update File:", as Codex's model
// writes them.
func applyPatch(rel, old, text string) string {
	_, _, diff := textdiff.LineDiff("a/"+rel, "b/"+rel, old, text)
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: " + rel + "\n")
	for _, line := range strings.SplitAfter(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "), line == "":
		case strings.HasPrefix(line, "@@"):
			b.WriteString("@@\n")
		default:
			b.WriteString(line)
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// codexPatch applies a patch of rel to the workspace as Codex's
// apply_patch does, shows it, and returns its input. Which files it
// wrote, the hook reads from the patch text (agent.PatchPaths).
func (d *demoRun) codexPatch(rel, text string) (payload, error) {
	old, err := d.read(rel)
	if err != nil {
		return nil, err
	}
	patch := applyPatch(rel, old, text)
	if got := agent.PatchPaths(patch); len(got) != 1 || got[0] != rel {
		return nil, fmt.Errorf("the demo's patch names %q, not %s", got, rel)
	}
	if err := d.write(rel, text); err != nil {
		return nil, err
	}
	fmt.Fprintln(d.out, "  [Codex applies a patch]")
	for _, line := range strings.SplitAfter(patch, "\n") {
		if line != "" {
			fmt.Fprint(d.out, "  │ "+line)
		}
	}
	return payload{{"command", patch, true}}, nil
}

// claudeTurn is turn 1: a Claude Code prompt whose Write tool creates
// greet.go and rewrites main.go, each call's hook naming its file.
func (d *demoRun) claudeTurn() error {
	const who = "Claude Code"
	d.claudePrompt = "b3e07d52-91fa-4c6e-8d2b-5a7c0f4e1d96"
	if err := d.hook(claudecode.Name, d.claudeEvent("UserPromptSubmit", field{"prompt", "greet the customer", true})); err != nil {
		return err
	}
	if err := d.edit(who, "greet.go", demoGreet, false, ""); err != nil {
		return err
	}
	if err := d.hook(claudecode.Name, d.claudeWrite("greet.go", demoGreet, nil, "toolu_01Hk3vQx8RmTz2Lw5NpYc7Ja")); err != nil {
		return err
	}
	old := demoMain
	if err := d.edit(who, "main.go", demoMain1, false, ""); err != nil {
		return err
	}
	if err := d.hook(claudecode.Name, d.claudeWrite("main.go", demoMain1, &old, "toolu_01Pq6sDf2WbGn9Kx4ZrTe8Mv")); err != nil {
		return err
	}
	return d.hook(claudecode.Name, d.claudeEvent("Stop", field{"stop_hook_active", false, false},
		field{"last_assistant_message", "Added greet.go and call it from main.", false},
		field{"background_tasks", []any{}, false}, field{"session_crons", []any{}, false}))
}

// piTurn is turn 2: a pi prompt whose write tool documents the greeting
// in README.md.
func (d *demoRun) piTurn() error {
	d.piLeaf = "4e7a9c21"
	if err := d.hook(pi.Name, d.piEvent("UserPromptSubmit", field{"prompt", "document the greeting", true})); err != nil {
		return err
	}
	d.piLeaf = "b83f05d6"
	const readme = "# shop\n\nGreets the customer, then prices the order.\n"
	if err := d.hook(pi.Name, d.piWrite("PreToolUse", "README.md", readme, "call_demo0000000000002")); err != nil {
		return err
	}
	if err := d.edit("pi", "README.md", readme, false, ""); err != nil {
		return err
	}
	if err := d.hook(pi.Name, d.piWrite("PostToolUse", "README.md", readme, "call_demo0000000000002")); err != nil {
		return err
	}
	d.piLeaf = "e05c1f7b"
	return d.hook(pi.Name, d.piEvent("Stop"))
}

// codexTurn is turn 3: a Codex prompt whose apply_patch breaks price()
// in main.go and whose shell deletes README.md.
func (d *demoRun) codexTurn() error {
	d.codexTurnID = "01a20f70-6a91-7f03-9c2e-4b8d1e5a0f36"
	if err := d.hook(codex.Name, d.codexEvent("UserPromptSubmit", field{"prompt", "add a 20% discount", true})); err != nil {
		return err
	}
	patch, err := d.codexPatch("main.go", demoMain2)
	if err != nil {
		return err
	}
	done := "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\nM main.go\n"
	if err := d.hook(codex.Name, d.codexTool("PostToolUse", "apply_patch", patch, done, "call_Vb7Kq2mXw9Ls4NdR")); err != nil {
		return err
	}
	rm := payload{{"command", "rm README.md", true}}
	if err := d.hook(codex.Name, d.codexTool("PreToolUse", "Bash", rm, "", "call_Jt5Hc8pYn3Fz6QwE")); err != nil {
		return err
	}
	if err := d.edit("Codex", "README.md", "", true, "rm README.md"); err != nil {
		return err
	}
	if err := d.hook(codex.Name, d.codexTool("PostToolUse", "Bash", rm, "", "call_Jt5Hc8pYn3Fz6QwE")); err != nil {
		return err
	}
	return d.hook(codex.Name, d.codexEvent("Stop", field{"stop_hook_active", false, false},
		field{"last_assistant_message", "Added the discount.", false}))
}

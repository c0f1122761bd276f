package agents

import (
	"slices"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/claudecode"
	"github.com/rewind-lsp/rewind-lsp/agent/codex"
	"github.com/rewind-lsp/rewind-lsp/agent/copilot"
	"github.com/rewind-lsp/rewind-lsp/agent/gemini"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/agenttest"
	"github.com/rewind-lsp/rewind-lsp/agent/opencode"
	"github.com/rewind-lsp/rewind-lsp/agent/qwen"
)

// Each agent's own payloads, as its real binary wrote them for one prompt
// that wrote a.txt with its file tool and b.txt from its shell, read as
// one session's events in order, with the prompt, and the tool calls'
// writes: a.txt named, the shell captured.
func TestParseRealPayloads(t *testing.T) {
	for _, name := range Names() {
		if _, ok := Lookup(name).(agent.Prompter); ok {
			continue // their hooks carry no prompt: droid_test.go, cline_test.go
		}
		t.Run(name, func(t *testing.T) {
			ag := Lookup(name)
			event := func(fx agenttest.Fixture) string { return "" }
			if name == copilot.Name { // its payloads name no event: its hook commands do
				event = func(fx agenttest.Fixture) string { return fx.Event }
			}
			var kinds []agent.EventKind
			var writes []string
			session := ""
			for _, fx := range agenttest.Fixtures(t, name) {
				ev, err := ag.Parse(fx.Payload, event(fx))
				if err != nil {
					t.Fatalf("%s: %v", fx.Event, err)
				}
				if ev.Name != fx.Event {
					t.Errorf("event %q read as %q", fx.Event, ev.Name)
				}
				if session == "" {
					session = ev.SessionID
				}
				if ev.SessionID == "" || ev.SessionID != session || ev.Cwd != "/w/project" {
					t.Errorf("%s: session %q cwd %q", fx.Event, ev.SessionID, ev.Cwd)
				}
				kinds = append(kinds, ev.Kind)
				if ev.Kind == agent.Prompt && ev.Prompt != "Write a.txt, then b.txt from the shell." {
					t.Errorf("prompt %q", ev.Prompt)
				}
				if ev.Kind == agent.PostTool {
					paths, capture, relevant := ag.Writes(ev)
					switch {
					case !relevant:
						writes = append(writes, "irrelevant "+ev.ToolName)
					case capture:
						writes = append(writes, "capture")
					default:
						writes = append(writes, strings.Join(paths, ","))
					}
				}
			}
			want := []agent.EventKind{agent.SessionStart, agent.Prompt, agent.PreTool, agent.PostTool, agent.PreTool, agent.PostTool, agent.Stop, agent.Ignored}
			if opencode.IsOpenCode(name) { // the plugin hands on no end of a session
				want = want[:len(want)-1]
			}
			if name == copilot.Name && kinds[0] == agent.Prompt { // it starts the two hooks together
				kinds[0], kinds[1] = kinds[1], kinds[0]
			}
			if name == qwen.Name { // the prompt's event again before each tool result, empty; no SessionEnd
				want = []agent.EventKind{agent.SessionStart, agent.Prompt, agent.PreTool, agent.PostTool, agent.Ignored, agent.PreTool, agent.PostTool, agent.Ignored, agent.Stop}
			}
			if !slices.Equal(kinds, want) {
				t.Errorf("kinds %v, want %v", kinds, want)
			}
			if w := []string{"/w/project/a.txt", "capture"}; !slices.Equal(writes, w) {
				t.Errorf("post-tool writes %q, want %q", writes, w)
			}
		})
	}
}

// Each agent's notice is exactly the shape its hook protocol reads.
func TestNoticeShapes(t *testing.T) {
	want := map[string]string{
		claudecode.Name:   `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"a <b> & \"c\""}}`,
		codex.Name:        `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"a <b> & \"c\""}}`,
		gemini.Name:       `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"a <b> & \"c\""}}`,
		copilot.Name:      `{"additionalContext":"a <b> & \"c\""}`,
		qwen.Name:         `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"a <b> & \"c\""}}`,
		opencode.Name:     `{"additionalContext":"a <b> & \"c\""}`,
		opencode.KiloName: `{"additionalContext":"a <b> & \"c\""}`,
	}
	for name, w := range want {
		if got := string(Lookup(name).Notice(`a <b> & "c"`)); got != w+"\n" {
			t.Errorf("%s notice %s, want %s", name, got, w)
		}
	}
}

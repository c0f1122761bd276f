package agents

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/copilot"
)

// seedHooks adds every hook payload the real agents sent (testdata) to f,
// with the agent's index and the event its hook command names.
func seedHooks(f *testing.F) {
	for i, a := range agents {
		file, err := os.Open(filepath.Join("..", "testdata", a.Name(), "hooks.jsonl"))
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var rec struct {
				Event   string          `json:"event"`
				Payload json.RawMessage `json:"payload"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) == nil {
				event := ""
				if a.Name() == copilot.Name {
					event = rec.Event // its payloads name no event
				}
				f.Add(uint8(i), event, []byte(rec.Payload))
			}
		}
		file.Close()
	}
	f.Add(uint8(0), "", []byte(`{"hook_event_name":"PostToolUse","tool_name":"Write","tool_input":"not an object","cwd":"rel"}`))
	f.Add(uint8(1), "", []byte(`{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":["apply_patch","*** Begin Patch\n*** Add File: ../../etc/x\n*** Move to: \n*** End Patch"]}}`))
	f.Add(uint8(3), "postToolUse", []byte(`{"toolName":"edit","toolArgs":"{\"path\":\"a\"}","cwd":"/w"}`))
	f.Add(uint8(2), "", []byte(`null`))
}

// FuzzHookPayload feeds each agent's hook payload reader whatever arrives
// on a hook's stdin. It never panics; an event it accepts has a name; what
// a tool call writes is a list of clean absolute paths (nothing when the
// tool writes nothing); reading the session's position reads only the
// session file (here a scratch one); and a notice is JSON the agent reads,
// holding the text as it was.
func FuzzHookPayload(f *testing.F) {
	seedHooks(f)
	f.Fuzz(func(t *testing.T, which uint8, event string, payload []byte) {
		a := agents[int(which)%len(agents)]
		ev, err := a.Parse(payload, event)
		if err != nil {
			return
		}
		if ev.Name == "" {
			t.Fatalf("%s: an accepted event without a name: %q", a.Name(), payload)
		}
		paths, capture, relevant := a.Writes(ev)
		if !relevant && (len(paths) > 0 || capture) {
			t.Fatalf("%s: a tool that writes nothing wrote %v (capture %v)", a.Name(), paths, capture)
		}
		for _, p := range paths {
			if ev.Cwd != "" && filepath.IsAbs(ev.Cwd) && (!filepath.IsAbs(p) || filepath.Clean(p) != p) {
				t.Fatalf("%s: a written path %q is not clean and absolute (cwd %q)", a.Name(), p, ev.Cwd)
			}
		}
		if ev.Transcript != "" {
			scratch := filepath.Join(t.TempDir(), "session.jsonl")
			os.WriteFile(scratch, payload, 0o600)
			ev.Transcript = scratch
			if _, _, err := a.Position(ev); err != nil && !errors.Is(err, os.ErrNotExist) {
				var r *agent.Refusal
				if !errors.As(err, &r) && !strings.Contains(err.Error(), scratch) && !strings.Contains(err.Error(), "transcript") {
					t.Fatalf("%s: position: %v", a.Name(), err)
				}
			}
			if pr, ok := a.(agent.Prompter); ok {
				p, err := pr.CurrentPrompt(ev)
				if err != nil && !strings.Contains(err.Error(), scratch) && !strings.Contains(err.Error(), "transcript") {
					t.Fatalf("%s: current prompt: %v", a.Name(), err)
				}
				if p != nil && (p.ID == "" || p.Transcript != scratch && p.Transcript != "") {
					t.Fatalf("%s: current prompt %+v of %s", a.Name(), p, scratch)
				}
			}
		}
		text := string(payload)
		out := a.Notice(text)
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%s: the notice is not JSON: %q", a.Name(), out)
		}
		if utf8.ValidString(text) && !holdsString(v, text) {
			t.Fatalf("%s: the notice %s does not hold the text %q", a.Name(), out, text)
		}
	})
}

func holdsString(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return x == s
	case map[string]any:
		for _, y := range x {
			if holdsString(y, s) {
				return true
			}
		}
	case []any:
		for _, y := range x {
			if holdsString(y, s) {
				return true
			}
		}
	}
	return false
}

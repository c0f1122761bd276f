package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDemoHookPayloadsAreTheAgentsOwn: every hook event the demo runs has
// the members, in the order and of the types, of the payload the real
// agent sent for the same event and tool (agent/testdata/<agent>/
// hooks.jsonl), down to the tool's input and response; and the demo runs
// Claude Code's file tool, pi's write tool (through rewind-lsp's
// extension), and Codex's apply_patch and shell.
func TestDemoHookPayloadsAreTheAgentsOwn(t *testing.T) {
	t.Setenv("REWIND_LSP_HOME", t.TempDir())
	tmp := t.TempDir()
	d := &demoRun{ctx: context.Background(), ws: filepath.Join(tmp, "shop"), store: filepath.Join(tmp, "store"),
		home: filepath.Join(tmp, "home"), out: io.Discard, errw: io.Discard}
	if err := d.tour(); err != nil {
		t.Fatal(err)
	}
	real := map[string]map[string]json.RawMessage{} // agent → event/tool → payload
	for _, name := range []string{"claude-code", "pi", "codex"} {
		real[name] = realPayloads(t, name)
	}
	var ran []string
	for _, h := range d.sent {
		k := payloadKind(h.payload)
		ran = append(ran, h.agent+" "+k)
		want, ok := real[h.agent][k]
		if !ok {
			t.Errorf("%s %s: the real agent's fixtures have no such event", h.agent, k)
			continue
		}
		if diff := sameShape(want, h.payload, ""); diff != "" {
			t.Errorf("%s %s is not shaped like the real one: %s\nreal: %s\ndemo: %s", h.agent, k, diff, want, h.payload)
		}
	}
	for _, k := range []string{"claude-code PostToolUse Write", "pi PreToolUse write", "pi PostToolUse write", "codex PostToolUse apply_patch", "codex PreToolUse Bash", "codex PostToolUse Bash"} {
		if !slices.Contains(ran, k) {
			t.Errorf("the demo runs no %s hook; it ran %q", k, ran)
		}
	}
}

// realPayloads reads agent/testdata/<name>/hooks.jsonl by event and tool.
func realPayloads(t *testing.T, name string) map[string]json.RawMessage {
	f, err := os.Open(filepath.Join("..", "..", "agent", "testdata", name, "hooks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]json.RawMessage{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var fx struct{ Payload json.RawMessage }
		if err := json.Unmarshal(sc.Bytes(), &fx); err != nil {
			t.Fatal(err)
		}
		out[payloadKind(fx.Payload)] = fx.Payload
	}
	return out
}

// payloadKind is a payload's event, and its tool for a tool event.
func payloadKind(p []byte) string {
	var m struct {
		Event string `json:"hook_event_name"`
		Tool  string `json:"tool_name"`
	}
	json.Unmarshal(p, &m)
	if m.Tool != "" {
		return m.Event + " " + m.Tool
	}
	return m.Event
}

// sameShape says how got differs from want in its members' names, order
// and JSON types, objects compared member by member ("" when alike). A
// null in want stands for any type (a file the real tool created had no
// original).
func sameShape(want, got json.RawMessage, at string) string {
	wk, wv, wok := members(want)
	gk, gv, gok := members(got)
	if !wok || !gok {
		if jsonType(want) != "null" && jsonType(want) != jsonType(got) {
			return fmt.Sprintf("%s is a %s, not a %s", at, jsonType(got), jsonType(want))
		}
		return ""
	}
	if !slices.Equal(wk, gk) {
		return fmt.Sprintf("%s has members %q, not %q", at, gk, wk)
	}
	for i := range wk {
		if d := sameShape(wv[i], gv[i], at+"."+wk[i]); d != "" {
			return d
		}
	}
	return ""
}

// members lists a JSON object's keys and values in order (ok false when
// it is no object).
func members(data json.RawMessage) (keys []string, vals []json.RawMessage, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil, nil, false
		}
		keys, vals = append(keys, tok.(string)), append(vals, v)
	}
	return keys, vals, true
}

func jsonType(v json.RawMessage) string {
	switch b := bytes.TrimSpace(v); {
	case len(b) == 0:
		return "nothing"
	case b[0] == '{':
		return "object"
	case b[0] == '[':
		return "array"
	case b[0] == '"':
		return "string"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	case b[0] == 'n':
		return "null"
	}
	return "number"
}

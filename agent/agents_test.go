package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixture is one hook run the real agent made (testdata/<agent>/hooks.jsonl).
type fixture struct {
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
}

func fixtures(t *testing.T, agent string) []fixture {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", agent, "hooks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fixture
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var fx fixture
		if err := json.Unmarshal(sc.Bytes(), &fx); err != nil {
			t.Fatal(err)
		}
		out = append(out, fx)
	}
	return out
}

// Each agent's own payloads, as its real binary wrote them for one prompt
// that wrote a.txt with its file tool and b.txt from its shell, read as
// one session's events in order, with the prompt, and the tool calls'
// writes: a.txt named, the shell captured.
func TestParseRealPayloads(t *testing.T) {
	for _, name := range Names() {
		if _, ok := Lookup(name).(Prompter); ok {
			continue // their hooks carry no prompt: droid_test.go, cline_test.go
		}
		t.Run(name, func(t *testing.T) {
			ag := Lookup(name)
			event := func(fx fixture) string { return "" }
			if name == Copilot { // its payloads name no event: its hook commands do
				event = func(fx fixture) string { return fx.Event }
			}
			var kinds []EventKind
			var writes []string
			session := ""
			for _, fx := range fixtures(t, name) {
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
				if ev.Kind == Prompt && ev.Prompt != "Write a.txt, then b.txt from the shell." {
					t.Errorf("prompt %q", ev.Prompt)
				}
				if ev.Kind == PostTool {
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
			want := []EventKind{SessionStart, Prompt, PreTool, PostTool, PreTool, PostTool, Stop, Ignored}
			if IsOpenCode(name) { // the plugin hands on no end of a session
				want = want[:len(want)-1]
			}
			if name == Copilot && kinds[0] == Prompt { // it starts the two hooks together
				kinds[0], kinds[1] = kinds[1], kinds[0]
			}
			if name == Qwen { // the prompt's event again before each tool result, empty; no SessionEnd
				want = []EventKind{SessionStart, Prompt, PreTool, PostTool, Ignored, PreTool, PostTool, Ignored, Stop}
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

func TestPatchPaths(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: new.go\n+package x\n*** Update File: src/a b.go\n*** Move to: src/c.go\n@@\n-x\n+y\n" +
		"*** Delete File: /abs/old.txt\r\n*** End Patch\n"
	if got, want := PatchPaths(patch), []string{"new.go", "src/a b.go", "src/c.go", "/abs/old.txt"}; !slices.Equal(got, want) {
		t.Errorf("PatchPaths = %q, want %q", got, want)
	}
	ev := &Event{Kind: PostTool, Cwd: "/w/project", ToolName: "apply_patch", ToolInput: json.RawMessage(`{"command":` + quote(patch) + `}`)}
	paths, capture, relevant := codex{}.Writes(ev)
	if want := []string{"/w/project/new.go", "/w/project/src/a b.go", "/w/project/src/c.go", "/abs/old.txt"}; !slices.Equal(paths, want) || capture || !relevant {
		t.Errorf("Writes = %q %v %v", paths, capture, relevant)
	}
}

// Each agent's notice is exactly the shape its hook protocol reads.
func TestNoticeShapes(t *testing.T) {
	want := map[string]string{
		ClaudeCode: `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"a <b> & \"c\""}}`,
		Codex:      `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"a <b> & \"c\""}}`,
		Gemini:     `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"a <b> & \"c\""}}`,
		Copilot:    `{"additionalContext":"a <b> & \"c\""}`,
		Qwen:       `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"a <b> & \"c\""}}`,
		OpenCode:   `{"additionalContext":"a <b> & \"c\""}`,
		Kilo:       `{"additionalContext":"a <b> & \"c\""}`,
	}
	for name, w := range want {
		if got := string(Lookup(name).Notice(`a <b> & "c"`)); got != w+"\n" {
			t.Errorf("%s notice %s, want %s", name, got, w)
		}
	}
}

// A Gemini CLI session file (as the real CLI wrote it) forked at its end:
// a new file beside it named as Gemini names a session started now, the
// same lines with every sessionId the new one; the original untouched.
// Before the first prompt there is nothing to fork.
func TestForkGemini(t *testing.T) {
	src, err := filepath.Glob(filepath.Join("testdata", "gemini", "session-*.jsonl"))
	if err != nil || len(src) != 1 {
		t.Fatalf("fixture: %v %v", src, err)
	}
	orig, _ := os.ReadFile(src[0])
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.Base(src[0]))
	os.WriteFile(path, orig, 0o600)
	p, err := readPoint(path, geminiID)
	if err != nil || p.ForkBytes != int64(len(orig)) || p.ForkUUID == "" {
		t.Fatalf("point %+v %v", p, err)
	}
	old := topString(orig[:bytes.IndexByte(orig, '\n')], "sessionId")
	fk, err := gemini{}.Fork(ForkRequest{Session: old, Transcript: path, Point: p, End: true, Prompt: "Write a.txt, then b.txt from the shell."})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(fk.Transcript)
	if want := bytes.ReplaceAll(orig, []byte(old), []byte(fk.Session)); !bytes.Equal(got, want) {
		t.Errorf("forked file differs from the original with the id replaced:\n%s", got)
	}
	if b := filepath.Base(fk.Transcript); !strings.HasPrefix(b, "session-20") || !strings.HasSuffix(b, "-"+fk.Session[:8]+".jsonl") || filepath.Dir(fk.Transcript) != dir {
		t.Errorf("forked file %s", fk.Transcript)
	}
	if fk.Resume != "gemini --resume "+fk.Session {
		t.Errorf("resume %q", fk.Resume)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("the original changed")
	}

	// At the first prompt (BeforeAgent): the header and the session context.
	first := int64(bytes.Index(orig, []byte(`"Write a.txt`)))
	first = int64(bytes.LastIndexByte(orig[:first], '\n') + 1)
	p0, _ := readPoint(path, geminiID)
	p0.ForkBytes, p0.ForkUUID = first, geminiLastID(orig[:first])
	_, err = gemini{}.Fork(ForkRequest{Session: old, Transcript: path, Point: p0, Prompt: "Write a.txt, then b.txt from the shell."})
	var r *Refusal
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "first") {
		t.Errorf("fork before the first prompt: %v", err)
	}
	// A file that changed under the point is refused.
	p.ForkUUID = "not-the-last-record"
	if _, err := (gemini{}).Fork(ForkRequest{Transcript: path, Point: p, End: true}); !errors.As(err, &r) {
		t.Errorf("fork of a changed file: %v", err)
	}
}

// A Gemini CLI session whose file is gone: when no other file of the
// chats folder holds the session (Gemini CLI deleted them all), the fork
// is refused with that reason; when another file of the session is still
// there, the refusal only says the recorded file is missing. Nothing is
// written either way.
func TestForkGeminiSessionGone(t *testing.T) {
	src, _ := filepath.Glob(filepath.Join("testdata", "gemini", "session-*.jsonl"))
	if len(src) != 1 {
		t.Fatalf("fixture: %v", src)
	}
	orig, _ := os.ReadFile(src[0])
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.Base(src[0]))
	os.WriteFile(path, orig, 0o600)
	p, err := readPoint(path, geminiID)
	if err != nil || p.ForkBytes == 0 {
		t.Fatalf("point %+v %v", p, err)
	}
	header := orig[:bytes.IndexByte(orig, '\n')+1]
	id := topString(header[:len(header)-1], "sessionId")
	// Another session's file stays: it is no file of this one.
	other := strings.Replace(string(header), id, "0123abcd-0000-4000-8000-000000000000", 1)
	os.WriteFile(filepath.Join(dir, "session-2026-11-24T20-38-0123abcd.jsonl"), []byte(other), 0o600)
	os.Remove(path)
	req := ForkRequest{Session: id, Transcript: path, Point: p, End: true, Prompt: "Write a.txt, then b.txt from the shell."}
	var r *Refusal
	if _, err := (gemini{}).Fork(req); !errors.As(err, &r) || !strings.Contains(r.Reason, "no longer has session "+id) {
		t.Fatalf("fork of a session Gemini CLI deleted: %v", err)
	}
	// A file of the session named after a later minute (the header-only
	// file a resume in a later minute leaves).
	os.WriteFile(filepath.Join(dir, "session-2026-11-24T20-39-"+id[:8]+".jsonl"), header, 0o600)
	if _, err := (gemini{}).Fork(req); !errors.As(err, &r) || strings.Contains(r.Reason, "no longer has") || !strings.Contains(r.Reason, "is missing") {
		t.Fatalf("fork whose recorded file is gone but not the session: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("a refused fork left %d files in the folder, want the 2 there before", len(ents))
	}
}

func geminiLastID(data []byte) string {
	id := ""
	for _, l := range bytes.Split(data, []byte("\n")) {
		if s := geminiID(l); s != "" {
			id = s
		}
	}
	return id
}

// A Copilot CLI session folder (as the real CLI wrote it): the fork at the
// end of its one turn is a new folder with the events and workspace.yaml,
// the session id replaced; before its only prompt there is nothing to
// fork; a prompt the file does not hold yet is refused with the reason.
func TestForkCopilot(t *testing.T) {
	events, _ := os.ReadFile(filepath.Join("testdata", "copilot", "events.jsonl"))
	yaml, _ := os.ReadFile(filepath.Join("testdata", "copilot", "workspace.yaml"))
	old := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(yaml), "\n", 2)[0], "id:"))
	state := filepath.Join(t.TempDir(), "session-state")
	dir := filepath.Join(state, old)
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "events.jsonl"), events, 0o600)
	os.WriteFile(filepath.Join(dir, "workspace.yaml"), yaml, 0o600)
	const prompt = "Write a.txt, then b.txt from the shell."
	req := ForkRequest{Session: old, Transcript: filepath.Join(dir, "events.jsonl"), Prompt: prompt, End: true}
	fk, err := copilot{}.Fork(req)
	if err != nil {
		t.Fatal(err)
	}
	if fk.Transcript != filepath.Join(state, fk.Session, "events.jsonl") || fk.Resume != "copilot --resume="+fk.Session {
		t.Errorf("fork %+v", fk)
	}
	got, _ := os.ReadFile(fk.Transcript)
	if want := bytes.ReplaceAll(events, []byte(old), []byte(fk.Session)); !bytes.Equal(got, want) {
		t.Error("forked events differ from the original with the id replaced")
	}
	if y, _ := os.ReadFile(filepath.Join(state, fk.Session, "workspace.yaml")); !strings.HasPrefix(string(y), "id: "+fk.Session+"\n") {
		t.Errorf("workspace.yaml:\n%s", y)
	}
	var r *Refusal
	req.End = false
	if _, err := (copilot{}).Fork(req); !errors.As(err, &r) || !strings.Contains(r.Reason, "first") {
		t.Errorf("fork before the only prompt: %v", err)
	}
	req.Nth = 1 // a second prompt with the same text, not written yet
	if _, err := (copilot{}).Fork(req); !errors.As(err, &r) || !strings.Contains(r.Reason, "not in") {
		t.Errorf("fork at a prompt not written yet: %v", err)
	}
}

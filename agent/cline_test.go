package agent

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Cline's own payloads (one `cline --yolo` prompt that wrote a.txt with
// its editor and b.txt from its shell, then submitted) read as one
// session's events — TaskStart the prompt event, UserPromptSubmit (Cline's
// reminder, not the prompt) ignored — with the session Cline resumes, the
// workspace as cwd, the tools' writes, and at each event the person's
// prompt read from the messages file.
func TestParseClinePayloads(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cline", "messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	sessions := t.TempDir()
	t.Setenv("CLINE_SESSION_DATA_DIR", sessions)
	var kinds []EventKind
	var writes []string
	for _, fx := range fixtures(t, Cline) {
		ev, err := cline{}.Parse(fx.Payload, "")
		if err != nil {
			t.Fatalf("%s: %v", fx.Event, err)
		}
		if named, _ := (cline{}).Parse(fx.Payload, fx.Event); named.Name != ev.Name {
			t.Errorf("%s: the payload's hookName reads as %q", fx.Event, ev.Name)
		}
		if ev.Name != fx.Event || ev.Cwd != "/w/project" || ev.SessionID != "1795878564669_qwh8u" || ev.Time.IsZero() {
			t.Errorf("%s read as %q, cwd %q, session %q, time %v", fx.Event, ev.Name, ev.Cwd, ev.SessionID, ev.Time)
		}
		if want := filepath.Join(sessions, ev.SessionID, ev.SessionID+".messages.json"); ev.Transcript != want {
			t.Errorf("%s: messages file %q, want %q", fx.Event, ev.Transcript, want)
		}
		kinds = append(kinds, ev.Kind)
		if ev.Kind == PostTool {
			paths, capture, relevant := cline{}.Writes(ev)
			switch {
			case !relevant:
				writes = append(writes, "irrelevant "+ev.ToolName)
			case capture:
				writes = append(writes, "capture")
			default:
				writes = append(writes, strings.Join(paths, ","))
			}
		}
		if ev.Kind == Ignored {
			continue
		}
		if p, err := (cline{}).CurrentPrompt(ev); p != nil || err != nil {
			t.Errorf("%s: a prompt %+v (%v) before the messages file exists", fx.Event, p, err)
		}
		os.MkdirAll(filepath.Dir(ev.Transcript), 0o755)
		os.WriteFile(ev.Transcript, data, 0o600)
		p, err := cline{}.CurrentPrompt(ev)
		if err != nil || p == nil || p.Text != "Write a.txt, then b.txt from the shell." || p.ID != "0694df2d-ed63-453d-aa65-1701771ec171" ||
			p.Position.Transcript != ev.Transcript {
			t.Errorf("%s: current prompt %+v, %v", fx.Event, p, err)
		}
		os.Remove(ev.Transcript)
	}
	want := []EventKind{Ignored, Prompt, PreTool, PostTool, PreTool, PostTool, PreTool, PostTool, Stop}
	if !slices.Equal(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
	if w := []string{"/w/project/a.txt", "capture", "irrelevant submit_and_exit"}; !slices.Equal(writes, w) {
		t.Errorf("post-tool writes %q, want %q", writes, w)
	}
}

// The prompt of a Cline event is the last one sent by the event's time:
// a detached turn end that runs after the next prompt was sent still
// names its own.
func TestClinePromptAtItsTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.messages.json")
	os.WriteFile(path, []byte(`{"messages":[
{"id":"p1","role":"user","ts":1000,"content":[{"type":"text","text":"<user_input mode=\"act\">one</user_input>"}]},
{"id":"m1","role":"user","ts":1100,"content":[{"type":"text","text":"<hook_context source=\"PreToolUse\">x</hook_context>"}]},
{"id":"p2","role":"user","ts":2000,"content":[{"type":"text","text":"<user_input mode=\"act\">two\nlines</user_input>"}]},
{"id":"m2","role":"user","ts":2100,"content":[{"type":"text","text":"[SYSTEM] This run is not complete"}]}]}`), 0o600)
	for _, c := range []struct {
		payload, id, text string
	}{
		{`{"hookName":"agent_end","timestamp":"1970-01-01T00:00:01.500Z","sessionContext":{"rootSessionId":"s"}}`, "p1", "one"},
		{`{"hookName":"agent_end","timestamp":"1970-01-01T00:00:02.500Z","sessionContext":{"rootSessionId":"s"}}`, "p2", "two\nlines"},
		{`{"hookName":"agent_end","sessionContext":{"rootSessionId":"s"}}`, "p2", "two\nlines"},
	} {
		ev, err := cline{}.Parse([]byte(c.payload), "")
		if err != nil {
			t.Fatal(err)
		}
		ev.Transcript = path
		p, err := cline{}.CurrentPrompt(ev)
		if err != nil || p == nil || p.ID != c.id || p.Text != c.text {
			t.Errorf("%s: prompt %+v, %v; want %s %q", c.payload, p, err, c.id, c.text)
		}
	}
}

// A Cline conversation is never forked: the refusal says why; the notice
// goes out only at PreToolUse, as contextModification.
func TestClineForkAndNotice(t *testing.T) {
	var r *Refusal
	if _, err := (cline{}).Fork(ForkRequest{Transcript: "x"}); !errors.As(err, &r) || !strings.Contains(r.Reason, "terminal interface") {
		t.Errorf("fork: %v", err)
	}
	if out := string(cline{}.NoticeAt(&Event{Name: "PreToolUse"}, `a "b"`)); out != `{"contextModification":"a \"b\""}`+"\n" {
		t.Errorf("notice at PreToolUse: %s", out)
	}
	for _, name := range []string{"TaskStart", "PostToolUse", "TaskComplete"} {
		if out := (cline{}).NoticeAt(&Event{Name: name}, "n"); out != nil {
			t.Errorf("notice at %s: %s", name, out)
		}
	}
	if out := (cline{}).NoticeAt(&Event{Name: "PreToolUse", ToolName: "submit_and_exit"}, "n"); out != nil {
		t.Errorf("notice before submit_and_exit, whose result ends the run: %s", out)
	}
	if _, err := (cline{}).Parse([]byte(`{"hookName":"something_new"}`), ""); err == nil {
		t.Error("an event named neither by the payload nor the command was accepted")
	}
}

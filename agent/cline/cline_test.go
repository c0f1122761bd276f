package cline

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/agenttest"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Cline's own payloads (one `cline --yolo` prompt that wrote a.txt with
// its editor and b.txt from its shell, then submitted) read as one
// session's events — TaskStart the prompt event, UserPromptSubmit (Cline's
// reminder, not the prompt) ignored — with the session Cline resumes, the
// workspace as cwd, the tools' writes, and at each event the person's
// prompt read from the messages file.
func TestParseClinePayloads(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "cline", "messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	sessions := t.TempDir()
	t.Setenv("CLINE_SESSION_DATA_DIR", sessions)
	var kinds []agent.EventKind
	var writes []string
	for _, fx := range agenttest.Fixtures(t, Name) {
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
		if ev.Kind == agent.PostTool {
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
		if ev.Kind == agent.Ignored {
			continue
		}
		if p, err := (cline{}).CurrentPrompt(ev); p != nil || err != nil {
			t.Errorf("%s: a prompt %+v (%v) before the messages file exists", fx.Event, p, err)
		}
		os.MkdirAll(filepath.Dir(ev.Transcript), 0o755)
		os.WriteFile(ev.Transcript, data, 0o600)
		p, err := cline{}.CurrentPrompt(ev)
		if err != nil || p == nil || p.Text != "Write a.txt, then b.txt from the shell." || p.ID != "0694df2d-ed63-453d-aa65-1701771ec171" ||
			p.Transcript != ev.Transcript {
			t.Errorf("%s: current prompt %+v, %v", fx.Event, p, err)
		}
		os.Remove(ev.Transcript)
	}
	want := []agent.EventKind{agent.Ignored, agent.Prompt, agent.PreTool, agent.PostTool, agent.PreTool, agent.PostTool, agent.PreTool, agent.PostTool, agent.Stop}
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

// A Cline conversation is forked as a copy of its session folder, cut
// before a prompt (or, at a turn's end, before the next one), under a new
// id that replaces the old one in the files' names and contents; the
// compaction, which may summarise what the cut drops, is not copied; the
// original is left as it was. The notice goes out only at PreToolUse, as
// contextModification.
func TestClineForkAndNotice(t *testing.T) {
	const old = "1795878564669_qwh8u"
	dir := filepath.Join(t.TempDir(), old)
	os.MkdirAll(dir, 0o700)
	path := filepath.Join(dir, old+".messages.json")
	messages := `{"version": 1, "sessionId": "` + old + `", "messages": [
 {"id": "u1", "role": "user", "content": [{"type": "text", "text": "<user_input mode=\"act\">one</user_input>"}], "ts": 1},
 {"id": "r1", "role": "user", "content": [{"type": "text", "text": "[SYSTEM] reminder"}], "ts": 2},
 {"id": "a1", "role": "assistant", "content": [{"type": "text", "text": "did one"}], "ts": 3},
 {"id": "u2", "role": "user", "content": [{"type": "text", "text": "<user_input mode=\"act\">two</user_input>"}], "ts": 4},
 {"id": "a2", "role": "assistant", "content": [{"type": "text", "text": "did two"}], "ts": 5}]}`
	meta := `{"session_id": "` + old + `", "messages_path": "` + path + `"}`
	os.WriteFile(path, []byte(messages), 0o600)
	os.WriteFile(filepath.Join(dir, old+".json"), []byte(meta), 0o600)
	os.WriteFile(filepath.Join(dir, old+".compaction.json"), []byte(`{"summary": "two"}`), 0o600)
	fork := func(uuid string, end bool) (*agent.Forked, []string, string) {
		t.Helper()
		fk, err := cline{}.Fork(agent.ForkRequest{Session: old, Transcript: path, Point: journal.ForkPoint{ForkUUID: uuid}, End: end})
		if err != nil {
			t.Fatalf("fork at %s (end %v): %v", uuid, end, err)
		}
		newDir := filepath.Dir(fk.Transcript)
		if filepath.Dir(newDir) != filepath.Dir(dir) || filepath.Base(newDir) != fk.Session || fk.Resume != "cline --id "+fk.Session ||
			!strings.HasSuffix(fk.Transcript, fk.Session+".messages.json") || len(fk.Session) != len(old) || fk.Session[13] != '_' {
			t.Errorf("fork: %+v", fk)
		}
		var file struct {
			SessionID string `json:"sessionId"`
			Messages  []struct{ ID string }
		}
		data, _ := os.ReadFile(fk.Transcript)
		if err := json.Unmarshal(data, &file); err != nil || file.SessionID != fk.Session {
			t.Errorf("the copy's messages file: %v %s", err, data)
		}
		var ids []string
		for _, m := range file.Messages {
			ids = append(ids, m.ID)
		}
		copied, _ := os.ReadFile(filepath.Join(newDir, fk.Session+".json"))
		if _, err := os.Stat(filepath.Join(newDir, fk.Session+".compaction.json")); err == nil {
			t.Error("the compaction was copied")
		}
		return fk, ids, string(copied)
	}
	fk, ids, meta2 := fork("u2", false)
	if !slices.Equal(ids, []string{"u1", "r1", "a1"}) || strings.Contains(meta2, old) ||
		meta2 != strings.ReplaceAll(meta, old, fk.Session) {
		t.Errorf("fork before u2: messages %v, metadata %s", ids, meta2)
	}
	if _, ids, _ = fork("u1", true); !slices.Equal(ids, []string{"u1", "r1", "a1"}) {
		t.Errorf("fork at the end of u1's turn: messages %v", ids)
	}
	if _, ids, _ = fork("u2", true); !slices.Equal(ids, []string{"u1", "r1", "a1", "u2", "a2"}) {
		t.Errorf("fork at the end of u2's turn: messages %v", ids)
	}
	if data, _ := os.ReadFile(path); string(data) != messages {
		t.Error("the original messages file changed")
	}
	var r *agent.Refusal
	for _, c := range []struct {
		req  agent.ForkRequest
		want string
	}{
		{agent.ForkRequest{Session: old, Transcript: path, Point: journal.ForkPoint{ForkUUID: "u1"}}, agent.FirstTurn.Reason},
		{agent.ForkRequest{Session: old, Transcript: path, End: true}, agent.NoEnd.Reason},
		{agent.ForkRequest{Session: old, Transcript: path, Point: journal.ForkPoint{ForkUUID: "gone"}}, "no longer holds prompt gone"},
		{agent.ForkRequest{Session: "other", Transcript: path, Point: journal.ForkPoint{ForkUUID: "u2"}}, "is not the messages file of Cline's session other"},
	} {
		if _, err := (cline{}).Fork(c.req); !errors.As(err, &r) || !strings.Contains(r.Reason, c.want) {
			t.Errorf("fork %+v: %v, want a refusal saying %q", c.req, err, c.want)
		}
	}
	if out := string(cline{}.NoticeAt(&agent.Event{Name: "PreToolUse"}, `a "b"`)); out != `{"contextModification":"a \"b\""}`+"\n" {
		t.Errorf("notice at PreToolUse: %s", out)
	}
	for _, name := range []string{"TaskStart", "PostToolUse", "TaskComplete"} {
		if out := (cline{}).NoticeAt(&agent.Event{Name: name}, "n"); out != nil {
			t.Errorf("notice at %s: %s", name, out)
		}
	}
	if out := (cline{}).NoticeAt(&agent.Event{Name: "PreToolUse", ToolName: "submit_and_exit"}, "n"); out != nil {
		t.Errorf("notice before submit_and_exit, whose result ends the run: %s", out)
	}
	if _, err := (cline{}).Parse([]byte(`{"hookName":"something_new"}`), ""); err == nil {
		t.Error("an event named neither by the payload nor the command was accepted")
	}
}

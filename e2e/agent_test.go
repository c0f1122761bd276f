package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeSession plays one Claude Code session from a shell: it writes the
// session's transcript as Claude Code does and feeds the hook its events.
type claudeSession struct {
	w          *ws
	id         string
	transcript string
	parent     string
	n          int
}

func (w *ws) claude(id, projects string) *claudeSession {
	return &claudeSession{w: w, id: id, transcript: filepath.Join(projects, id+".jsonl")}
}

// line appends one transcript line.
func (s *claudeSession) line(typ string, message any, extra ...any) {
	s.w.t.Helper()
	s.n++
	uuid := fmt.Sprintf("%08d-0000-4000-8000-%012d", s.n, len(s.id))
	m := map[string]any{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": s.w.Root,
		"sessionId": s.id, "version": "2.0.42", "type": typ, "uuid": uuid, "timestamp": "2026-03-01T09:00:00.000Z"}
	if s.parent != "" {
		m["parentUuid"] = s.parent
	}
	if message != nil {
		m["message"] = message
	}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	data, _ := json.Marshal(m)
	f, err := os.OpenFile(s.transcript, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		s.w.t.Fatal(err)
	}
	f.Write(append(data, '\n'))
	f.Close()
	s.parent = uuid
}

// event runs the hook with one event and returns its stdout.
func (s *claudeSession) event(name string, kv ...any) string {
	s.w.t.Helper()
	ev := map[string]any{"hook_event_name": name, "session_id": s.id, "transcript_path": s.transcript, "cwd": s.w.Root}
	for i := 0; i+1 < len(kv); i += 2 {
		ev[kv[i].(string)] = kv[i+1]
	}
	data, _ := json.Marshal(ev)
	r := s.w.runIn(string(data), "hook", "claude-code")
	if r.code != 0 {
		s.w.t.Fatalf("hook %s: exit %d: %s", name, r.code, r.stderr)
	}
	return r.stdout
}

// prompt submits a prompt (the hook runs before Claude Code writes it) and
// returns the hook's stdout.
func (s *claudeSession) prompt(text string) string {
	s.w.t.Helper()
	out := s.event("UserPromptSubmit", "prompt", text)
	s.line("file-history-snapshot", nil, "messageId", "m", "snapshot", map[string]any{"trackedFileBackups": map[string]any{}})
	s.line("user", map[string]any{"role": "user", "content": text})
	s.line("progress", nil, "data", map[string]any{"type": "hook_progress", "hookEvent": "UserPromptSubmit"})
	return out
}

// write is the agent's Write tool on rel.
func (s *claudeSession) write(rel, content string) {
	s.w.t.Helper()
	s.line("assistant", map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + rel, "name": "Write",
		"input": map[string]any{"file_path": filepath.Join(s.w.Root, rel)}}}})
	s.event("PreToolUse", "tool_name", "Write", "tool_input", map[string]any{"file_path": filepath.Join(s.w.Root, rel), "content": content})
	s.w.Write(rel, content)
	s.event("PostToolUse", "tool_name", "Write", "tool_input", map[string]any{"file_path": filepath.Join(s.w.Root, rel), "content": content},
		"tool_response", map[string]any{"filePath": filepath.Join(s.w.Root, rel)})
	s.line("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_" + rel, "content": "ok"}}})
}

// bash is the agent's Bash tool running edit.
func (s *claudeSession) bash(id string, edit func()) {
	s.w.t.Helper()
	s.event("PreToolUse", "tool_name", "Bash", "tool_use_id", id, "tool_input", map[string]any{"command": "./gen.sh"})
	edit()
	s.event("PostToolUse", "tool_name", "Bash", "tool_use_id", id, "tool_input", map[string]any{"command": "./gen.sh"})
	s.line("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "done"}}})
}

// stop ends the turn: the last reply, then the Stop hook.
func (s *claudeSession) stop() {
	s.w.t.Helper()
	s.line("assistant", map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Done."}}})
	if out := s.event("Stop", "stop_hook_active", false); out != "" {
		s.w.t.Fatalf("Stop printed %q", out)
	}
}

// TestAcceptanceClaudeCode: Claude Code's whole round trip, from a shell
// with hook events on stdin: three turns of one session and one turn of a
// second session interleaved; `rewind 2 --mode both` restores the files,
// writes a forked transcript equal to the original up to turn 2's prompt
// but for sessionId, prints the resume command, and the next
// UserPromptSubmit of each session receives the notice once.
func TestAcceptanceClaudeCode(t *testing.T) {
	w := newWS(t)
	projects := claudeProjects(t, w)
	w.Write("a.txt", "a0\n")
	w.Write("b.txt", "b0\n")
	A := w.claude("aaaaaaaa-1111-4111-8111-111111111111", projects)
	B := w.claude("bbbbbbbb-2222-4222-8222-222222222222", projects)
	for _, s := range []*claudeSession{A, B} {
		if out := s.event("SessionStart", "source", "startup"); out != "" {
			t.Fatalf("SessionStart printed %q", out)
		}
	}

	for _, out := range []string{A.prompt("turn one: edit a")} { // turn 1
		if out != "" {
			t.Fatalf("UserPromptSubmit with nothing to tell printed %q", out)
		}
	}
	A.write("a.txt", "a1\n")
	A.stop()
	A.prompt("turn two: edit a again") // turn 2
	A.write("a.txt", "a2\n")
	B.prompt("B's turn: regenerate b") // turn 3, while A's turn 2 is open
	B.bash("toolu_b1", func() { w.Write("b.txt", "b1\n"); w.Write("gen.txt", "generated\n") })
	A.stop()                      // ends only A's turn
	B.stop()                      // B's turn was still open
	A.prompt("turn three: add c") // turn 4
	A.write("c.txt", "c\n")
	A.stop()

	var list struct {
		Turns []struct {
			Turn           int
			Session, Agent string
			Ended          string
		}
	}
	w.okJSON(&list, "log")
	if len(list.Turns) != 4 || list.Turns[2].Session != B.id || list.Turns[1].Session != A.id || list.Turns[2].Ended == "" {
		t.Fatalf("turns: %+v", list.Turns)
	}
	// What each session's tools wrote is on its turn end.
	wrote := map[string][]string{}
	journal, _ := os.ReadFile(filepath.Join(w.Store, "journal"))
	for _, l := range strings.Split(strings.TrimSpace(string(journal)), "\n") {
		var e struct {
			Kind, Session string
			Wrote         []string
			Turn          int
		}
		json.Unmarshal([]byte(l[9:]), &e)
		if e.Kind == "turnEnd" {
			wrote[fmt.Sprint(e.Turn)] = e.Wrote
		}
	}
	if fmt.Sprint(wrote) != "map[1:[a.txt] 2:[a.txt] 3:[b.txt gen.txt] 4:[c.txt]]" {
		t.Fatalf("files each turn's own tools wrote: %v", wrote)
	}

	origA, _ := os.ReadFile(A.transcript)
	r := w.ok("rewind", "2", "--mode", "both")
	if w.Read("a.txt") != "a1\n" || w.Read("b.txt") != "b0\n" || w.Read("c.txt") != "<missing>" || w.Read("gen.txt") != "<missing>" {
		t.Fatalf("files not restored to before turn 2: a=%q b=%q c=%q gen=%q", w.Read("a.txt"), w.Read("b.txt"), w.Read("c.txt"), w.Read("gen.txt"))
	}
	newID := resumeID(t, r.stdout)
	t.Logf("rewind 2 --mode both:\n%s", r.stdout)
	if now, _ := os.ReadFile(A.transcript); !bytes.Equal(now, origA) {
		t.Fatal("the original transcript was modified")
	}
	forked, err := os.ReadFile(filepath.Join(projects, newID+".jsonl"))
	if err != nil {
		t.Fatalf("forked transcript: %v", err)
	}
	// The original's lines up to turn 2's prompt, but for sessionId.
	at := bytes.Index(origA, []byte(`"content":"turn two: edit a again"`))
	upTo := origA[:bytes.LastIndexByte(origA[:at], '\n')+1]
	// Turn 2's prompt was preceded by its file-history-snapshot line,
	// written after the hook ran: it is not in the fork either.
	upTo = upTo[:bytes.LastIndexByte(upTo[:len(upTo)-1], '\n')+1]
	want := bytes.ReplaceAll(upTo, []byte(`"sessionId":"`+A.id+`"`), []byte(`"sessionId":"`+newID+`"`))
	if !bytes.Equal(forked, want) {
		t.Fatalf("forked transcript differs from the original up to turn 2's prompt:\n got %s\nwant %s", forked, want)
	}

	// The next prompt of each session gets the notice once, exactly.
	for _, s := range []*claudeSession{A, B} {
		out := s.prompt("what now?")
		ctx := noticeContext(t, out)
		for _, want := range []string{"turn 2", "a.txt", "b.txt", "c.txt", "gen.txt", "Re-read"} {
			if !strings.Contains(ctx, want) {
				t.Errorf("%s's notice lacks %q: %s", s.id[:8], want, ctx)
			}
		}
		t.Logf("notice to %s: %s", s.id[:8], strings.TrimSpace(out))
		s.stop()
		if again := s.prompt("and then?"); again != "" {
			t.Fatalf("%s told twice: %q", s.id[:8], again)
		}
		s.stop()
	}
	t.Logf("log:\n%s", w.ok("log").stdout)
}

// noticeContext decodes a UserPromptSubmit hook's stdout, which must be
// exactly the notice object Claude Code accepts, and returns its text.
func noticeContext(t *testing.T, out string) string {
	t.Helper()
	var notice struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&notice); err != nil || notice.HookSpecificOutput.HookEventName != "UserPromptSubmit" {
		t.Fatalf("the hook printed %q, not a notice: %v", out, err)
	}
	return notice.HookSpecificOutput.AdditionalContext
}

// claudeProjects makes the folder where Claude Code keeps the transcripts
// of w's sessions, in a fresh home.
func claudeProjects(t *testing.T, w *ws) string {
	projects := filepath.Join(t.TempDir(), ".claude", "projects", strings.ReplaceAll(w.Root, "/", "-"))
	if err := os.MkdirAll(projects, 0o700); err != nil {
		t.Fatal(err)
	}
	return projects
}

// resumeID is the session a rewind's output says to resume with
// `claude --resume ID`.
func resumeID(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "claude --resume ")
	if i < 0 {
		t.Fatalf("rewind output lacks the resume command:\n%s", out)
	}
	return strings.Fields(out[i+len("claude --resume "):])[0]
}

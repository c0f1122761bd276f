package droid

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/agenttest"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
)

// droidFixture is the session file droid 0.215 wrote in
// testdata/droid (TestFirstPromptDroid), copied into a scratch folder.
func droidFixture(t *testing.T) (path string, data []byte) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join("..", "testdata", "droid", "*-*.jsonl"))
	if len(names) != 1 {
		t.Fatalf("droid's session file in testdata/droid: %v", names)
	}
	data, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), filepath.Base(names[0]))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// droid's own payloads (one droid exec prompt that wrote a.txt with Create
// and b.txt with Execute) read as one session's events: no prompt event,
// the tools' writes, and at every event after SessionStart the prompt read
// from the transcript, its position where its lines begin.
func TestParseDroidPayloads(t *testing.T) {
	path, data := droidFixture(t)
	var kinds []agent.EventKind
	var writes []string
	for _, fx := range agenttest.Fixtures(t, Name) {
		ev, err := droid{}.Parse(fx.Payload, "")
		if err != nil {
			t.Fatalf("%s: %v", fx.Event, err)
		}
		if ev.Name != fx.Event || ev.Cwd != "/w/project" || ev.SessionID == "" {
			t.Errorf("%s read as %q, cwd %q, session %q", fx.Event, ev.Name, ev.Cwd, ev.SessionID)
		}
		kinds = append(kinds, ev.Kind)
		if ev.Kind == agent.PostTool {
			paths, capture, _ := droid{}.Writes(ev)
			if capture {
				writes = append(writes, "capture")
			} else {
				writes = append(writes, strings.Join(paths, ","))
			}
		}
		if ev.Kind == agent.PreTool || ev.Kind == agent.Stop {
			ev.Transcript = path
			p, err := droid{}.CurrentPrompt(ev)
			if err != nil || p == nil {
				t.Fatalf("%s: current prompt %v, %v", fx.Event, p, err)
			}
			if p.Text != "Write a.txt, then b.txt from the shell." || p.Point.ForkUUID != p.ID {
				t.Errorf("%s: current prompt %+v", fx.Event, p)
			}
			at := data[p.Point.ForkBytes:]
			if !bytes.HasPrefix(at, []byte(`{"type":"message","id":"context-`+p.ID+`"`)) {
				t.Errorf("%s: the prompt's position is not its context line: %.80s", fx.Event, at)
			}
		}
	}
	want := []agent.EventKind{agent.SessionStart, agent.PreTool, agent.PostTool, agent.PreTool, agent.PostTool, agent.Stop, agent.Ignored}
	if !slices.Equal(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
	if w := []string{"/w/project/a.txt", "capture"}; !slices.Equal(writes, w) {
		t.Errorf("post-tool writes %q, want %q", writes, w)
	}
}

// A fork before the session's first prompt is refused; one at its end is
// a new session file beside it: the same lines, the session_start line's
// id the new one, with droid's resume command.
func TestForkDroid(t *testing.T) {
	path, data := droidFixture(t)
	ev := &agent.Event{Kind: agent.Stop, Transcript: path}
	p, err := droid{}.CurrentPrompt(ev)
	if err != nil || p == nil {
		t.Fatal(p, err)
	}
	var r *agent.Refusal
	if _, err := (droid{}).Fork(agent.ForkRequest{Transcript: path, Point: p.Point}); !errors.As(err, &r) || r != agent.FirstTurn {
		t.Errorf("a fork before the first prompt: %v", err)
	}
	_, end, err := droid{}.Position(ev)
	if err != nil || end.ForkBytes != int64(len(data)) {
		t.Fatalf("position at the end: %+v, %v", end, err)
	}
	fk, err := droid{}.Fork(agent.ForkRequest{Transcript: path, Point: end, End: true})
	if err != nil {
		t.Fatal(err)
	}
	if fk.Resume != "droid exec --fork "+fk.Session || fk.Transcript != filepath.Join(filepath.Dir(path), fk.Session+".jsonl") {
		t.Errorf("fork %+v", fk)
	}
	got, _ := os.ReadFile(fk.Transcript)
	old := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if want := bytes.Replace(data, []byte(`"id":"`+old+`"`), []byte(`"id":"`+fk.Session+`"`), 1); !bytes.Equal(got, want) {
		t.Errorf("the fork is not the session with its id replaced:\n%.300s", got)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, data) {
		t.Error("the fork changed the original")
	}
	// The prompt moved: the fork point no longer starts its lines.
	bad := p.Point
	bad.ForkBytes = end.ForkBytes - int64(len(data)-bytes.LastIndexByte(data[:len(data)-1], '\n')-1)
	if _, err := (droid{}).Fork(agent.ForkRequest{Transcript: path, Point: bad}); !errors.As(err, &r) || !strings.Contains(r.Reason, "changed under the fork point") {
		t.Errorf("a fork at a moved point: %v", err)
	}
}

// A SessionStart of a fork names the session it continues.
func TestDroidParent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	os.WriteFile(path, []byte(`{"type":"session_start","id":"s","parent":"p","forkedAtMessageId":"m"}`+"\n"), 0o600)
	ev, err := droid{}.Parse([]byte(`{"hook_event_name":"SessionStart","session_id":"s","transcript_path":`+conv.Quote(path)+`,"cwd":"/w","source":"resume"}`), "")
	if err != nil || ev.Parent != "p" || ev.Kind != agent.SessionStart {
		t.Fatalf("parsed %+v, %v", ev, err)
	}
	if out := string(droid{}.NoticeAt(ev, "n")); out != `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"n"}}`+"\n" {
		t.Errorf("notice at SessionStart: %s", out)
	}
	if out := (droid{}).NoticeAt(&agent.Event{Name: "PreToolUse"}, "n"); out != nil {
		t.Errorf("notice at PreToolUse (its output does not reach the model): %s", out)
	}
}

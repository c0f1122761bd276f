package copilot

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
)

// A Copilot CLI session folder (as the real CLI wrote it): the fork at the
// end of its one turn is a new folder with the events and workspace.yaml,
// the session id replaced; before its only prompt there is nothing to
// fork; a prompt the file does not hold yet is refused with the reason.
func TestForkCopilot(t *testing.T) {
	events, _ := os.ReadFile(filepath.Join("..", "testdata", "copilot", "events.jsonl"))
	yaml, _ := os.ReadFile(filepath.Join("..", "testdata", "copilot", "workspace.yaml"))
	old := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(yaml), "\n", 2)[0], "id:"))
	state := filepath.Join(t.TempDir(), "session-state")
	dir := filepath.Join(state, old)
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "events.jsonl"), events, 0o600)
	os.WriteFile(filepath.Join(dir, "workspace.yaml"), yaml, 0o600)
	const prompt = "Write a.txt, then b.txt from the shell."
	req := agent.ForkRequest{Session: old, Transcript: filepath.Join(dir, "events.jsonl"), Prompt: prompt, End: true}
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
	var r *agent.Refusal
	req.End = false
	if _, err := (copilot{}).Fork(req); !errors.As(err, &r) || !strings.Contains(r.Reason, "first") {
		t.Errorf("fork before the only prompt: %v", err)
	}
	req.Nth = 1 // a second prompt with the same text, not written yet
	if _, err := (copilot{}).Fork(req); !errors.As(err, &r) || !strings.Contains(r.Reason, "not in") {
		t.Errorf("fork at a prompt not written yet: %v", err)
	}
}

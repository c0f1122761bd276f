package copilot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/agenttest"
)

// Copilot CLI, three prompts: the fork at turn 2's start is the session
// folder's events through the first run's session.shutdown, ids replaced
// (workspace.yaml too); at turn 2's end, through the second run's.
func TestForkCopilotThreePrompts(t *testing.T) {
	fx := agenttest.LoadThree(t, Name)
	state := filepath.Join(t.TempDir(), "session-state")
	path, orig := fx.CopyTo(t, "events.jsonl", filepath.Join(state, fx.Session))
	fx.CopyTo(t, "workspace.yaml", filepath.Join(state, fx.Session))
	// Where each run ended.
	var shutdowns []int
	for i, l := range agenttest.JSONLines(orig) {
		if strings.Contains(l, `"type":"session.shutdown"`) {
			shutdowns = append(shutdowns, i+1)
		}
	}
	if len(shutdowns) != 3 {
		t.Fatalf("%d session.shutdown events, want one per prompt", len(shutdowns))
	}
	tn := fx.Turns[1]
	for i, end := range []bool{false, true} {
		fk, err := copilot{}.Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Prompt: tn.Prompt, End: end})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(fk.Transcript)
		agenttest.CheckCut(t, orig, got, shutdowns[i], fx.Session, fk.Session)
		if y, _ := os.ReadFile(filepath.Join(state, fk.Session, "workspace.yaml")); !strings.HasPrefix(string(y), "id: "+fk.Session+"\n") {
			t.Errorf("workspace.yaml:\n%s", y)
		}
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("the original changed")
	}
}

package codex

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/agenttest"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Codex, three prompts: Codex forks its thread itself (through `codex
// app-server`, driven in testkit/agents), by turn id; what rewind-lsp reads
// is that id. The rollout carries the three turns' ids in order; at turn
// 2's prompt (the rollout as it stood) the position is turn 1's id, at its
// end turn 2's own, as the hooks recorded them.
func TestCodexPositionsThreePrompts(t *testing.T) {
	fx := agenttest.LoadThree(t, Name)
	path, orig := fx.CopyTo(t, fx.Turns[1].Transcript, t.TempDir())
	var ids []string
	for _, l := range agenttest.JSONLines(orig) {
		if id := rolloutTurn([]byte(l)); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if want := []string{fx.Turns[0].EndUUID, fx.Turns[1].EndUUID, fx.Turns[2].EndUUID}; !slices.Equal(ids, want) {
		t.Fatalf("the rollout's turn ids %q, want the recorded %q", ids, want)
	}
	tn := fx.Turns[1]
	then := filepath.Join(t.TempDir(), "rollout-then.jsonl")
	os.WriteFile(then, orig[:tn.StartBytes], 0o600)
	_, pos, err := codex{}.Position(&agent.Event{Kind: agent.Prompt, Transcript: then, TurnID: tn.EndUUID})
	if err != nil || pos.ForkUUID != fx.Turns[0].EndUUID || pos.ForkUUID != tn.StartUUID || pos.ForkBytes != tn.StartBytes {
		t.Errorf("position at turn 2's prompt %+v %v, want turn 1 %s at byte %d", pos, err, fx.Turns[0].EndUUID, tn.StartBytes)
	}
	_, pos, err = codex{}.Position(&agent.Event{Kind: agent.Stop, Transcript: path, TurnID: tn.EndUUID})
	if err != nil || pos.ForkUUID != tn.EndUUID {
		t.Errorf("position at turn 2's end %+v %v", pos, err)
	}
	if _, err := (codex{}).Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Point: journal.ForkPoint{ForkBytes: fx.Turns[0].StartBytes, ForkUUID: ""}}); err != agent.FirstTurn {
		t.Errorf("a fork before the first turn: %v", err)
	}
}

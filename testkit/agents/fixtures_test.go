package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// ThreePrompts is what agent/testdata/<agent>/three-prompts/turns.json
// holds: the turns of one session of three prompts as the real agent's
// hooks recorded them, beside the session files the agent wrote (the
// folders renamed as saveFixtures does).
type ThreePrompts struct {
	Session string      `json:"session"`
	Turns   []FixedTurn `json:"turns"`
}

// FixedTurn is one recorded turn: its prompt, its conversation file (a
// file of the fixture's folder), and the fork points of its start and end.
type FixedTurn struct {
	Prompt     string `json:"prompt"`
	Transcript string `json:"transcript"`
	StartBytes int64  `json:"startBytes"`
	StartUUID  string `json:"startUuid,omitempty"`
	EndBytes   int64  `json:"endBytes"`
	EndUUID    string `json:"endUuid,omitempty"`
}

// saveThreePrompts keeps, in agent/testdata/<agent>/three-prompts/, the
// conversation files of session s after its three prompts and the turns
// the journal in store recorded for them.
func saveThreePrompts(t *testing.T, e *Env, ws, store, s string) {
	journals, _ := filepath.Glob(filepath.Join(store, "*", "journal"))
	if len(journals) != 1 {
		t.Fatalf("journals in %s: %v", store, journals)
	}
	ents, _, err := journal.Open(filepath.Dir(journals[0])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "agent", "testdata", agentName[e.Kind], "three-prompts")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	norm := normalizer(e.Dir(), e.Home, ws)
	fx := ThreePrompts{Session: s}
	starts := map[journal.EntryID]int{}
	files := map[string]string{} // transcript → its content
	// at is a recorded length of transcript as a length of the renamed
	// file: the points end lines, so the renamed prefix is a prefix.
	at := func(transcript string, n int64) int64 {
		if n > int64(len(files[transcript])) {
			t.Fatalf("%s is %d bytes, shorter than a recorded point (%d)", transcript, len(files[transcript]), n)
		}
		return int64(len(norm(files[transcript][:n])))
	}
	var transcript string
	for _, en := range ents {
		switch en.Kind {
		case journal.KindTurnStart:
			if en.Session != s {
				continue
			}
			transcript = en.Transcript
			if _, ok := files[transcript]; !ok {
				data, err := os.ReadFile(transcript)
				if err != nil {
					t.Fatal(err)
				}
				files[transcript] = string(data)
				writeFile(t, filepath.Join(dir, filepath.Base(norm(transcript))), norm(string(data)))
				if e.Kind == Copilot { // a resume needs the folder's workspace.yaml
					y, err := os.ReadFile(filepath.Join(filepath.Dir(en.Transcript), "workspace.yaml"))
					if err != nil {
						t.Fatal(err)
					}
					writeFile(t, filepath.Join(dir, "workspace.yaml"), norm(string(y)))
				}
			}
			starts[en.ID] = len(fx.Turns)
			fx.Turns = append(fx.Turns, FixedTurn{Prompt: en.Prompt, Transcript: filepath.Base(norm(transcript)),
				StartBytes: at(transcript, en.ForkBytes), StartUUID: en.ForkUUID})
		case journal.KindTurnEnd:
			if i, ok := starts[en.Start]; ok {
				fx.Turns[i].EndBytes, fx.Turns[i].EndUUID = at(transcript, en.ForkBytes), en.ForkUUID
			}
		}
	}
	if len(fx.Turns) != 3 {
		t.Fatalf("the journal has %d turns of session %s, want 3", len(fx.Turns), s)
	}
	data, _ := json.MarshalIndent(fx, "", "  ")
	writeFile(t, filepath.Join(dir, "turns.json"), norm(string(data))+"\n")
	t.Logf("wrote %s", dir)
}

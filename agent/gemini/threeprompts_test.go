package gemini

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/agenttest"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Gemini CLI, three prompts: the forks at turn 2's start and end are the
// session file's lines before each recorded point, ids replaced, named as
// a session started now; the start holds the first exchange only, the end
// the second too and nothing of prompt 3.
func TestForkGeminiThreePrompts(t *testing.T) {
	fx := agenttest.LoadThree(t, Name)
	path, orig := fx.CopyTo(t, fx.Turns[1].Transcript, t.TempDir())
	tn := fx.Turns[1]
	for _, end := range []bool{false, true} {
		p := journal.ForkPoint{ForkBytes: tn.StartBytes, ForkUUID: tn.StartUUID}
		if end {
			p = journal.ForkPoint{ForkBytes: tn.EndBytes, ForkUUID: tn.EndUUID}
		}
		fk, err := gemini{}.Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Prompt: tn.Prompt, End: end, Point: p})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(fk.Transcript)
		agenttest.CheckCut(t, orig, got, agenttest.LineIndex(t, orig, p.ForkBytes), fx.Session, fk.Session)
		s := string(got)
		if !strings.Contains(s, fx.Turns[0].Prompt) || !strings.Contains(s, agenttest.ThreeAnswers[0]) || strings.Contains(s, tn.Prompt) != end ||
			strings.Contains(s, agenttest.ThreeAnswers[1]) != end || strings.Contains(s, fx.Turns[2].Prompt) {
			t.Errorf("the fork at turn 2's end=%v holds the wrong exchanges", end)
		}
		if b := filepath.Base(fk.Transcript); !strings.HasPrefix(b, "session-20") || !strings.HasSuffix(b, "-"+fk.Session[:8]+".jsonl") {
			t.Errorf("forked file %s", b)
		}
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("the original changed")
	}
}

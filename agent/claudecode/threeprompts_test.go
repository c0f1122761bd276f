package claudecode

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

// Claude Code, three prompts: the fork at turn 2's start is the
// transcript's lines before the point the prompt hook recorded, ids
// replaced; its conversation holds the first exchange and nothing of
// prompt 2. The fork at turn 2's end holds turn 2's last entries, which
// Claude Code wrote after its Stop hook read the transcript, and nothing
// of prompt 3.
func TestForkClaudeThreePrompts(t *testing.T) {
	fx := agenttest.LoadThree(t, Name)
	path, orig := fx.CopyTo(t, fx.Turns[1].Transcript, t.TempDir())
	tn := fx.Turns[1]
	fk, err := claude{}.Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Prompt: tn.Prompt, Point: journal.ForkPoint{ForkBytes: tn.StartBytes, ForkUUID: tn.StartUUID}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(fk.Transcript)
	agenttest.CheckCut(t, orig, got, agenttest.LineIndex(t, orig, tn.StartBytes), fx.Session, fk.Session)
	if c := agenttest.Conversation(t, got); !agenttest.Mentions(c, fx.Turns[0].Prompt) || !agenttest.Mentions(c, agenttest.ThreeAnswers[0]) || agenttest.Mentions(c, tn.Prompt) {
		t.Errorf("the fork at turn 2's start holds %q", c)
	}
	if fk.Resume != "claude --resume "+fk.Session || filepath.Base(fk.Transcript) != fk.Session+".jsonl" {
		t.Errorf("fork %+v", fk)
	}

	fk, err = claude{}.Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Prompt: tn.Prompt, End: true, Point: journal.ForkPoint{ForkBytes: tn.EndBytes, ForkUUID: tn.EndUUID}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(fk.Transcript)
	c := agenttest.Conversation(t, got)
	if !agenttest.Mentions(c, tn.Prompt) || !agenttest.Mentions(c, agenttest.ThreeAnswers[1]) || agenttest.Mentions(c, fx.Turns[2].Prompt) || strings.Contains(string(got), fx.Turns[2].Prompt) {
		t.Errorf("the fork at turn 2's end holds %q", c)
	}
	// Up to prompt 3's first line: the lines before turn 3's recorded
	// start, less the queue operations that bring prompt 3.
	n := agenttest.LineIndex(t, orig, fx.Turns[2].StartBytes)
	for n > 0 && strings.HasPrefix(agenttest.JSONLines(orig)[n-1], `{"type":"queue-operation"`) {
		n--
	}
	agenttest.CheckCut(t, orig, got, n, fx.Session, fk.Session)
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("the original changed")
	}
}

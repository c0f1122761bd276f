package agent

import (
	"bytes"
	"encoding/json"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// threePrompts is testdata/<agent>/three-prompts: the session files a
// real agent wrote for three prompts (TestRewindRealAgents in
// testkit/agents, -update) and the turns its hooks recorded.
type threePrompts struct {
	dir     string
	Session string `json:"session"`
	Turns   []struct {
		Prompt     string `json:"prompt"`
		Transcript string `json:"transcript"`
		StartBytes int64  `json:"startBytes"`
		StartUUID  string `json:"startUuid"`
		EndBytes   int64  `json:"endBytes"`
		EndUUID    string `json:"endUuid"`
	} `json:"turns"`
}

// The model's answers that end each of the three turns.
var threeAnswers = []string{"Created a.txt.", "Changed a.txt, wrote b.txt.", "Created c.txt."}

func loadThree(t *testing.T, agent string) *threePrompts {
	t.Helper()
	dir := filepath.Join("testdata", agent, "three-prompts")
	data, err := os.ReadFile(filepath.Join(dir, "turns.json"))
	if err != nil {
		t.Fatal(err)
	}
	fx := &threePrompts{dir: dir}
	if err := json.Unmarshal(data, fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Turns) != 3 {
		t.Fatalf("%d turns", len(fx.Turns))
	}
	return fx
}

// copyTo copies the fixture's file name into dir and returns its path and
// content.
func (fx *threePrompts) copyTo(t *testing.T, name, dir string) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fx.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(dir, 0o700)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// jsonLines splits JSON Lines text into its lines, without their newlines.
func jsonLines(data []byte) []string {
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// checkCut checks that a fork's lines are the first n lines of the
// original, each with the old session id replaced by the new one and
// nothing else changed.
func checkCut(t *testing.T, orig, fork []byte, n int, old, new string) {
	t.Helper()
	o, f := jsonLines(orig), jsonLines(fork)
	if len(f) != n {
		t.Errorf("the fork has %d lines, want the original's first %d (of %d)", len(f), n, len(o))
	}
	for i := 0; i < len(f) && i < len(o); i++ {
		if want := strings.ReplaceAll(o[i], old, new); f[i] != want {
			t.Errorf("fork line %d differs from the original's with the id replaced:\n got %.300s\nwant %.300s", i+1, f[i], want)
			return
		}
	}
	if strings.Contains(string(fork), old) {
		t.Errorf("the fork still names the old session %s", old)
	}
}

// lineIndex is the index of the line that starts at byte off.
func lineIndex(t *testing.T, data []byte, off int64) int {
	t.Helper()
	if off == 0 {
		return 0
	}
	if off > int64(len(data)) || data[off-1] != '\n' {
		t.Fatalf("byte %d starts no line", off)
	}
	return bytes.Count(data[:off], []byte("\n"))
}

// conversation is the texts of a Claude Code transcript's user and
// assistant entries (prompts, answers, tool results), in order.
func conversation(t *testing.T, data []byte) []string {
	var out []string
	for _, l := range jsonLines(data) {
		var e struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		json.Unmarshal([]byte(l), &e)
		if e.Type == "user" || e.Type == "assistant" {
			out = append(out, string(e.Message.Content))
		}
	}
	return out
}

func mentions(texts []string, s string) bool {
	return slices.ContainsFunc(texts, func(x string) bool { return strings.Contains(x, s) })
}

// Claude Code, three prompts: the fork at turn 2's start is the
// transcript's lines before the point the prompt hook recorded, ids
// replaced; its conversation holds the first exchange and nothing of
// prompt 2. The fork at turn 2's end holds turn 2's last entries, which
// Claude Code wrote after its Stop hook read the transcript, and nothing
// of prompt 3.
func TestForkClaudeThreePrompts(t *testing.T) {
	fx := loadThree(t, ClaudeCode)
	path, orig := fx.copyTo(t, fx.Turns[1].Transcript, t.TempDir())
	tn := fx.Turns[1]
	fk, err := claude{}.Fork(ForkRequest{Session: fx.Session, Transcript: path, Prompt: tn.Prompt, Point: journal.ForkPoint{ForkBytes: tn.StartBytes, ForkUUID: tn.StartUUID}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(fk.Transcript)
	checkCut(t, orig, got, lineIndex(t, orig, tn.StartBytes), fx.Session, fk.Session)
	if c := conversation(t, got); !mentions(c, fx.Turns[0].Prompt) || !mentions(c, threeAnswers[0]) || mentions(c, tn.Prompt) {
		t.Errorf("the fork at turn 2's start holds %q", c)
	}
	if fk.Resume != "claude --resume "+fk.Session || filepath.Base(fk.Transcript) != fk.Session+".jsonl" {
		t.Errorf("fork %+v", fk)
	}

	fk, err = claude{}.Fork(ForkRequest{Session: fx.Session, Transcript: path, Prompt: tn.Prompt, End: true, Point: journal.ForkPoint{ForkBytes: tn.EndBytes, ForkUUID: tn.EndUUID}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(fk.Transcript)
	c := conversation(t, got)
	if !mentions(c, tn.Prompt) || !mentions(c, threeAnswers[1]) || mentions(c, fx.Turns[2].Prompt) || strings.Contains(string(got), fx.Turns[2].Prompt) {
		t.Errorf("the fork at turn 2's end holds %q", c)
	}
	// Up to prompt 3's first line: the lines before turn 3's recorded
	// start, less the queue operations that bring prompt 3.
	n := lineIndex(t, orig, fx.Turns[2].StartBytes)
	for n > 0 && strings.HasPrefix(jsonLines(orig)[n-1], `{"type":"queue-operation"`) {
		n--
	}
	checkCut(t, orig, got, n, fx.Session, fk.Session)
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("the original changed")
	}
}

// Gemini CLI, three prompts: the forks at turn 2's start and end are the
// session file's lines before each recorded point, ids replaced, named as
// a session started now; the start holds the first exchange only, the end
// the second too and nothing of prompt 3.
func TestForkGeminiThreePrompts(t *testing.T) {
	fx := loadThree(t, Gemini)
	path, orig := fx.copyTo(t, fx.Turns[1].Transcript, t.TempDir())
	tn := fx.Turns[1]
	for _, end := range []bool{false, true} {
		p := journal.ForkPoint{ForkBytes: tn.StartBytes, ForkUUID: tn.StartUUID}
		if end {
			p = journal.ForkPoint{ForkBytes: tn.EndBytes, ForkUUID: tn.EndUUID}
		}
		fk, err := gemini{}.Fork(ForkRequest{Session: fx.Session, Transcript: path, Prompt: tn.Prompt, End: end, Point: p})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(fk.Transcript)
		checkCut(t, orig, got, lineIndex(t, orig, p.ForkBytes), fx.Session, fk.Session)
		s := string(got)
		if !strings.Contains(s, fx.Turns[0].Prompt) || !strings.Contains(s, threeAnswers[0]) || strings.Contains(s, tn.Prompt) != end ||
			strings.Contains(s, threeAnswers[1]) != end || strings.Contains(s, fx.Turns[2].Prompt) {
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

// Copilot CLI, three prompts: the fork at turn 2's start is the session
// folder's events through the first run's session.shutdown, ids replaced
// (workspace.yaml too); at turn 2's end, through the second run's.
func TestForkCopilotThreePrompts(t *testing.T) {
	fx := loadThree(t, Copilot)
	state := filepath.Join(t.TempDir(), "session-state")
	path, orig := fx.copyTo(t, "events.jsonl", filepath.Join(state, fx.Session))
	fx.copyTo(t, "workspace.yaml", filepath.Join(state, fx.Session))
	// Where each run ended.
	var shutdowns []int
	for i, l := range jsonLines(orig) {
		if strings.Contains(l, `"type":"session.shutdown"`) {
			shutdowns = append(shutdowns, i+1)
		}
	}
	if len(shutdowns) != 3 {
		t.Fatalf("%d session.shutdown events, want one per prompt", len(shutdowns))
	}
	tn := fx.Turns[1]
	for i, end := range []bool{false, true} {
		fk, err := copilot{}.Fork(ForkRequest{Session: fx.Session, Transcript: path, Prompt: tn.Prompt, End: end})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(fk.Transcript)
		checkCut(t, orig, got, shutdowns[i], fx.Session, fk.Session)
		if y, _ := os.ReadFile(filepath.Join(state, fk.Session, "workspace.yaml")); !strings.HasPrefix(string(y), "id: "+fk.Session+"\n") {
			t.Errorf("workspace.yaml:\n%s", y)
		}
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("the original changed")
	}
}

// Codex, three prompts: Codex forks its thread itself (through `codex
// app-server`, driven in testkit/agents), by turn id; what rewind-lsp reads
// is that id. The rollout carries the three turns' ids in order; at turn
// 2's prompt (the rollout as it stood) the position is turn 1's id, at its
// end turn 2's own, as the hooks recorded them.
func TestCodexPositionsThreePrompts(t *testing.T) {
	fx := loadThree(t, Codex)
	path, orig := fx.copyTo(t, fx.Turns[1].Transcript, t.TempDir())
	var ids []string
	for _, l := range jsonLines(orig) {
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
	_, pos, err := codex{}.Position(&Event{Kind: Prompt, Transcript: then, TurnID: tn.EndUUID})
	if err != nil || pos.ForkUUID != fx.Turns[0].EndUUID || pos.ForkUUID != tn.StartUUID || pos.ForkBytes != tn.StartBytes {
		t.Errorf("position at turn 2's prompt %+v %v, want turn 1 %s at byte %d", pos, err, fx.Turns[0].EndUUID, tn.StartBytes)
	}
	_, pos, err = codex{}.Position(&Event{Kind: Stop, Transcript: path, TurnID: tn.EndUUID})
	if err != nil || pos.ForkUUID != tn.EndUUID {
		t.Errorf("position at turn 2's end %+v %v", pos, err)
	}
	if _, err := (codex{}).Fork(ForkRequest{Session: fx.Session, Transcript: path, Point: journal.ForkPoint{ForkBytes: fx.Turns[0].StartBytes, ForkUUID: ""}}); err != firstTurn {
		t.Errorf("a fork before the first turn: %v", err)
	}
}

package agenttest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ThreePrompts is testdata/<agent>/three-prompts: the session files a
// real agent wrote for three prompts (TestRewindRealAgents in
// testkit/agents, -update) and the turns its hooks recorded.
type ThreePrompts struct {
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

// ThreeAnswers are the model's answers that end each of the three turns.
var ThreeAnswers = []string{"Created a.txt.", "Changed a.txt, wrote b.txt.", "Created c.txt."}

// LoadThree reads testdata/<agent>/three-prompts.
func LoadThree(t *testing.T, agent string) *ThreePrompts {
	t.Helper()
	dir := filepath.Join("..", "testdata", agent, "three-prompts")
	data, err := os.ReadFile(filepath.Join(dir, "turns.json"))
	if err != nil {
		t.Fatal(err)
	}
	fx := &ThreePrompts{dir: dir}
	if err := json.Unmarshal(data, fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Turns) != 3 {
		t.Fatalf("%d turns", len(fx.Turns))
	}
	return fx
}

// CopyTo copies the fixture's file name into dir and returns its path and
// content.
func (fx *ThreePrompts) CopyTo(t *testing.T, name, dir string) (string, []byte) {
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

// JSONLines splits JSON Lines text into its lines, without their newlines.
func JSONLines(data []byte) []string {
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// CheckCut checks that a fork's lines are the first n lines of the
// original, each with the old session id replaced by the new one and
// nothing else changed.
func CheckCut(t *testing.T, orig, fork []byte, n int, old, new string) {
	t.Helper()
	o, f := JSONLines(orig), JSONLines(fork)
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

// LineIndex is the index of the line that starts at byte off.
func LineIndex(t *testing.T, data []byte, off int64) int {
	t.Helper()
	if off == 0 {
		return 0
	}
	if off > int64(len(data)) || data[off-1] != '\n' {
		t.Fatalf("byte %d starts no line", off)
	}
	return bytes.Count(data[:off], []byte("\n"))
}

// Conversation is the texts of a Claude Code transcript's user and
// assistant entries (prompts, answers, tool results), in order.
func Conversation(t *testing.T, data []byte) []string {
	var out []string
	for _, l := range JSONLines(data) {
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

// Mentions reports whether one of texts holds s.
func Mentions(texts []string, s string) bool {
	return slices.ContainsFunc(texts, func(x string) bool { return strings.Contains(x, s) })
}

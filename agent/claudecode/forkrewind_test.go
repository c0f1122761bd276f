package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// What the real Claude Code wrote for a fork (agent/testdata/claude-fork):
// prompt one and prompt two in the original session (transcript.jsonl),
// its files put back to before prompt two (--rewind-files), then `--resume
// <original> --fork-session --resume-session-at <prompt two's parent>`
// with prompt three: a new session whose transcript (fork.jsonl) copies
// the original's entries up to that point, uuids kept, and did not exist
// when prompt three was submitted.

// TestFindOwnRewindInFork: the fork's prompt three (its transcript did
// not exist when it was submitted) is a sibling of the original's prompt
// two only with that prompt among the earlier ones; before the fork is
// written there is nothing to see.
func TestFindOwnRewindInFork(t *testing.T) {
	_, refs := loadRewindFixture(t, "claude-fork")
	if refs[2].ForkBytes != 0 || refs[2].Transcript == refs[1].Transcript {
		t.Fatalf("the fixture's fork prompt: %+v", refs[2])
	}
	if r, err := FindOwnRewind(refs[2], refs[:1]); err != nil || r != nil {
		t.Fatalf("with prompt one only: %+v, %v", r, err)
	}
	if err := os.Remove(refs[2].Transcript); err != nil {
		t.Fatal(err)
	}
	if r, err := FindOwnRewind(refs[2], refs[:2]); err != nil || r != nil {
		t.Fatalf("before the fork is written: %+v, %v", r, err)
	}
}

// TestFindPromptInFork: --fork-session gives the copied prompt one the
// promptId of the fork's own first prompt; searched from the start (the
// fork did not exist when its prompt was submitted), the fork's prompt is
// the last entry with that id, a sibling of the original's prompt two.
func TestFindPromptInFork(t *testing.T) {
	files, refs := loadRewindFixture(t, "claude-fork")
	fork := files["fork.jsonl"]
	copied, err := FindPrompt(fork, 0, "")
	if err != nil || copied == nil || copied.PromptID != refs[2].PromptID || !copied.First {
		t.Fatalf("the fork's first entry: %+v, %v; want the copied prompt one with promptId %s", copied, err, refs[2].PromptID)
	}
	e, err := FindPrompt(fork, 0, refs[2].PromptID)
	if err != nil || e == nil || e.UUID == copied.UUID || e.First {
		t.Fatalf("the fork's prompt three: %+v, %v", e, err)
	}
	two, err := FindPrompt(refs[1].Transcript, refs[1].ForkBytes, refs[1].PromptID)
	if err != nil || two == nil || two.Parent != e.Parent || two.UUID == e.UUID {
		t.Fatalf("prompt two %+v and the fork's prompt three %+v are no siblings", two, e)
	}
}

// TestFindOwnRewindForkToFirstPrompt: a fork rewound to before its very
// first prompt (/branch, then Esc Esc to prompt one) hangs its new prompt
// on nothing, as every conversation's first prompt does. It dropped the
// original's prompt one only if the fork copied that prompt; an unrelated
// session's first prompt is no sibling of it. (Generated from the fixture:
// a new prompt appended to the fork with no parent.)
func TestFindOwnRewindForkToFirstPrompt(t *testing.T) {
	files, refs := loadRewindFixture(t, "claude-fork")
	fork := files["fork.jsonl"]
	entry := map[string]any{"parentUuid": nil, "isSidechain": false, "promptId": "p-new", "type": "user",
		"message": map[string]any{"role": "user", "content": "prompt again"}, "uuid": "u-new", "sessionId": "s-fork"}
	line, _ := json.Marshal(entry)
	fi, _ := os.Stat(fork)
	f, _ := os.OpenFile(fork, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(append(line, '\n'))
	f.Close()
	cur := &journal.Entry{Transcript: fork, ForkPoint: journal.ForkPoint{ForkBytes: fi.Size(), ForkUUID: "the fork's last entry"}, PromptID: "p-new"}
	if r, err := FindOwnRewind(cur, refs); err != nil || r == nil || r.Dropped != refs[0] {
		t.Fatalf("back to before prompt one: %+v, %v", r, err)
	}
	// Another session's first prompt, not in the fork, is not dropped.
	other := filepath.Join(filepath.Dir(fork), "other.jsonl")
	data, _ := os.ReadFile(files["transcript.jsonl"])
	one, _ := FindPrompt(files["transcript.jsonl"], 0, refs[0].PromptID)
	os.WriteFile(other, []byte(strings.ReplaceAll(string(data), one.UUID, "u-other")), 0o600)
	unrelated := &journal.Entry{Transcript: other, PromptID: refs[0].PromptID}
	if r, err := FindOwnRewind(cur, []*journal.Entry{unrelated}); err != nil || r != nil {
		t.Fatalf("an unrelated session's first prompt taken for the dropped one: %+v, %v", r, err)
	}
}

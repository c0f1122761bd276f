package agent

import (
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// TestForkText: the fork's notice names its fork point with the prompt,
// each file with who changed it, and asks the agent to re-read them;
// without files there is nothing to say.
func TestForkText(t *testing.T) {
	start := &journal.Entry{ID: "s2", Kind: journal.KindTurnStart, Turn: 2, Prompt: "add a cache\nwith details"}
	h := entries{start.ID: start}
	text := ForkText(start, h, []string{"b.txt", "c.txt"}, map[string][]string{"b.txt": {"turn 2", "turn 3"}, "c.txt": {"user"}})
	for _, want := range []string{`before turn 2 ("add a cache…")`, "b.txt (changed by turn 2, turn 3)", "c.txt (changed by user)", "Re-read"} {
		if !strings.Contains(text, want) {
			t.Errorf("fork notice lacks %q:\n%s", want, text)
		}
	}
	if ForkText(start, h, nil, nil) != "" {
		t.Error("a fork notice without files")
	}
	if got := JoinNotices("", text, ""); got != text {
		t.Errorf("JoinNotices of one text: %q", got)
	}
}

// entries is a history holding a few entries.
type entries map[journal.EntryID]*journal.Entry

func (m entries) Entry(id journal.EntryID) *journal.Entry { return m[id] }

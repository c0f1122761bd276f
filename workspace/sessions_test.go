package workspace_test

import (
	"context"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"github.com/rewind-lsp/rewind-lsp/workspace/notices"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

type sessFixture struct {
	t    *testing.T
	ctx  context.Context
	root string
	s    *workspace.Workspace
}

func newSessFixture(t *testing.T) *sessFixture {
	root := t.TempDir()
	s, err := workspace.Open(root, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return &sessFixture{t: t, ctx: context.Background(), root: root, s: s}
}

func (f *sessFixture) write(rel, content string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.root, rel), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *sessFixture) start(session, prompt string) *journal.Entry {
	f.t.Helper()
	e, err := f.s.TurnStart(f.ctx, workspace.TurnRequest{Prompt: prompt, Session: session, Source: "hook", Agent: "claude-code"})
	if err != nil {
		f.t.Fatal(err)
	}
	return e
}

func (f *sessFixture) end(session string) (end, start *journal.Entry) {
	f.t.Helper()
	end, start, err := f.s.TurnEnd(f.ctx, workspace.TurnRequest{Session: session})
	if err != nil {
		f.t.Fatal(err)
	}
	return end, start
}

func (f *sessFixture) history() *journal.History {
	f.t.Helper()
	h, err := f.s.History()
	if err != nil {
		f.t.Fatal(err)
	}
	return h
}

// TestParallelSessions: two agent sessions each keep their own turn open;
// one's end never ends the other's, and a start never ends another
// session's turn.
func TestParallelSessions(t *testing.T) {
	f := newSessFixture(t)
	f.write("a.txt", "a0\n")
	a1 := f.start("A", "a one")
	b1 := f.start("B", "b one")
	if open := f.history().OpenTurns(); len(open) != 2 || open[0].ID != a1.ID || open[1].ID != b1.ID {
		t.Fatalf("open turns after two starts: %v", open)
	}
	f.write("a.txt", "a1\n")
	end, start := f.end("A")
	if end == nil || start.ID != a1.ID || end.Session != "A" || end.Agent != "claude-code" {
		t.Fatalf("A's Stop ended %+v (start %+v), want A's turn", end, start)
	}
	if h := f.history(); h.OpenTurnOf("B") == nil || h.OpenTurnOf("A") != nil {
		t.Fatalf("after A's end: A open %v, B open %v", h.OpenTurnOf("A"), h.OpenTurnOf("B"))
	}
	// A's second Stop finds nothing of A's open; B's turn stays open.
	if end, _ := f.end("A"); end != nil {
		t.Fatalf("A's second Stop ended %+v", end)
	}
	// A starts again: B's turn is still open.
	a2 := f.start("A", "a two")
	if h := f.history(); h.OpenTurnOf("B") == nil || h.OpenTurnOf("A").ID != a2.ID {
		t.Fatal("A's second start ended B's turn")
	}
	// A starts once more without a Stop: its own turn ends first.
	a3 := f.start("A", "a three")
	if h := f.history(); h.Entry(a2.ID) == nil || endOf(h, a2.ID) == nil || h.OpenTurnOf("A").ID != a3.ID {
		t.Fatal("A's start did not end A's own open turn first")
	}
	if end, start := f.end("B"); end == nil || start.ID != b1.ID {
		t.Fatalf("B's Stop: %+v", start)
	}
	h := f.history()
	nums := map[int]bool{}
	for _, tu := range h.Turns(0, 0) {
		if nums[tu.Number] {
			t.Fatalf("turn number %d repeats", tu.Number)
		}
		nums[tu.Number] = true
	}
	if len(nums) != 4 {
		t.Fatalf("want 4 turns, got %d", len(nums))
	}
	// A rewind ends every open turn first.
	if _, err := f.s.Rewind(f.ctx, workspace.RewindRequest{Caller: workspace.Caller{Actor: "t"}, Target: "1"}, nil, workspace.ApplyOnDisk(f.root)); err != nil {
		t.Fatal(err)
	}
	if open := f.history().OpenTurns(); len(open) != 0 {
		t.Fatalf("open turns after a rewind: %v", open)
	}
}

// TestTurnEndWithoutSession: a turn end without a session ends the turn
// opened without one, else the latest open turn.
func TestTurnEndWithoutSession(t *testing.T) {
	f := newSessFixture(t)
	f.start("A", "a")
	plain := f.start("", "by hand")
	if _, start := f.end(""); start == nil || start.ID != plain.ID {
		t.Fatalf("turn end without session ended %+v, want the turn without one", start)
	}
	if _, start := f.end(""); start == nil || start.Session != "A" {
		t.Fatalf("then it should end the only open turn (A's), got %+v", start)
	}
}

// TestToolAttribution: what each session's tool calls wrote is on its
// turn end, apart from the other session's changes in the same window.
func TestToolAttribution(t *testing.T) {
	f := newSessFixture(t)
	f.write("a.txt", "a\n")
	f.write("b.txt", "b\n")
	f.write("c.txt", "c\n")
	f.start("A", "edit a")
	f.start("B", "edit b")
	// A's Edit tool writes a.txt.
	f.write("a.txt", "a edited by A\n")
	if _, err := f.s.RecordTool(f.ctx, workspace.ToolCall{Session: "A", Tool: "Edit", Phase: journal.PhasePost, Paths: []string{"a.txt"}}); err != nil {
		t.Fatal(err)
	}
	// B runs a shell command that writes b.txt and creates d.txt.
	if _, err := f.s.RecordTool(f.ctx, workspace.ToolCall{Session: "B", Tool: "Bash", ToolUse: "t1", Phase: journal.PhasePre, Capture: true}); err != nil {
		t.Fatal(err)
	}
	f.write("b.txt", "b by shell\n")
	f.write("d.txt", "new\n")
	post, err := f.s.RecordTool(f.ctx, workspace.ToolCall{Session: "B", Tool: "Bash", ToolUse: "t1", Phase: journal.PhasePost, Capture: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"b.txt", "d.txt"}; !reflect.DeepEqual(post.Files, want) {
		t.Fatalf("Bash post files %v, want %v", post.Files, want)
	}
	// B starts another shell command and is interrupted (no post): what
	// changed since its pre counts at B's turn end.
	f.s.RecordTool(f.ctx, workspace.ToolCall{Session: "B", Tool: "Bash", ToolUse: "t2", Phase: journal.PhasePre, Capture: true})
	f.write("c.txt", "c by an interrupted shell\n")
	endB, _ := f.end("B")
	if !endB.Attributed || !reflect.DeepEqual(endB.Wrote, []string{"b.txt", "c.txt", "d.txt"}) {
		t.Fatalf("B wrote %v (attributed %v)", endB.Wrote, endB.Attributed)
	}
	endA, _ := f.end("A")
	if !endA.Attributed || !reflect.DeepEqual(endA.Wrote, []string{"a.txt"}) {
		t.Fatalf("A wrote %v (attributed %v)", endA.Wrote, endA.Attributed)
	}
	// A's turn changed everything in its window (B's changes too): only
	// Wrote tells them apart.
	if len(endA.Changed) != 4 {
		t.Fatalf("A's turn changed %v, want all 4 files", endA.Changed)
	}
	// A turn with no tool call reported is not attributed.
	f.start("C", "no tools")
	if endC, _ := f.end("C"); endC.Attributed || endC.Wrote != nil {
		t.Fatalf("turn without tool calls: %+v", endC)
	}
	// Tool entries are not part of the conversation tree.
	for _, e := range f.history().BranchEntries(0) {
		if e.Kind == journal.KindTool {
			t.Fatal("a tool entry is on the active branch")
		}
	}
}

// notices takes the entries session sid has not been told of yet.
func (f *sessFixture) notices(sid string) []*journal.Entry {
	f.t.Helper()
	n, err := notices.Take(f.s, sid, "")
	if err != nil {
		f.t.Fatal(err)
	}
	return n.Entries
}

// endOf is the end entry of the turn that start opened, or nil.
func endOf(h *journal.History, start journal.EntryID) *journal.Entry {
	for _, t := range h.AllTurns(0) {
		if t.Start.ID == start {
			return t.End
		}
	}
	return nil
}

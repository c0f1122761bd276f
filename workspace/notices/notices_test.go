package notices_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"github.com/rewind-lsp/rewind-lsp/workspace/notices"
)

// sessFixture is a root with its workspace open, for tests that play
// agent sessions' turns and ask what each is told.
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

func (f *sessFixture) end(session string) {
	f.t.Helper()
	if _, _, err := f.s.TurnEnd(f.ctx, workspace.TurnRequest{Session: session}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *sessFixture) history() *journal.History {
	f.t.Helper()
	h, err := f.s.History()
	if err != nil {
		f.t.Fatal(err)
	}
	return h
}

// take is what session sid is told at its next prompt (key: the call's
// idempotency key).
func (f *sessFixture) take(sid, key string) *notices.Notices {
	f.t.Helper()
	n, err := notices.Take(f.s, sid, key)
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

// notices takes the entries session sid has not been told of yet.
func (f *sessFixture) notices(sid string) []*journal.Entry {
	f.t.Helper()
	return f.take(sid, "").Entries
}

func countKind(h *journal.History, kind journal.Kind) int {
	n := 0
	h.Scan(func(e *journal.Entry) bool {
		if e.Kind == kind {
			n++
		}
		return true
	})
	return n
}

// TestNoticesOncePerSession: each session that existed before a rewind is
// told of it once; a session started after it is not.
func TestNoticesOncePerSession(t *testing.T) {
	f := newSessFixture(t)
	f.write("a.txt", "1\n")
	if _, err := f.s.RecordSession(workspace.Caller{Actor: "hook"}, "A", "startup", "claude-code", ""); err != nil {
		t.Fatal(err)
	}
	f.start("A", "one")
	f.write("a.txt", "2\n")
	f.end("A")
	f.start("B", "other")
	f.end("B")
	if got := f.notices("A"); len(got) != 0 {
		t.Fatalf("notices before any rewind: %v", got)
	}
	out, err := f.s.Rewind(f.ctx, workspace.RewindRequest{Target: "1", Caller: workspace.Caller{Actor: "t"}, Report: "the cache idea was wrong"}, nil, workspace.ApplyOnDisk(f.root))
	if err != nil || !out.Applied {
		t.Fatal(err, out)
	}
	for _, sid := range []string{"A", "B"} {
		got := f.notices(sid)
		if len(got) != 1 || got[0].Kind != journal.KindRewind || got[0].Report == "" {
			t.Fatalf("%s's first notices: %v", sid, got)
		}
		if again := f.notices(sid); len(again) != 0 {
			t.Fatalf("%s told twice: %v", sid, again)
		}
	}
	f.start("C", "after")
	if got := f.notices("C"); len(got) != 0 {
		t.Fatalf("a session that started after the rewind was told of it: %v", got)
	}
	if got := f.notices("never-seen"); len(got) != 0 {
		t.Fatal("an unknown session was told")
	}
	// An undo that changed files is told; a summarize report too.
	if _, err := f.s.Undo(f.ctx, workspace.UndoRequest{Caller: workspace.Caller{Actor: "t"}}, nil, workspace.ApplyOnDisk(f.root)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Rewind(f.ctx, workspace.RewindRequest{Target: "1", Mode: journal.ModeSummarize, Report: "learnt", Caller: workspace.Caller{Actor: "t"}}, nil, workspace.ApplyOnDisk(f.root)); err != nil {
		t.Fatal(err)
	}
	got := f.notices("A")
	if len(got) != 2 || got[0].Kind != journal.KindUndo || got[1].Kind != journal.KindSummary {
		t.Fatalf("A's notices after undo and summarize: %v", got)
	}
}

// TestNoticesRetriedWithTheirKey: a notice whose answer was lost (the
// server recorded it, the hook never printed it) is told again to the
// retry with the same key, once, even when the key is shared with the
// call's turn start; a new key gets nothing more. A session recorded twice
// under one key is one entry.
func TestNoticesRetriedWithTheirKey(t *testing.T) {
	f := newSessFixture(t)
	f.write("a.txt", "1\n")
	for range 2 {
		if _, err := f.s.RecordSession(workspace.Caller{Actor: "hook", Key: "k0"}, "A", "startup", "claude-code", ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := countKind(f.history(), journal.KindSession); n != 1 {
		t.Fatalf("a session recorded twice under one key: %d session entries", n)
	}
	f.start("A", "one")
	f.write("a.txt", "2\n")
	f.end("A")
	if out, err := f.s.Rewind(f.ctx, workspace.RewindRequest{Target: "1", Caller: workspace.Caller{Actor: "t"}}, nil, workspace.ApplyOnDisk(f.root)); err != nil || !out.Applied {
		t.Fatal(err, out)
	}
	if _, err := f.s.TurnStart(f.ctx, workspace.TurnRequest{Prompt: "two", Session: "A", Source: "hook", Caller: workspace.Caller{Actor: "hook", Key: "k1"}}); err != nil {
		t.Fatal(err)
	}
	take := func(key string) []*journal.Entry { return f.take("A", key).Entries }
	first := take("k1")
	if len(first) != 1 || first[0].Kind != journal.KindRewind {
		t.Fatalf("first take: %v", first)
	}
	if again := take("k1"); len(again) != 1 || again[0].ID != first[0].ID {
		t.Fatalf("the retry with the same key: %v; want %v again", again, first)
	}
	if n := countKind(f.history(), journal.KindNotice); n != 1 {
		t.Fatalf("%d notice entries after a retry; want 1", n)
	}
	if other := take("k2"); len(other) != 0 {
		t.Fatalf("told twice under a new key: %v", other)
	}
}

// TestNoticesWhatIsTold: a session is told of a revert and an undo that
// changed files, once each; not of a rewind that changed nothing, a dry
// run, or a revert refused for a conflict.
func TestNoticesWhatIsTold(t *testing.T) {
	f := newSessFixture(t)
	f.write("a.txt", "x\ny\n")
	f.start("A", "one")
	f.write("a.txt", "X1\ny\n")
	f.end("A")
	apply := workspace.ApplyOnDisk(f.root)
	if got := f.notices("A"); len(got) != 0 {
		t.Fatalf("told before anything happened: %v", got)
	}

	if out, err := f.s.Rewind(f.ctx, workspace.RewindRequest{Target: "turn:1:end", Caller: workspace.Caller{Actor: "t"}}, nil, apply); err != nil || !out.Applied {
		t.Fatal(err, out)
	}
	if _, err := f.s.Revert(f.ctx, workspace.RevertRequest{Target: "1", DryRun: true, Caller: workspace.Caller{Actor: "t"}}, nil, apply); err != nil {
		t.Fatal(err)
	}
	if got := f.notices("A"); len(got) != 0 {
		t.Fatalf("told of a rewind that changed nothing, or of a dry run: %v", got)
	}

	f.write("a.txt", "X1 edited\ny\n")
	if out, err := f.s.Revert(f.ctx, workspace.RevertRequest{Target: "1", Caller: workspace.Caller{Actor: "t"}}, nil, apply); err != nil || out.Applied {
		t.Fatalf("a revert over the person's edit: %v %+v", err, out)
	}
	if got := f.notices("A"); len(got) != 0 {
		t.Fatalf("told of a refused revert: %v", got)
	}

	f.write("a.txt", "X1\ny\n")
	if out, err := f.s.Revert(f.ctx, workspace.RevertRequest{Target: "1", Caller: workspace.Caller{Actor: "t"}}, nil, apply); err != nil || !out.Applied {
		t.Fatal(err, out)
	}
	if got := f.notices("A"); len(got) != 1 || got[0].Kind != journal.KindRevert {
		t.Fatalf("after a revert: %v", got)
	}
	if _, err := f.s.Undo(f.ctx, workspace.UndoRequest{Caller: workspace.Caller{Actor: "t"}}, nil, apply); err != nil {
		t.Fatal(err)
	}
	if got := f.notices("A"); len(got) != 1 || got[0].Kind != journal.KindUndo {
		t.Fatalf("after the undo: %v", got)
	}
	if got := f.notices("A"); len(got) != 0 {
		t.Fatalf("told twice: %v", got)
	}
}

package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// threeTurns plays the scenario: turns 1, 2 and 3 edit f.txt in
// different places, and turn 2 also creates new.txt.
func threeTurns(t *testing.T) *ws {
	w := newWS(t)
	w.Write("f.txt", "a\nb\nc\nd\ne\nf\ng\n")
	w.turn("one", func() { w.Write("f.txt", "A1\nb\nc\nd\ne\nf\ng\n") })
	w.turn("two", func() {
		w.Write("f.txt", "A1\nb\nC2\nd\ne\nf\ng\n")
		w.Write("new.txt", "made by turn 2\n")
	})
	w.turn("three", func() { w.Write("f.txt", "A1\nb\nC2\nd\nE3\nf\ng\n") })
	return w
}

func (w *ws) revert(req RevertRequest) *RevertOutcome {
	w.t.Helper()
	out, err := w.s.Revert(context.Background(), req, nil, ApplyOnDisk(w.Root))
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

// TestRevertMiddleTurn is the acceptance scenario on disk.
func TestRevertMiddleTurn(t *testing.T) {
	w := threeTurns(t)
	out := w.revert(RevertRequest{Target: "2"})
	if !out.Applied || out.Entry == nil || out.Entry.Kind != journal.KindRevert {
		t.Fatalf("revert of turn 2: applied=%v reason=%q entry=%+v", out.Applied, out.FailureReason, out.Entry)
	}
	if got := w.Read("f.txt"); got != "A1\nb\nc\nd\nE3\nf\ng\n" {
		t.Fatalf("f.txt after reverting turn 2 = %q; want turns 1 and 3 kept", got)
	}
	if w.Exists("new.txt") {
		t.Fatal("new.txt, created by turn 2, is still there")
	}
	if got := w.blame("f.txt"); got != "0:1 4:3" {
		t.Fatalf("blame after the revert: %q", got)
	}
	if _, err := w.s.Undo(context.Background(), UndoRequest{Caller: Caller{Actor: "t"}}, nil, ApplyOnDisk(w.Root)); err != nil {
		t.Fatal(err)
	}
	if got := w.Read("f.txt"); got != "A1\nb\nC2\nd\nE3\nf\ng\n" || !w.Exists("new.txt") {
		t.Fatalf("after undo f.txt = %q, new.txt there: %v", got, w.Exists("new.txt"))
	}
	if got := w.blame("f.txt"); got != "0:1 2:2 4:3" {
		t.Fatalf("blame after undo: %q", got)
	}
}

// TestRevertRefusedNamingUser: the person edited a line turn 2 wrote;
// reverting turn 2 changes nothing and says who overlapped.
func TestRevertRefusedNamingUser(t *testing.T) {
	w := threeTurns(t)
	w.Write("f.txt", "A1\nb\nC2 edited\nd\nE3\nf\ng\n")
	out := w.revert(RevertRequest{Target: "2"})
	if out.Applied || out.Entry != nil {
		t.Fatalf("revert over the person's edit was applied: %+v", out)
	}
	if len(out.Conflicts) != 1 || out.Conflicts[0].Path != "f.txt" || strings.Join(out.Conflicts[0].Overlaps, ",") != "user" {
		t.Fatalf("conflicts: %+v", out.Conflicts)
	}
	if !strings.Contains(out.FailureReason, "f.txt") || !strings.Contains(out.FailureReason, "user") {
		t.Fatalf("failureReason %q names neither the file nor user", out.FailureReason)
	}
	if got := w.Read("f.txt"); got != "A1\nb\nC2 edited\nd\nE3\nf\ng\n" || !w.Exists("new.txt") {
		t.Fatalf("a refused revert changed files: f.txt = %q", got)
	}
	// Narrowed to the file that does not conflict, it goes through.
	out = w.revert(RevertRequest{Target: "2", Paths: []string{"new.txt"}})
	if !out.Applied || w.Exists("new.txt") {
		t.Fatalf("revert of new.txt alone: %+v", out)
	}
}

// TestRevertRefusedNamingLaterTurn: a later turn rewrote turn 1's line.
func TestRevertRefusedNamingLaterTurn(t *testing.T) {
	w := threeTurns(t)
	w.turn("four", func() { w.Write("f.txt", "A4\nb\nC2\nd\nE3\nf\ng\n") })
	out := w.revert(RevertRequest{Target: "1", DryRun: true})
	if len(out.Conflicts) != 1 || strings.Join(out.Conflicts[0].Overlaps, ",") != "turn 4" {
		t.Fatalf("conflicts: %+v", out.Conflicts)
	}
	if !strings.Contains(out.FailureReason, "turn 4") {
		t.Fatalf("failureReason %q does not name turn 4", out.FailureReason)
	}
}

// TestRevertRange: a range takes back only the turn's hunks it touches.
func TestRevertRange(t *testing.T) {
	w := newWS(t)
	w.Write("f.txt", "a\nb\nc\nd\ne\n")
	w.turn("two places", func() { w.Write("f.txt", "A\nb\nc\nd\nE\n") })
	w.Write("f.txt", "A\nb\nc\nd\nE\nmine\n")
	out := w.revert(RevertRequest{Target: "1", Paths: []string{"f.txt"}, Lines: &[2]int{4, 4}})
	if !out.Applied || w.Read("f.txt") != "A\nb\nc\nd\ne\nmine\n" {
		t.Fatalf("range revert: %+v, f.txt = %q", out, w.Read("f.txt"))
	}
}

// TestRevertCreatesDeletesModes: a file the turn deleted comes back, a
// file it created and nobody touched goes, a mode change goes back, and a
// created file someone edited since is a conflict.
func TestRevertCreatesDeletesModes(t *testing.T) {
	w := newWS(t)
	w.Write("gone.txt", "keep me\n")
	w.Write("run.sh", "echo hi\n")
	w.Write("bin.dat", "\x00\x01")
	w.turn("shuffle", func() {
		os.Remove(filepath.Join(w.Root, "gone.txt"))
		os.Chmod(filepath.Join(w.Root, "run.sh"), 0o755)
		w.Write("bin.dat", "\x00\x02")
		w.Write("made.txt", "new\n")
	})
	out := w.revert(RevertRequest{Target: "1", DryRun: true})
	if len(out.Conflicts) != 0 || len(out.Diff.Ops) != 4 {
		t.Fatalf("plan: %+v %+v", out.Diff.Ops, out.Conflicts)
	}
	w.Write("made.txt", "new, and edited\n")
	out = w.revert(RevertRequest{Target: "1"})
	if out.Applied || len(out.Conflicts) != 1 || out.Conflicts[0].Path != "made.txt" {
		t.Fatalf("edited created file must conflict: %+v", out.Conflicts)
	}
	os.Remove(filepath.Join(w.Root, "made.txt"))
	out = w.revert(RevertRequest{Target: "1"})
	if !out.Applied {
		t.Fatalf("revert: %q", out.FailureReason)
	}
	if w.Read("gone.txt") != "keep me\n" || w.Read("bin.dat") != "\x00\x01" {
		t.Fatal("deleted or binary file not taken back")
	}
	if fi, _ := os.Stat(filepath.Join(w.Root, "run.sh")); fi.Mode()&0o111 != 0 {
		t.Fatal("mode change not taken back")
	}
}

// TestRevertSession takes back every turn of one session and leaves the
// other session's turn between them.
func TestRevertSession(t *testing.T) {
	ctx := context.Background()
	w := newWS(t)
	w.Write("f.txt", "a\nb\nc\nd\ne\n")
	play := func(sess, text string) {
		w.s.TurnStart(ctx, TurnRequest{Session: sess, Prompt: sess})
		w.Write("f.txt", text)
		w.s.TurnEnd(ctx, TurnRequest{Session: sess})
	}
	play("A", "A\nb\nc\nd\ne\n")
	play("B", "A\nb\nC\nd\ne\n")
	play("A", "A!\nb\nC\nd\nE\n") // A rewrites its own line: no conflict with itself
	out := w.revert(RevertRequest{Session: "A"})
	if !out.Applied || w.Read("f.txt") != "a\nb\nC\nd\ne\n" {
		t.Fatalf("session revert: %+v, f.txt = %q", out.FailureReason, w.Read("f.txt"))
	}
	if out.Entry.Session != "A" || len(out.Turns) != 2 {
		t.Fatalf("entry %+v, turns %d", out.Entry, len(out.Turns))
	}
}

// TestRevertBadRequests: not a turn, a path the turn did not change.
func TestRevertBadRequests(t *testing.T) {
	w := threeTurns(t)
	ctx := context.Background()
	w.s.Checkpoint(ctx, CheckpointRequest{Caller: Caller{Actor: "t"}, Label: "cp"})
	for _, req := range []RevertRequest{
		{Target: "@cp"},
		{Target: "9"},
		{Target: "2", Paths: []string{"other.txt"}},
		{Session: "nobody"},
	} {
		if _, err := w.s.Revert(ctx, req, nil, ApplyOnDisk(w.Root)); err == nil {
			t.Errorf("%+v: no error", req)
		}
	}
}

// TestRevertSessionParallel: sessions A and B work at the same time, their
// hooks reporting what each wrote. Reverting session A takes back exactly
// A's file and leaves B's (written while A's turn was open) and the
// person's; blame gives each file to the session that wrote it.
func TestRevertSessionParallel(t *testing.T) {
	ctx := context.Background()
	w := newWS(t)
	w.Write("a.txt", "a\n")
	w.Write("b.txt", "b\n")
	w.Write("mine.txt", "mine\n")
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.s.TurnStart(ctx, TurnRequest{Session: "A", Prompt: "a"}))
	must(w.s.TurnStart(ctx, TurnRequest{Session: "B", Prompt: "b"}))
	w.Write("a.txt", "a by A\n")
	must(w.s.RecordTool(ctx, ToolCall{Session: "A", Tool: "Write", Paths: []string{"a.txt"}}))
	w.Write("b.txt", "b by B\n")
	must(w.s.RecordTool(ctx, ToolCall{Session: "B", Tool: "Edit", Paths: []string{"b.txt"}}))
	w.Write("mine.txt", "mine, edited by the person\n")
	if _, _, err := w.s.TurnEnd(ctx, TurnRequest{Session: "A"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.s.TurnEnd(ctx, TurnRequest{Session: "B"}); err != nil {
		t.Fatal(err)
	}
	if got := w.blame("b.txt"); got != "0:2" {
		t.Fatalf("blame of B's file: %q", got)
	}
	if got := w.blame("mine.txt"); got != "" {
		t.Fatalf("blame of the person's file: %q", got)
	}
	out := w.revert(RevertRequest{Session: "A"})
	if !out.Applied || len(out.Diff.Ops) != 1 || out.Diff.Ops[0].Path != "a.txt" {
		t.Fatalf("session revert: %q %+v", out.FailureReason, out.Diff.Ops)
	}
	if w.Read("a.txt") != "a\n" || w.Read("b.txt") != "b by B\n" || w.Read("mine.txt") != "mine, edited by the person\n" {
		t.Fatalf("after reverting A: a=%q b=%q mine=%q", w.Read("a.txt"), w.Read("b.txt"), w.Read("mine.txt"))
	}
}

// TestRevertIdempotentAndRecovered: a revert retried with the same
// idempotency key (its answer was lost) is not run again; a revert
// interrupted half-way is finished by the next command, and undo still
// takes it back — the same pipeline as a rewind.
func TestRevertIdempotentAndRecovered(t *testing.T) {
	w := threeTurns(t)
	first := w.revert(RevertRequest{Caller: Caller{Key: "k1"}, Target: "2"})
	if !first.Applied {
		t.Fatalf("revert: %q", first.FailureReason)
	}
	w.Write("f.txt", "A1\nb\nC2\nd\nE3\nf\ng\n") // as if someone put turn 2's line back
	again := w.revert(RevertRequest{Caller: Caller{Key: "k1"}, Target: "2"})
	if again.Entry == nil || again.Entry.ID != first.Entry.ID || !again.Recorded {
		t.Fatalf("the retried call ran again: %+v", again.Outcome)
	}
	if got := w.Read("f.txt"); got != "A1\nb\nC2\nd\nE3\nf\ng\n" {
		t.Fatalf("the retried call changed f.txt: %q", got)
	}

	// Interrupted: the first file written, then the process "dies".
	w2 := threeTurns(t)
	ctx, cancel := context.WithCancel(context.Background())
	half := func(c context.Context, label string, ops []snapshot.FileOp, tag string) error {
		if err := ApplyOnDisk(w2.Root)(c, label, ops[:1], tag); err != nil {
			return err
		}
		cancel()
		return c.Err()
	}
	if _, err := w2.s.Revert(ctx, RevertRequest{Target: "2"}, nil, half); err == nil {
		t.Fatal("an interrupted revert reported no error")
	}
	if n, err := w2.s.Recover(context.Background()); err != nil || n != 1 {
		t.Fatalf("recover: %d %v", n, err)
	}
	if got := w2.Read("f.txt"); got != "A1\nb\nc\nd\nE3\nf\ng\n" || w2.Exists("new.txt") {
		t.Fatalf("after recovery f.txt = %q, new.txt there: %v", got, w2.Exists("new.txt"))
	}
	if _, err := w2.s.Undo(context.Background(), UndoRequest{Caller: Caller{Actor: "t"}}, nil, ApplyOnDisk(w2.Root)); err != nil {
		t.Fatal(err)
	}
	if got := w2.Read("f.txt"); got != "A1\nb\nC2\nd\nE3\nf\ng\n" || !w2.Exists("new.txt") {
		t.Fatalf("undo of the recovered revert: f.txt = %q", got)
	}
}

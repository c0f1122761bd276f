package filehistory_test

import (
	"testing"

	"github.com/rewind-lsp/rewind-lsp/filehistory"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// TestRevertHunkApplies: "Revert turn N here" is offered on a hunk of the
// turn whose revert goes through and changes the file — not on a line the
// turn did not change, not on a hunk someone rewrote since, not for a turn
// still open, and, for a step, on that step's own hunk.
func TestRevertHunkApplies(t *testing.T) {
	r := newRoot(t)
	r.Write("f.txt", "a\nb\nc\nd\ne\n")
	two := r.turn("two places", func() { r.Write("f.txt", "A\nb\nc\nd\nE\n") })
	applies := func(sp filehistory.Span, current string, line int) bool {
		t.Helper()
		ok, err := filehistory.RevertHunkApplies(r.objs, r.history(), "f.txt", []byte(current), true, sp, line, line)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	sp := filehistory.TurnSpan(two, nil)
	now := r.Read("f.txt")
	if !applies(sp, now, 0) || !applies(sp, now, 4) {
		t.Fatal("not offered on the turn's own hunks")
	}
	if applies(sp, now, 2) {
		t.Fatal("offered on a line the turn did not change")
	}
	if applies(sp, "A\nb\nc\nd\nE!\n", 4) {
		t.Fatal("offered on a hunk the person rewrote since")
	}
	if !applies(sp, "A\nb\nc\nd\nE!\n", 0) {
		t.Fatal("not offered on the turn's other hunk, which nobody changed")
	}

	open := r.start("sess-a", "still open")
	r.Write("f.txt", "A\nb\nC\nd\nE\n")
	now2 := journal.SnapOf(r.snap().ID)
	if applies(filehistory.TurnSpan(r.turnOf(open), &now2), r.Read("f.txt"), 2) {
		t.Fatal("offered for a turn still open")
	}
	s1 := r.step(open, "Edit", func() { r.Write("f.txt", "A\nB\nC\nd\nE\n") })
	step := filehistory.StepSpan(open.Turn, open.Prompt, s1)
	if !applies(step, r.Read("f.txt"), 1) {
		t.Fatal("not offered on the step's own line")
	}
	if applies(step, r.Read("f.txt"), 2) {
		t.Fatal("offered for a step on a line written before it")
	}
}

// TestSpans: a turn's span runs from its start to its end (or the state
// now while it is open), a step's from the state before its call to the
// one its post recorded; each is named by its entry.
func TestSpans(t *testing.T) {
	r := newRoot(t)
	r.Write("f.txt", "a\n")
	start := r.start("sess-a", "one")
	s1 := r.step(start, "Write", func() { r.Write("f.txt", "b\n") })
	now := r.snap()
	open := filehistory.TurnSpan(r.turnOf(start), &now)
	if open.End != nil || open.After != now || open.Before != start.Snapshot || open.ID != start.ID || open.Wrote("f.txt") {
		t.Fatalf("an open turn's span: %+v", open)
	}
	end := r.end(start)
	turn := filehistory.TurnSpan(r.turnOf(start), nil)
	if turn.End.ID != end.ID || turn.After != end.Snapshot || turn.Turn != 1 || turn.Session != "sess-a" || turn.Prompt != "one" || !turn.Wrote("f.txt") {
		t.Fatalf("an ended turn's span: %+v", turn)
	}
	step := filehistory.StepSpan(1, "one", s1)
	if step.Step != 1 || step.ID != s1.ID || step.Before != s1.StepStart || step.After != s1.Snapshot || step.End != s1 {
		t.Fatalf("a step's span: %+v", step)
	}
	if r.load(step.Before, "f.txt").Same(r.load(step.After, "f.txt")) {
		t.Fatal("a step's span does not hold its change")
	}
}

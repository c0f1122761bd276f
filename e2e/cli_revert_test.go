package e2e_test

import (
	"strings"
	"testing"
)

// TestRevertAndBlameCommandLine: reverting one turn on the command line.
// Blame names turns 1, 2 and 3; a revert of turn 2 over the person's edit
// is refused (exit 3) naming user; without it turn 2 goes, turns 1 and 3
// stay, the file turn 2 created goes; undo brings it back.
func TestRevertAndBlameCommandLine(t *testing.T) {
	w := newWS(t)
	w.Write("f.txt", "one\ntwo\nthree\nfour\nfive\n")
	w.turn("first", func() { w.Write("f.txt", "ONE\ntwo\nthree\nfour\nfive\n") })
	w.turn("second", func() { w.Write("f.txt", "ONE\ntwo\nTHREE\nfour\nfive\n"); w.Write("made.txt", "by turn 2\n") })
	w.turn("third", func() { w.Write("f.txt", "ONE\ntwo\nTHREE\nfour\nFIVE\n") })

	var blame struct {
		Ranges []struct {
			StartLine, EndLine, Turn int
			Prompt, Entry, Time      string
		}
	}
	w.okJSON(&blame, "blame", "f.txt")
	if len(blame.Ranges) != 3 || blame.Ranges[1].StartLine != 2 || blame.Ranges[1].EndLine != 3 ||
		blame.Ranges[1].Turn != 2 || blame.Ranges[1].Prompt != "second" || blame.Ranges[1].Entry == "" || blame.Ranges[1].Time == "" {
		t.Fatalf("blame: %+v", blame)
	}
	if out := w.ok("blame", "f.txt").stdout; !strings.Contains(out, "f.txt:3") || !strings.Contains(out, "Turn 2: second") {
		t.Fatalf("human blame:\n%s", out)
	}

	w.Write("f.txt", "ONE\ntwo\nTHREE, edited by me\nfour\nFIVE\n")
	r := w.run("revert", "2")
	if r.code != 3 || !strings.Contains(r.stderr, "f.txt") || !strings.Contains(r.stderr, "user") {
		t.Fatalf("revert over the person's edit: exit %d\n%s", r.code, r.stderr)
	}
	if w.Read("made.txt") != "by turn 2\n" {
		t.Fatal("a refused revert changed files")
	}
	w.Write("f.txt", "ONE\ntwo\nTHREE\nfour\nFIVE\n")

	var dry struct {
		Applied bool
		Plan    struct {
			Mode  string
			Files []struct{ Path, Change string }
		}
	}
	w.okJSON(&dry, "revert", "2", "--dry-run")
	if dry.Applied || dry.Plan.Mode != "revert" || len(dry.Plan.Files) != 2 || w.Read("made.txt") == "<missing>" {
		t.Fatalf("dry run: %+v", dry)
	}
	out := w.ok("revert", "2").stdout
	if !strings.Contains(out, "undo it with") {
		t.Errorf("revert output:\n%s", out)
	}
	if w.Read("f.txt") != "ONE\ntwo\nthree\nfour\nFIVE\n" || w.Read("made.txt") != "<missing>" {
		t.Fatalf("after revert: f.txt=%q made.txt=%q", w.Read("f.txt"), w.Read("made.txt"))
	}
	if log := w.ok("log").stdout; !strings.Contains(log, "Revert turn 2 (second), later changes kept\n") {
		t.Errorf("log does not list the revert:\n%s", log)
	}
	w.ok("undo")
	if log := w.ok("log").stdout; !strings.Contains(log, "Revert turn 2 (second), later changes kept — undone\n") {
		t.Errorf("log does not say the revert was undone:\n%s", log)
	}
	if w.Read("f.txt") != "ONE\ntwo\nTHREE\nfour\nFIVE\n" || w.Read("made.txt") != "by turn 2\n" {
		t.Fatalf("after undo: f.txt=%q made.txt=%q", w.Read("f.txt"), w.Read("made.txt"))
	}

	if r := w.run("revert"); r.code != 2 {
		t.Fatalf("revert without a target: exit %d", r.code)
	}
	if r := w.run("revert", "2", "--paths", "nope.txt"); r.code != 2 || !strings.Contains(r.stderr, "nope.txt") {
		t.Fatalf("revert of a file turn 2 did not change: exit %d %s", r.code, r.stderr)
	}
	if r := w.run("revert", "--session", "nobody"); r.code != 2 || !strings.Contains(r.stderr, "nobody") {
		t.Fatalf("revert of an unknown session: exit %d %s", r.code, r.stderr)
	}
}

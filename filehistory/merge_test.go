package filehistory_test

import (
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/filehistory"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// text is a regular file holding s.
func text(s string) filehistory.Version { return file(snapshot.KindFile, s) }

func file(kind snapshot.Kind, s string) filehistory.Version {
	return filehistory.Version{Exists: true, Kind: kind, ID: snapshot.Sum([]byte(s)), Data: []byte(s)}
}

var missing = filehistory.Version{}

// TestRevertFile: one turn's change of one file is taken back keeping what
// happened since (base: the file at the turn's end, theirs: at its start,
// ours: now); what cannot be, conflicts and leaves the file as it is.
func TestRevertFile(t *testing.T) {
	const (
		start = "a\nb\nc\nd\ne\n"
		end   = "a\nB\nc\nd\nE\n" // the turn wrote lines 1 and 4
	)
	bin := file(snapshot.KindFile, "\x00binary")
	cases := []struct {
		name               string
		base, ours, theirs filehistory.Version
		lines              *[2]int
		want               filehistory.Version
		ok                 bool
	}{
		{"untouched since", text(end), text(end), text(start), nil, text(start), true},
		{"already as before", text(end), text(start), text(start), nil, text(start), true},
		{"a later edit elsewhere stays", text(end), text("a\nB\nc\nD!\nE\n"), text(start), nil, text("a\nb\nc\nD!\ne\n"), true},
		{"a later edit of its line conflicts", text(end), text("a\nB!\nc\nd\nE\n"), text(start), nil, text("a\nB!\nc\nd\nE\n"), false},
		{"a range takes back its hunk only", text(end), text(end), text(start), &[2]int{1, 1}, text("a\nb\nc\nd\nE\n"), true},
		{"a range over a conflict elsewhere", text(end), text("a\nB\nc\nd\nE!\n"), text(start), &[2]int{1, 1}, text("a\nb\nc\nd\nE!\n"), true},
		{"a created file is deleted", text(end), text(end), missing, nil, missing, true},
		{"a created file changed since", text(end), text(end + "more\n"), missing, nil, text(end + "more\n"), false},
		{"a deleted file comes back", missing, missing, text(start), nil, text(start), true},
		{"a deleted file made again since", missing, text("new\n"), text(start), nil, text("new\n"), false},
		{"a file deleted since", text(end), missing, text(start), nil, missing, false},
		{"a range leaves creates alone", text(end), text(end), missing, &[2]int{0, 0}, text(end), true},
		{"a binary file changed since", bin, file(snapshot.KindFile, "\x00other"), text(start), nil, file(snapshot.KindFile, "\x00other"), false},
		{"a mode the turn set goes back, edits kept", file(snapshot.KindExec, end), file(snapshot.KindExec, "a\nB\nc\nD!\nE\n"), text(start), nil, text("a\nb\nc\nD!\ne\n"), true},
		{"a mode changed since conflicts", file(snapshot.KindExec, end), file(snapshot.KindSymlink, "x"), text(start), nil, file(snapshot.KindSymlink, "x"), false},
	}
	for _, c := range cases {
		got, regions, ok := filehistory.RevertFile(c.base, c.ours, c.theirs, c.lines)
		if ok != c.ok || !got.Same(c.want) {
			t.Errorf("%s: got %q (kind %v, exists %v) ok=%v; want %q ok=%v", c.name, got.Data, got.Kind, got.Exists, ok, c.want.Data, c.ok)
		}
		if c.name == "a later edit of its line conflicts" && (len(regions) != 1 || regions[0].A0 != 1 || regions[0].A1 != 2) {
			t.Errorf("%s: conflicting regions %+v, want line 1 of the turn's end", c.name, regions)
		}
	}
}

// TestOverlappers: a revert that conflicts names who changed the turn's
// lines since: the later turn that rewrote them, the person, or both in
// the order they did; a change elsewhere in the file is nobody's concern.
func TestOverlappers(t *testing.T) {
	r := newRoot(t)
	r.Write("f.txt", "a\nb\nc\nd\ne\n")
	one := r.turn("one", func() { r.Write("f.txt", "A1\nb\nc\nd\ne\n") })
	two := r.turn("two", func() { r.Write("f.txt", "A1\nb\nC2\nd\ne\n") })
	r.turn("three", func() { r.Write("f.txt", "A1\nb\nC3\nd\nE3\n") })
	r.Write("f.txt", "A1\nb\nC3!\nd\nE3\nthe person's\n")

	sp := filehistory.TurnSpan(two, nil)
	base, theirs, now := r.load(sp.After, "f.txt"), r.load(sp.Before, "f.txt"), r.now("f.txt")
	_, regions, ok := filehistory.RevertFile(base, now, theirs, nil)
	if ok {
		t.Fatal("reverting turn 2 under turn 3's rewrite of its line went through")
	}
	names, err := filehistory.Overlappers(r.objs, r.history(), "f.txt", sp, regions, now)
	if err != nil || strings.Join(names, ",") != "turn 3,user" {
		t.Fatalf("overlappers of turn 2: %v %v; want turn 3, user", names, err)
	}
	// Without regions (a file that did not merge line by line) anyone who
	// changed the file since overlapped.
	names, err = filehistory.Overlappers(r.objs, r.history(), "f.txt", filehistory.TurnSpan(one, nil), nil, now)
	if err != nil || strings.Join(names, ",") != "turn 2,turn 3,user" {
		t.Fatalf("overlappers of turn 1, anywhere in the file: %v %v", names, err)
	}
}

// TestOverlappersOfAStep: a step's change rewritten by a later step of its
// own turn is overlapped by that turn.
func TestOverlappersOfAStep(t *testing.T) {
	r := newRoot(t)
	r.Write("f.txt", "a\nb\n")
	start := r.start("sess-a", "one")
	s1 := r.step(start, "Edit", func() { r.Write("f.txt", "A\nb\n") })
	r.step(start, "Edit", func() { r.Write("f.txt", "A!\nb\n") })
	r.end(start)
	sp := filehistory.StepSpan(1, "one", s1)
	now := r.now("f.txt")
	_, regions, ok := filehistory.RevertFile(r.load(sp.After, "f.txt"), now, r.load(sp.Before, "f.txt"), nil)
	if ok {
		t.Fatal("reverting step 1 under step 2's rewrite went through")
	}
	names, err := filehistory.Overlappers(r.objs, r.history(), "f.txt", sp, regions, now)
	if err != nil || strings.Join(names, ",") != "turn 1" {
		t.Fatalf("overlappers of step 1: %v %v", names, err)
	}
}

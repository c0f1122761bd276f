package filehistory_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/filehistory"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// TestBlameTurnsAndPerson: the lines each turn wrote are its own until
// someone changes them; lines the person wrote and lines from before the
// first turn are nobody's.
func TestBlameTurnsAndPerson(t *testing.T) {
	r := newRoot(t)
	r.Write("f.txt", "a\nb\nc\nd\ne\n")
	r.turn("one", func() { r.Write("f.txt", "A\nb\nc\nd\ne\n") })
	r.turn("two", func() { r.Write("f.txt", "A\nb\nC\nd\ne\n") })
	if got := r.blame("f.txt"); got != "0:1 2:2" {
		t.Fatalf("after two turns: %q", got)
	}
	r.Write("f.txt", "A\nb\nC!\nd\ne\n") // the person edits turn 2's line
	if got := r.blame("f.txt"); got != "0:1" {
		t.Fatalf("after the person's edit: %q", got)
	}
	r.turn("three", func() { r.Write("f.txt", "A\nb\nC!\nd\nE\nnew\n") })
	if got := r.blame("f.txt"); got != "0:1 4:3 5:3" {
		t.Fatalf("after turn three: %q", got)
	}
	// An open buffer's text is what blame describes.
	var b filehistory.Blamer
	rs, err := b.Blame(r.objs, r.history(), "f.txt", []byte("top\nA\nb\nC!\nd\nE\nnew\n"), true)
	if err != nil || renderBlame(rs) != "1:1 5:3 6:3" {
		t.Fatalf("with a buffer holding one more line on top: %q %v", renderBlame(rs), err)
	}
	if rs[0].Turn.Start.Prompt != "one" || rs[0].Turn.Start.Session != "sess-a" || rs[0].Turn.End == nil {
		t.Fatalf("range turn: %+v", rs[0].Turn.Start)
	}
}

// TestBlameLineEnds: ranges count protocol lines, where a lone "\r" ends a
// line too; binary files and missing files have no owned lines.
func TestBlameLineEnds(t *testing.T) {
	r := newRoot(t)
	r.Write("f.txt", "x\r\n")
	r.turn("one", func() { r.Write("f.txt", "x\r\nold\rmac\nnew\n") })
	if got := r.blame("f.txt"); got != "1:1 2:1 3:1" {
		t.Fatalf("lone CR: %q", got)
	}
	r.turn("bin", func() { r.Write("b.bin", "a\x00b\n") })
	if got := r.blame("b.bin"); got != "" {
		t.Fatalf("binary: %q", got)
	}
	var b filehistory.Blamer
	if rs, err := b.Blame(r.objs, r.history(), "missing.txt", nil, false); err != nil || len(rs) != 0 {
		t.Fatalf("missing: %v %v", rs, err)
	}
}

// TestBlameIncremental: a cached blame is extended by later turns and
// gives the same answer as a fresh one.
func TestBlameIncremental(t *testing.T) {
	r := newRoot(t)
	r.Write("f.txt", "0\n1\n2\n3\n4\n5\n6\n7\n")
	var cache filehistory.Blamer
	for i := 0; i < 8; i++ {
		r.turn(fmt.Sprint("turn ", i), func() {
			lines := strings.Split(strings.TrimSuffix(r.Read("f.txt"), "\n"), "\n")
			lines[i] = fmt.Sprintf("line %d by turn %d", i, i+1)
			r.Write("f.txt", strings.Join(lines, "\n")+"\n")
		})
		cached := r.blame("f.txt", &cache)
		if fresh := r.blame("f.txt"); fresh != cached {
			t.Fatalf("after %d turns: cached %q, fresh %q", i+1, cached, fresh)
		}
		var want []string
		for l := 0; l <= i; l++ {
			want = append(want, fmt.Sprintf("%d:%d", l, l+1))
		}
		if cached != strings.Join(want, " ") {
			t.Fatalf("after %d turns: %q, want %q", i+1, cached, strings.Join(want, " "))
		}
	}
}

// TestBlameSteps: a line is owned by the step of its turn that wrote it
// ("turn 1, step 2: Edit"); a line written between two calls (by the
// person, while the turn was open) is the turn's, with no step.
func TestBlameSteps(t *testing.T) {
	r := newRoot(t)
	r.Write("f.txt", "a\nb\nc\n")
	start := r.start("sess-a", "one")
	s1 := r.step(start, "Write", func() { r.Write("f.txt", "A\nb\nc\n") })
	r.Write("f.txt", "A\nB\nc\n") // between the calls
	s2 := r.step(start, "Edit", func() { r.Write("f.txt", "A\nB\nC\n") })
	r.step(start, "Read", func() {}) // changed nothing: no step
	r.end(start)
	if s1.Step != 1 || s2.Step != 2 {
		t.Fatalf("steps numbered %d, %d", s1.Step, s2.Step)
	}

	var b filehistory.Blamer
	rs, err := b.Blame(r.objs, r.history(), "f.txt", []byte(r.Read("f.txt")), true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rg := range rs {
		step := "-"
		if rg.Step != nil {
			step = fmt.Sprintf("%d %s", rg.Step.Step, rg.Step.Tool)
		}
		got = append(got, fmt.Sprintf("%d-%d turn %d step %s", rg.StartLine, rg.EndLine, rg.Turn.Number, step))
	}
	want := []string{"0-1 turn 1 step 1 Write", "1-2 turn 1 step -", "2-3 turn 1 step 2 Edit"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("blame with steps:\n got %v\nwant %v", got, want)
	}
}

// TestBlameAfterGC: when gc dropped the state a turn ended with, who wrote
// its lines is no longer known, and they are nobody's; the lines of the
// turns after it are still theirs.
func TestBlameAfterGC(t *testing.T) {
	r := newRoot(t)
	r.Write("f.txt", "a\nb\nc\n")
	one := r.turn("one", func() { r.Write("f.txt", "A\nb\nc\n") })
	r.Write("g.txt", "the person's\n") // so turn 2 starts from another state
	r.turn("two", func() { r.Write("f.txt", "A\nb\nC\n") })
	if got := r.blame("f.txt"); got != "0:1 2:2" {
		t.Fatalf("before gc: %q", got)
	}
	r.append(journal.NewGC([]snapshot.ID{one.End.Snapshot.ID}))
	if got := r.blame("f.txt"); got != "2:2" {
		t.Fatalf("after gc dropped turn 1's end: %q", got)
	}
}

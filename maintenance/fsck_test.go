package maintenance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// journalWorkspace opens a session on a fresh root and store.
func journalWorkspace(t *testing.T) (*workspace.Workspace, string) {
	t.Helper()
	root := t.TempDir()
	s, err := workspace.Open(root, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return s, root
}

// turn records one turn that writes f.txt.
func turn(t *testing.T, s *workspace.Workspace, root, prompt string) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: prompt}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(prompt+"\n"), 0o644)
	if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
		t.Fatal(err)
	}
}

func checkpoint(t *testing.T, s *workspace.Workspace, label string) {
	t.Helper()
	if _, err := s.Checkpoint(context.Background(), workspace.CheckpointRequest{Caller: workspace.Caller{Actor: "test"}, Label: label}); err != nil {
		t.Fatal(err)
	}
}

// journalProblems is what fsck says about the journal.
func journalProblems(t *testing.T, s *workspace.Workspace) []Problem {
	t.Helper()
	probs, err := fsck(New(s, Retention{}))
	if err != nil {
		t.Fatal(err)
	}
	var out []Problem
	for _, p := range probs {
		if p.What == "journal" {
			out = append(out, p)
		}
	}
	return out
}

// TestJournalTornLineSetAsideAndReported: a journal cut mid-line (a crash
// or a full disk mid-write) is reported by fsck; the next append sets the
// torn bytes aside beside the journal, rewrites no whole line, and fsck is
// clean again after naming the repair once, while every intact entry stays
// readable.
func TestJournalTornLineSetAsideAndReported(t *testing.T) {
	s, root := journalWorkspace(t)
	turn(t, s, root, "one")
	checkpoint(t, s, "before-the-crash")
	path := s.Journal().Path()
	whole, _ := os.ReadFile(path)
	lines := bytes.Count(whole, []byte{'\n'})
	// A crash in the middle of the next entry's write.
	torn := []byte(`4f2a11c0 {"id":"0190a0b0-0000-7000-8000-00000000beef","kind":"checkpoint","lab`)
	if err := os.WriteFile(path, append(append([]byte{}, whole...), torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	probs := journalProblems(t, s)
	if len(probs) != 1 || !strings.Contains(probs[0].Err, "torn") || !strings.HasSuffix(probs[0].Where, fmt.Sprintf("line %d", lines+1)) {
		t.Fatalf("fsck of a journal cut mid-line: %v; want the torn line %d", probs, lines+1)
	}
	if h, err := s.History(); err != nil || len(h.Turns(0, 0)) != 1 || len(h.BranchEntries(0)) != 3 {
		t.Fatalf("history with a torn tail: %v, %+v", err, h)
	}

	checkpoint(t, s, "after-the-crash")
	after, _ := os.ReadFile(path)
	if !bytes.HasPrefix(after, whole) {
		t.Fatalf("the append rewrote whole lines:\nbefore %q\nafter  %q", whole, after)
	}
	rep, err := New(s, Retention{}).FsckReport()
	if err != nil || len(rep.Problems) != 0 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "repaired") {
		t.Fatalf("fsck after the next append: %+v %v; want no damage and one note of the repair", rep, err)
	}
	if rep, _ := New(s, Retention{}).FsckReport(); len(rep.Problems) != 0 || len(rep.Notes) != 0 {
		t.Fatalf("fsck a second time: %+v; want it silent", rep)
	}
	h, err := s.History()
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, e := range h.BranchEntries(0) {
		labels = append(labels, string(e.Kind)+":"+e.Label)
	}
	if got := strings.Join(labels, " "); got != "turnStart: turnEnd: checkpoint:before-the-crash checkpoint:after-the-crash" {
		t.Fatalf("active branch after the torn line: %s", got)
	}
}

// TestJournalDamagedLineHidesNothing: one damaged line loses that entry
// only. A damaged turn start keeps its turn (through its end: turn:N:end
// resolves, the start gives a clear error) and the entries before it on
// the active branch; a damaged entry in the middle of the branch does not
// cut the branch there.
func TestJournalDamagedLineHidesNothing(t *testing.T) {
	for _, damage := range []string{"turn 2's start", "the checkpoint", "turn 2's start and the checkpoint"} {
		t.Run(damage, func(t *testing.T) {
			s, root := journalWorkspace(t)
			turn(t, s, root, "one")
			checkpoint(t, s, "middle")
			turn(t, s, root, "two")
			turn(t, s, root, "three")
			path := s.Journal().Path()
			data, _ := os.ReadFile(path)
			lines := bytes.SplitAfter(data, []byte{'\n'})
			hit := map[int]bool{}
			for i, l := range lines {
				start2 := bytes.Contains(l, []byte(`"prompt":"two"`))
				cp := bytes.Contains(l, []byte(`"label":"middle"`))
				if (start2 && strings.Contains(damage, "start")) || (cp && strings.Contains(damage, "checkpoint")) {
					lines[i] = bytes.Replace(l, []byte(`"kind"`), []byte(`"kinb"`), 1) // a flipped bit
					hit[i+1] = true
				}
			}
			if err := os.WriteFile(path, bytes.Join(lines, nil), 0o600); err != nil {
				t.Fatal(err)
			}
			// A new process reads the damaged journal (a running one read
			// those lines before they were damaged).
			s, err := workspace.Open(root, s.Dir(), 0)
			if err != nil {
				t.Fatal(err)
			}
			probs := journalProblems(t, s)
			if len(probs) != len(hit) {
				t.Fatalf("fsck: %v; want damaged lines %v", probs, hit)
			}
			h, err := s.History()
			if err != nil {
				t.Fatal(err)
			}
			var nums []string
			for _, tr := range h.Turns(0, 0) {
				if tr.End == nil {
					t.Fatalf("turn %d lost its end", tr.Number)
				}
				nums = append(nums, fmt.Sprint(tr.Number))
			}
			if got := strings.Join(nums, ","); got != "1,2,3" {
				t.Fatalf("turns on the active branch: %s; want 1,2,3", got)
			}
			if h.BranchEntries(0)[0].Kind != journal.KindTurnStart || h.BranchEntries(0)[0].Prompt != "one" {
				t.Fatalf("the branch does not reach the first entry: starts at %+v", h.BranchEntries(0)[0])
			}
			if _, err := h.Resolve("1"); err != nil {
				t.Fatal(err)
			}
			if _, err := h.Resolve("turn:2:end"); err != nil {
				t.Fatal(err)
			}
			_, err = h.Resolve("2")
			if strings.Contains(damage, "start") {
				var ute *journal.UnknownTargetError
				if !errors.As(err, &ute) || !strings.Contains(err.Error(), "damaged") {
					t.Fatalf("the damaged start of turn 2: %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if _, err := h.Resolve("@middle"); strings.Contains(damage, "checkpoint") == (err == nil) {
				t.Fatalf("@middle: %v", err)
			}
			// The next turn continues the numbering.
			turn(t, s, root, "four")
			if h, _ := s.History(); len(h.Turns(0, 0)) != 4 || h.Turns(0, 0)[3].Number != 4 {
				t.Fatalf("after one more turn: %+v", h.Turns(0, 0))
			}
		})
	}
}

// fsck is the damage m's fsck finds.
func fsck(m *Maintainer) ([]Problem, error) {
	rep, err := m.FsckReport()
	if err != nil {
		return nil, err
	}
	return rep.Problems, nil
}

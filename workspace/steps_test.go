package workspace_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"github.com/rewind-lsp/rewind-lsp/workspace/live"
)

// fileTool runs edit as a file tool call of session naming paths: its
// "pre" (the files before it writes), then its "post".
func (f *sessFixture) fileTool(session, tool, id string, paths []string, edit func()) *journal.Entry {
	f.t.Helper()
	if _, err := f.s.RecordTool(f.ctx, workspace.ToolCall{Session: session, Tool: tool, ToolUse: id, Phase: journal.PhasePre, Paths: paths}); err != nil {
		f.t.Fatal(err)
	}
	edit()
	e, err := f.s.RecordTool(f.ctx, workspace.ToolCall{Session: session, Tool: tool, ToolUse: id, Phase: journal.PhasePost, Paths: paths, Detail: strings.Join(paths, " ")})
	if err != nil {
		f.t.Fatal(err)
	}
	return e
}

// TestStepsOfATurn: each tool call of a turn that changed files is a step,
// numbered in order, with the state just before it; a call that changed
// nothing is none. "1.2" restores the state after step 1 exactly, undo
// brings the turn's end back, a step that does not exist names the ones
// that do, a revert of step 2 alone keeps steps 1 and 3, and a
// conversation cannot go back to a step.
func TestStepsOfATurn(t *testing.T) {
	for _, tracked := range []bool{false, true} {
		t.Run(map[bool]string{false: "command line", true: "running server"}[tracked], func(t *testing.T) {
			f := newSessFixture(t)
			f.write("a.txt", "a0\n")
			if tracked {
				tr := live.Track(f.s, live.TrackOptions{Quiet: 200 * time.Millisecond})
				t.Cleanup(tr.Close)
				<-tr.Ready()
			}
			start := f.start("A", "three tools")
			one := f.fileTool("A", "Write", "t1", []string{"a.txt"}, func() { f.write("a.txt", "a1\n") })
			f.shell("A", "t2", func() { f.write("b.txt", "b2\n") })
			f.shell("A", "t3", func() {}) // changes nothing: no step
			f.fileTool("A", "Edit", "t4", []string{"a.txt"}, func() { f.write("a.txt", "a1\na3\n") })
			f.end("A")
			h := f.history()
			steps := h.Steps(start)
			if len(steps) != 3 || one.Step != 1 || steps[0].Tool != "Write" || steps[1].Tool != "Bash" || steps[2].Tool != "Edit" {
				t.Fatalf("steps %+v", steps)
			}
			for i, st := range steps {
				if st.Step != i+1 || len(st.Changed) != 1 {
					t.Fatalf("step %d: %+v", i+1, st)
				}
			}
			if steps[1].Changed[0].Path != "b.txt" || steps[1].Changed[0].Change != fileop.Create {
				t.Fatalf("step 2 changed %+v", steps[1].Changed)
			}
			state := func() string { return f.read("a.txt") + "|" + f.read("b.txt") }
			end := state()
			out, err := f.s.Rewind(f.ctx, workspace.RewindRequest{Caller: workspace.Caller{Actor: "t"}, Target: "1.2"}, nil, workspace.ApplyOnDisk(f.root))
			if err != nil || !out.Applied || out.Target.Step != 2 {
				t.Fatalf("rewind 1.2: %v %+v", err, out)
			}
			if got := state(); got != "a1\n|<missing>" {
				t.Fatalf("after rewind 1.2: %q", got)
			}
			if _, err := f.s.Undo(f.ctx, workspace.UndoRequest{Caller: workspace.Caller{Actor: "t"}}, nil, workspace.ApplyOnDisk(f.root)); err != nil {
				t.Fatal(err)
			}
			if got := state(); got != end {
				t.Fatalf("after undo: %q, want %q", got, end)
			}
			if _, err := f.s.Rewind(f.ctx, workspace.RewindRequest{Caller: workspace.Caller{Actor: "t"}, Target: "turn:1:step:7"}, nil, workspace.ApplyOnDisk(f.root)); err == nil ||
				!strings.Contains(err.Error(), "its steps: 1–3") {
				t.Fatalf("a step that does not exist: %v", err)
			}
			if _, err := f.s.Rewind(f.ctx, workspace.RewindRequest{Caller: workspace.Caller{Actor: "t"}, Target: "1.2", Mode: journal.ModeBoth}, nil, workspace.ApplyOnDisk(f.root)); err == nil ||
				!strings.Contains(err.Error(), "conversation") {
				t.Fatalf("a conversation rewind to a step: %v", err)
			}
			r, err := f.s.Revert(f.ctx, workspace.RevertRequest{Caller: workspace.Caller{Actor: "t"}, Target: "1.2"}, nil, workspace.ApplyOnDisk(f.root))
			if err != nil || !r.Applied {
				t.Fatalf("revert 1.2: %v %+v", err, r)
			}
			if got := state(); got != "a1\na3\n|<missing>" {
				t.Fatalf("after reverting step 2 alone: %q", got)
			}
		})
	}
}

// TestBlameNamesTheStep: blame gives each line the step of its turn that
// wrote it, and a line written between two tool calls (the person's edit
// while the turn was open) its turn without a step.
func TestBlameNamesTheStep(t *testing.T) {
	f := newSessFixture(t)
	f.write("a.txt", "base\n")
	f.start("A", "two edits")
	f.fileTool("A", "Write", "t1", []string{"a.txt"}, func() { f.write("a.txt", "base\none\n") })
	f.write("a.txt", "base\none\nbetween\n")
	f.fileTool("A", "Edit", "t2", []string{"a.txt"}, func() { f.write("a.txt", "base\none\nbetween\ntwo\n") })
	f.end("A")
	rs, err := f.s.Blame("a.txt", []byte("base\none\nbetween\ntwo\nmine\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		s := fmt.Sprintf("%d-%d turn %d", r.StartLine, r.EndLine, r.Turn.Number)
		if r.Step != nil {
			s += fmt.Sprintf(" step %d %s", r.Step.Step, r.Step.Tool)
		}
		got = append(got, s)
	}
	want := []string{"1-2 turn 1 step 1 Write", "2-3 turn 1", "3-4 turn 1 step 2 Edit"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("blame:\n got %q\nwant %q", got, want)
	}
}

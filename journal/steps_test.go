package journal

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/store"
)

// TestStepsOfInterleavedTurns: two sessions' turns open at once, their
// calls interleaved, some changing nothing, appended a few at a time so
// the view writes segments and merges them between reads. Each turn's
// steps, step k read alone, its latest step and the targets "n.k" agree
// with the entries written, in this process and in a new one.
func TestStepsOfInterleavedTurns(t *testing.T) {
	lowThresholds(t)
	dir := t.TempDir()
	j := openT(t, dir)
	snap := func(s string) Snap { return SnapOf(store.Sum([]byte(s))) }
	a := NewTurnStart("", 1, "A", "hook", snap("a0"))
	appendRead(t, j, a)
	b := NewTurnStart(a.ID, 2, "B", "hook", snap("b0"))
	appendRead(t, j, b)
	want := map[EntryID][]*Entry{}
	for i := 0; i < 60; i++ {
		start := a
		if i%3 == 2 {
			start = b
		}
		e := NewTool(start.Session, start.ID, ToolCall{Tool: "Edit", ToolUse: fmt.Sprint(i), Phase: PhasePost})
		e.Snapshot = snap(fmt.Sprint("s", i))
		if i%4 != 3 { // every fourth call changes nothing: no step
			e.Step, e.StepStart = len(want[start.ID])+1, snap(fmt.Sprint("before", i))
			want[start.ID] = append(want[start.ID], e)
		}
		appendRead(t, j, e)
	}
	check := func(h *History, who string) {
		for n, start := range []*Entry{a, b} {
			got := h.Steps(start)
			if len(got) != len(want[start.ID]) {
				t.Fatalf("%s: turn %d has %d steps, want %d", who, n+1, len(got), len(want[start.ID]))
			}
			for k, w := range want[start.ID] {
				if got[k].ID != w.ID {
					t.Fatalf("%s: turn %d step %d is %s, want %s", who, n+1, k+1, got[k].ID, w.ID)
				}
				if s := h.StepOf(start, k+1); s == nil || s.ID != w.ID {
					t.Fatalf("%s: StepOf(turn %d, %d) = %v, want %s", who, n+1, k+1, s, w.ID)
				}
				tg, err := h.Resolve(fmt.Sprintf("%d.%d", n+1, k+1))
				if err != nil || tg.Entry.ID != w.ID || tg.Snapshot != w.StepStart || tg.Step != k+1 {
					t.Fatalf("%s: target %d.%d = %+v, %v", who, n+1, k+1, tg, err)
				}
			}
			if got := h.LastStep(start); got != len(want[start.ID]) {
				t.Fatalf("%s: turn %d's last step %d, want %d", who, n+1, got, len(want[start.ID]))
			}
			if h.StepOf(start, len(want[start.ID])+1) != nil {
				t.Fatalf("%s: turn %d has a step after its last", who, n+1)
			}
			if _, err := h.Resolve(fmt.Sprintf("%d.%d", n+1, 99)); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("its steps: 1–%d", len(want[start.ID]))) {
				t.Fatalf("%s: target %d.99: %v", who, n+1, err)
			}
		}
	}
	h, err := j.History()
	if err != nil {
		t.Fatal(err)
	}
	check(h, "this process")
	h, err = openT(t, dir).History()
	if err != nil {
		t.Fatal(err)
	}
	check(h, "a new process")
}

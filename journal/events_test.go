package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/store"
)

// eventsOf names events as "kind" (an operation "kind+done"), in order.
func eventsOf(evs []Event) string {
	var s []string
	for _, ev := range evs {
		k := string(ev.Entry.Kind)
		if ev.Done != nil {
			k += "+done"
		}
		s = append(s, k)
	}
	return strings.Join(s, " ")
}

func eventsAfter(t *testing.T, h *History, after string) []Event {
	t.Helper()
	var out []Event
	if err := h.Events(after, func(ev Event) bool { out = append(out, ev); return true }); err != nil {
		t.Fatalf("Events(%q): %v", after, err)
	}
	return out
}

// TestEventsAfterAnEntry: the events are the turn starts and ends, steps,
// checkpoints, summaries and operations, in journal order — a pending
// operation at its done entry, sessions, notices, gc, tool calls without a
// step left out; after any event's cursor come exactly the events after
// it, in this process, in a new one, and after the view is deleted; the
// latest n are the last n of them.
func TestEventsAfterAnEntry(t *testing.T) {
	lowThresholds(t)
	dir := t.TempDir()
	j := openT(t, dir)
	snap := func(s string) Snap { return SnapOf(store.Sum([]byte(s))) }
	sess := NewSession("", "S", "startup")
	appendRead(t, j, sess)
	s1 := NewTurnStart(sess.ID, 1, "S", SourceHook, snap("a"))
	appendRead(t, j, s1)
	pre := NewTool("S", s1.ID, ToolCall{Tool: "Bash", Phase: PhasePre})
	post := NewTool("S", s1.ID, ToolCall{Tool: "Bash", Phase: PhasePost, Step: 1})
	post.Snapshot = snap("b")
	nothing := NewTool("S", s1.ID, ToolCall{Tool: "Read", Phase: PhasePost})
	appendRead(t, j, pre, post, nothing)
	e1 := NewTurnEnd(s1.ID, s1, snap("b"), nil)
	appendRead(t, j, e1)
	cp := NewCheckpoint(e1.ID, snap("b"), "base", "", 1)
	appendRead(t, j, cp)
	rw := NewRewind(cp.ID, "1", s1.ID, ModeCode)
	rw.Pending, rw.Snapshot = true, snap("a")
	appendRead(t, j, rw)
	appendRead(t, j, NewNotice("S", rw.ID)) // written between the intent and its done entry
	appendRead(t, j, NewDone(rw, true, snap("a"), ""))
	sum := NewSummary(rw.ID, "1", s1.ID, "tried twice")
	appendRead(t, j, sum)
	appendRead(t, j, NewGC(nil))
	un := NewUndo(sum.ID, rw)
	un.Pending, un.Snapshot = true, snap("b")
	appendRead(t, j, un) // not done yet: not an event yet
	const want = "turnStart tool turnEnd checkpoint rewind+done summary"

	h, err := j.History()
	if err != nil {
		t.Fatal(err)
	}
	all := eventsAfter(t, h, "")
	if got := eventsOf(all); got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	if all[4].Entry.ID != rw.ID {
		t.Fatalf("the rewind's event is entry %s, want %s", all[4].Entry.ID, rw.ID)
	}
	if got := eventsOf(h.LatestEvents(2)); got != "rewind+done summary" {
		t.Fatalf("latest 2: %q", got)
	}
	if got := eventsOf(h.LatestEvents(0)); got != want {
		t.Fatalf("latest, all: %q", got)
	}
	// The undo completes: it is told now, after the summary's cursor.
	appendRead(t, j, NewDone(un, false, Snap{}, "conflict"))

	check := func(who string, h *History) {
		t.Helper()
		all := eventsAfter(t, h, "")
		if got := eventsOf(all); got != want+" undo+done" {
			t.Fatalf("%s: events %q", who, got)
		}
		for i, ev := range all {
			if got, want := eventsOf(eventsAfter(t, h, string(ev.Cursor()))), eventsOf(all[i+1:]); got != want {
				t.Errorf("%s: after event %d's cursor: %q, want %q", who, i, got, want)
			}
			// A prefix names it too (as the command line prints ids).
			if got, want := eventsOf(eventsAfter(t, h, string(ev.Cursor())[:18])), eventsOf(all[i+1:]); got != want {
				t.Errorf("%s: after event %d's cursor prefix: %q, want %q", who, i, got, want)
			}
		}
		// An operation's own id is before its done entry, but what comes
		// after it is what comes after its event.
		if got := eventsOf(eventsAfter(t, h, string(rw.ID))); got != "summary undo+done" {
			t.Errorf("%s: after the rewind's id: %q", who, got)
		}
		// Entries that are no event are cursors too.
		if got := eventsOf(eventsAfter(t, h, string(nothing.ID))); got != "turnEnd checkpoint rewind+done summary undo+done" {
			t.Errorf("%s: after a tool call without a step: %q", who, got)
		}
	}
	h, err = j.History()
	if err != nil {
		t.Fatal(err)
	}
	check("this process", h)
	j2 := openT(t, dir)
	h2, err := j2.History()
	if err != nil {
		t.Fatal(err)
	}
	check("a new process", h2)
	for _, bad := range []string{"nope", "0190a0b1-0000-7000-8000-000000000000", "zzzzzzzz"} {
		err := h.Events(bad, func(Event) bool { return true })
		var ue *UnknownEntryError
		if !errors.As(err, &ue) || ue.ID != bad || !strings.Contains(err.Error(), bad) {
			t.Errorf("Events(%q): %v, want an UnknownEntryError naming it", bad, err)
		}
	}
	// The view's files are closed before its folder is deleted (Windows
	// deletes no file a process holds open).
	j.Close()
	j2.Close()
	if err := os.RemoveAll(filepath.Join(dir, "view")); err != nil {
		t.Fatal(err)
	}
	j3 := openT(t, dir)
	h3, err := j3.History()
	if err != nil {
		t.Fatal(err)
	}
	check("the view deleted", h3)
}

// TestLatestEventsOfALongJournal: the latest n of many, oldest first.
func TestLatestEventsOfALongJournal(t *testing.T) {
	lowThresholds(t)
	j := openT(t, t.TempDir())
	parent := EntryID("")
	for i := 1; i <= 50; i++ {
		s := NewTurnStart(parent, i, "", SourceCLI, SnapOf(store.Sum([]byte(fmt.Sprint(i)))))
		s.Prompt = fmt.Sprint("p", i)
		appendRead(t, j, s, NewTool("", s.ID, ToolCall{Phase: PhasePre}))
		parent = s.ID
	}
	h, err := j.History()
	if err != nil {
		t.Fatal(err)
	}
	evs := h.LatestEvents(20)
	if len(evs) != 20 || evs[0].Entry.Prompt != "p31" || evs[19].Entry.Prompt != "p50" {
		t.Fatalf("latest 20: %d events, from %q", len(evs), evs[0].Entry.Prompt)
	}
}

// TestEventsSkipStandIns: a turn start lost to a damaged line is no event
// (its end is), nor a cursor.
func TestEventsSkipStandIns(t *testing.T) {
	id := func(n int) EntryID { return EntryID(fmt.Sprintf("0190a0b0-0000-7000-8000-%012d", n)) }
	h := historyOf(t, []*Entry{
		{ID: id(1), Kind: KindTurnStart, Turn: 1, Snapshot: SnapOf(store.Sum([]byte("s1")))},
		{ID: id(2), Parent: id(1), Kind: KindTurnEnd, Turn: 1, Start: id(1), Snapshot: SnapOf(store.Sum([]byte("s2")))},
		// turn 2's start, id(3), was on a damaged line here
		{ID: id(4), Parent: id(3), Kind: KindTurnEnd, Turn: 2, Start: id(3), Snapshot: SnapOf(store.Sum([]byte("s3")))},
	})
	if got := eventsOf(eventsAfter(t, h, "")); got != "turnStart turnEnd turnEnd" {
		t.Fatalf("events %q", got)
	}
	if got := eventsOf(h.LatestEvents(5)); got != "turnStart turnEnd turnEnd" {
		t.Fatalf("latest events %q", got)
	}
	var ue *UnknownEntryError
	if err := h.Events(string(id(3)), func(Event) bool { return true }); !errors.As(err, &ue) {
		t.Fatalf("after the stand-in: %v", err)
	}
}

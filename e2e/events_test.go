package e2e_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/testkit/wine"
)

// eventLine is one line of rewind-lsp events --json.
type eventLine struct {
	ID, Kind, Time, Title, Session, Agent, Source, Mode, Target string
	Turn, Step                                                  int
	Files                                                       []string
	Applied                                                     *bool
}

func parseEvents(t *testing.T, out string) []eventLine {
	t.Helper()
	var evs []eventLine
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var ev eventLine
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("events --json printed %q: %v", l, err)
		}
		if ev.ID == "" || ev.Kind == "" || ev.Title == "" {
			t.Fatalf("event without id, kind or title: %q", l)
		}
		if _, err := time.Parse(time.RFC3339Nano, ev.Time); err != nil {
			t.Fatalf("event time %q: %v", ev.Time, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func kindsOf(evs []eventLine) string {
	var s []string
	for _, ev := range evs {
		s = append(s, ev.Kind)
	}
	return strings.Join(s, " ")
}

// TestEventsListsTheJournal: after three turns and a rewind, events prints
// them oldest first in words, --json one object per line, --since an id
// (or the short id the line shows) only what came after it, and an id no
// entry has is an error naming it.
func TestEventsListsTheJournal(t *testing.T) {
	w := newWS(t)
	for i, p := range []string{"one", "two", "three"} {
		w.turn(p, func() { w.Write("f.txt", strings.Repeat("x\n", i+1)) })
	}
	w.ok("rewind", "2")

	out := w.ok("events").stdout
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{"Turn 1: one — started", "Turn 1: one — ended, 1 file changed (+1 -0)",
		"Turn 2: two — started", "Turn 2: two — ended", "Turn 3: three — started", "Turn 3: three — ended",
		"Rewind to turn 2 (two) — 1 file"}
	if len(lines) != len(want) {
		t.Fatalf("events printed %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, l := range lines {
		if !strings.Contains(l, want[i]) {
			t.Errorf("line %d is %q, want it to say %q", i+1, l, want[i])
		}
	}

	evs := parseEvents(t, w.ok("events", "--json").stdout)
	if got := kindsOf(evs); got != "turnStart turnEnd turnStart turnEnd turnStart turnEnd rewind" {
		t.Fatalf("events --json kinds: %s", got)
	}
	rw := evs[6]
	if rw.Applied == nil || !*rw.Applied || rw.Mode != "code" || rw.Target != "2" || len(rw.Files) != 1 || rw.Files[0] != "f.txt" {
		t.Errorf("the rewind's event: %+v", rw)
	}
	if evs[0].Source != "cli" {
		t.Errorf("turn 1's start: source %q, want cli", evs[0].Source)
	}
	if evs[1].Turn != 1 || len(evs[1].Files) != 1 || evs[1].Files[0] != "f.txt" {
		t.Errorf("turn 1's end: %+v", evs[1])
	}

	after := parseEvents(t, w.ok("events", "--json", "--since", evs[3].ID).stdout)
	if got := kindsOf(after); got != "turnStart turnEnd rewind" || after[0].Turn != 3 {
		t.Errorf("--since turn 2's end: %s", got)
	}
	// The short id the line for people shows names the entry too.
	short := strings.Fields(lines[3])[2]
	if got := kindsOf(parseEvents(t, w.ok("events", "--json", "--since", short).stdout)); got != "turnStart turnEnd rewind" {
		t.Errorf("--since %s (the short id): %s", short, got)
	}
	if out := w.ok("events", "--since", rw.ID).stdout; out != "" {
		t.Errorf("--since the last event printed %q", out)
	}

	r := w.run("events", "--since", "0190a0b1-dead-7000-8000-000000000000")
	if r.code != 1 || !strings.Contains(r.stderr, "0190a0b1-dead-7000-8000-000000000000") || r.stdout != "" {
		t.Errorf("--since an unknown id: exit %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
	if r := w.run("events", "--since"); r.code != 2 {
		t.Errorf("--since without an id: exit %d, want 2", r.code)
	}
}

// follower is a running rewind-lsp events --follow --json.
type follower struct {
	t     *testing.T
	lines chan string
	done  chan int
	seen  []eventLine
	proc  *os.Process
}

func (w *ws) follow() *follower {
	w.t.Helper()
	cmd := w.Command([]string{"--root", w.Root, "--store", w.Store, "--json", "events", "--follow"})
	out, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	f := &follower{t: w.t, lines: make(chan string, 100), done: make(chan int, 1), proc: cmd.Process}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f.lines <- sc.Text()
		}
		close(f.lines)
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(interface{ ExitCode() int }); ok {
			code = ee.ExitCode()
		}
		if code != 0 {
			w.t.Logf("events --follow stderr: %s", stderr.String())
		}
		f.done <- code
	}()
	w.t.Cleanup(func() { cmd.Process.Kill() })
	return f
}

// expect waits for the next events, at most a few seconds each, and
// checks their kinds.
func (f *follower) expect(kinds ...string) []eventLine {
	f.t.Helper()
	var got []eventLine
	for len(got) < len(kinds) {
		select {
		case l, ok := <-f.lines:
			if !ok {
				f.t.Fatalf("events --follow ended; got %s, want %s", kindsOf(got), strings.Join(kinds, " "))
			}
			got = append(got, parseEvents(f.t, l)...)
		case <-time.After(5 * time.Second):
			f.t.Fatalf("events --follow: after 5 s got %q, want %s", kindsOf(got), strings.Join(kinds, " "))
		}
	}
	if k := kindsOf(got); k != strings.Join(kinds, " ") {
		f.t.Fatalf("events --follow printed %s, want %s", k, strings.Join(kinds, " "))
	}
	f.seen = append(f.seen, got...)
	return got
}

// TestEventsFollow: events --follow, started on a journal of one turn,
// prints it, then each turn other processes record as it comes — after
// the view's folder is deleted, while a language server for the root
// records them, after it stopped — each once, in the order the journal
// holds them; SIGINT ends it, with exit 0 and nothing more.
func TestEventsFollow(t *testing.T) {
	wine.Skip(t, "SIGINT of a wine process")
	t.Setenv("REWIND_LSP_VIEW_EVERY", "2") // the view is written all the time
	w := newWS(t)
	w.turn("one", func() { w.Write("f.txt", "1\n") })
	f := w.follow()
	f.expect("turnStart", "turnEnd")

	w.turn("two", func() { w.Write("f.txt", "2\n") })
	w.ok("checkpoint", "base")
	f.expect("turnStart", "turnEnd", "checkpoint")

	view := filepath.Join(w.Store, "view")
	if segs, _ := filepath.Glob(filepath.Join(view, "seg-*")); len(segs) == 0 {
		t.Fatal("no view was written: the test would not test its deletion")
	}
	if err := os.RemoveAll(view); err != nil {
		t.Fatal(err)
	}
	w.turn("three", func() { w.Write("f.txt", "3\n") })
	f.expect("turnStart", "turnEnd")

	srv := w.startServer()
	w.served()
	w.turn("four", func() { w.Write("f.txt", "4\n") })
	w.ok("rewind", "4")
	evs := f.expect("turnStart", "turnEnd", "rewind")
	if evs[2].Applied == nil || !*evs[2].Applied {
		t.Errorf("the rewind the server ran: %+v", evs[2])
	}
	var discard any
	srv.c.Call("shutdown", nil, &discard)
	srv.c.Notify("exit", nil)
	select {
	case <-srv.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the language server did not stop")
	}
	w.ok("undo")
	w.turn("five", func() { w.Write("f.txt", "5\n") })
	f.expect("undo", "turnStart", "turnEnd")
	if segs, _ := filepath.Glob(filepath.Join(view, "seg-*")); len(segs) == 0 {
		t.Error("the view was not written again after its folder was deleted: the follower read no rebuilt view")
	}

	// Nothing missed, nothing twice: what it printed is the journal's
	// events as a new process lists them.
	all := parseEvents(t, w.ok("events", "--json").stdout)
	if len(all) != len(f.seen) {
		t.Fatalf("events lists %d events, the follower printed %d", len(all), len(f.seen))
	}
	for i := range all {
		if all[i].ID != f.seen[i].ID || all[i].Kind != f.seen[i].Kind {
			t.Fatalf("event %d: the follower printed %s %s, the journal has %s %s", i, f.seen[i].Kind, f.seen[i].ID, all[i].Kind, all[i].ID)
		}
	}

	if err := f.proc.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case l, ok := <-f.lines:
			if ok {
				t.Errorf("events --follow printed %q after the last event", l)
				continue
			}
			select {
			case code := <-f.done:
				if code != 0 {
					t.Errorf("events --follow exited %d after SIGINT, want 0", code)
				}
			case <-deadline:
				t.Fatal("events --follow did not exit after SIGINT")
			}
			return
		case <-deadline:
			t.Fatal("events --follow did not stop within 5 s of SIGINT")
		}
	}
}

// TestEventsOfAnAgentTurn: a Claude Code turn of two tool calls, one step
// taken back, a report kept: events names the session and its agent, each
// step with its tool and file, the revert and the report.
func TestEventsOfAnAgentTurn(t *testing.T) {
	w := newWS(t)
	projects := claudeProjects(t, w)
	w.Write("a.txt", "a0\n")
	A := w.claude("aaaaaaaa-1111-4111-8111-111111111111", projects)
	A.event("SessionStart", "source", "startup")
	A.prompt("two tools")
	A.write("a.txt", "a0\na1\n")
	A.write("c.txt", "c\n")
	A.stop()
	w.ok("revert", "1.2")
	w.ok("rewind", "1", "--mode", "summarize", "--report", "tried twice")

	evs := parseEvents(t, w.ok("events", "--json").stdout)
	if got := kindsOf(evs); got != "turnStart step step turnEnd revert summary" {
		t.Fatalf("events: %s", got)
	}
	for _, ev := range evs[:4] {
		if ev.Session != "aaaaaaaa-1111-4111-8111-111111111111" || ev.Agent != "claude-code" || ev.Turn != 1 {
			t.Errorf("%s event: session %q, agent %q, turn %d", ev.Kind, ev.Session, ev.Agent, ev.Turn)
		}
	}
	if s := evs[2]; s.Step != 2 || s.Title != "turn 1, step 2: Write c.txt" || len(s.Files) != 1 || s.Files[0] != "c.txt" {
		t.Errorf("step 2's event: %+v", s)
	}
	if r := evs[4]; r.Title != "Revert step 2 of turn 1 (Write c.txt), later changes kept" || r.Applied == nil || !*r.Applied {
		t.Errorf("the revert's event: %+v", r)
	}
	if s := evs[5]; s.Title != "Report since turn 1 (two tools)" {
		t.Errorf("the report's event: %+v", s)
	}
	out := w.ok("events").stdout
	for _, want := range []string{"Turn 1: two tools — started [hook] [claude-code aaaaaaaa]", "turn 1, step 1: Write a.txt — 1 file changed (+1 -0) [claude-code aaaaaaaa]", "Report since turn 1 (two tools) — tried twice"} {
		if !strings.Contains(out, want) {
			t.Errorf("events does not say %q:\n%s", want, out)
		}
	}
}

package e2e_test

import (
	"strings"
	"testing"
)

// TestSummariesVisible: a report kept by a rewind or by mode summarize is
// listed by log (human and JSON); summarize needs a report (exit 2); the
// undo hint appears only when there is something to undo.
func TestSummariesVisible(t *testing.T) {
	w := newWS(t)
	w.Write("a.txt", "1\n")
	w.turn("one", func() { w.Write("a.txt", "2\n") })
	w.turn("two", func() { w.Write("a.txt", "3\n") })

	if r := w.run("rewind", "1", "--mode", "summarize"); r.code != 2 || !strings.Contains(r.stderr, "report") {
		t.Fatalf("summarize without a report: exit %d, %s", r.code, r.stderr)
	}
	r := w.ok("rewind", "1", "--mode", "summarize", "--report", "caching did not help\nthe bottleneck is the parser")
	if strings.Contains(r.stdout, "undo it with") {
		t.Errorf("summarize offers an undo:\n%s", r.stdout)
	}
	r = w.ok("rewind", "2", "--report", "turn two broke the build")
	if !strings.Contains(r.stdout, "undo it with") {
		t.Errorf("a rewind that changed files lacks the undo hint:\n%s", r.stdout)
	}
	var list struct {
		Summaries []struct{ Entry, Target, Report, Time string }
	}
	w.okJSON(&list, "log")
	if len(list.Summaries) != 2 || list.Summaries[0].Target != "1" || !strings.Contains(list.Summaries[0].Report, "parser") ||
		list.Summaries[1].Report != "turn two broke the build" || list.Summaries[1].Entry == "" || list.Summaries[1].Time == "" {
		t.Fatalf("log --json summaries: %+v", list.Summaries)
	}
	human := w.ok("log").stdout
	for _, want := range []string{"Report since turn 1 (one):\n    caching did not help\n    the bottleneck is the parser\n",
		"Rewind to turn 2 (two)\n", "Report since turn 2 (two):\n    turn two broke the build\n"} {
		if !strings.Contains(human, want) {
			t.Errorf("log lacks %q:\n%s", want, human)
		}
	}
}

// TestLogShowsSessions: turns carry their session and agent in log.
func TestLogShowsSessions(t *testing.T) {
	w := newWS(t)
	hook := func(ev string) {
		t.Helper()
		if r := w.runIn(ev, "hook", "claude-code"); r.code != 0 || r.stdout != "" {
			t.Fatalf("hook: %+v", r)
		}
	}
	hook(`{"hook_event_name":"UserPromptSubmit","session_id":"5e55a0aa-1111","prompt":"hello"}`)
	hook(`{"hook_event_name":"UserPromptSubmit","session_id":"b0b0b0b0-2222","prompt":"other"}`)
	hook(`{"hook_event_name":"Stop","session_id":"5e55a0aa-1111"}`)
	var list struct {
		Turns []struct{ Session, Agent, Ended string }
	}
	w.okJSON(&list, "log")
	if len(list.Turns) != 2 || list.Turns[0].Agent != "claude-code" || list.Turns[0].Session != "5e55a0aa-1111" ||
		list.Turns[0].Ended == "" || list.Turns[1].Ended != "" {
		t.Fatalf("turns: %+v", list.Turns)
	}
	human := w.ok("log").stdout
	if !strings.Contains(human, "claude-code 5e55a0aa") || !strings.Contains(human, "claude-code b0b0b0b0") {
		t.Errorf("log lacks the sessions:\n%s", human)
	}

	// Codex's session ids are UUIDv7: two sessions started in the same
	// minute begin alike, and the log still tells them apart.
	codex := func(ev string) {
		t.Helper()
		if r := w.runIn(ev, "hook", "codex"); r.code != 0 {
			t.Fatalf("hook: %+v", r)
		}
	}
	codex(`{"hook_event_name":"UserPromptSubmit","session_id":"019a1b2c-3d4e-7f60-8a1b-2c3d4e5f6a7b","prompt":"one"}`)
	codex(`{"hook_event_name":"UserPromptSubmit","session_id":"019a1b2c-8e21-7c05-9b3a-77d0e1f2a3c4","prompt":"two"}`)
	human = w.ok("log").stdout
	if !strings.Contains(human, "Turn 3: one — open [hook] [codex …4e5f6a7b]") || !strings.Contains(human, "Turn 4: two — open [hook] [codex …e1f2a3c4]") {
		t.Errorf("log does not tell the Codex sessions apart:\n%s", human)
	}
}

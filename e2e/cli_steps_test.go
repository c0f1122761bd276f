package e2e_test

import (
	"strings"
	"testing"
)

// TestStepsCommandLine: a Claude Code turn of three tool calls, fed to the
// hook as Claude Code feeds it, read and rewound on the command line. log
// lists the steps under the turn; blame names the step that wrote a line;
// a rewind to 1.2 and a revert of 1.2 say which step in their plans and
// the log; 1.7 is an error naming the steps there are.
func TestStepsCommandLine(t *testing.T) {
	w := newWS(t)
	projects := claudeProjects(t, w)
	w.Write("a.txt", "a0\n")
	A := w.claude("aaaaaaaa-1111-4111-8111-111111111111", projects)
	A.event("SessionStart", "source", "startup")
	A.prompt("three tools")
	A.write("a.txt", "a0\na1\n")
	A.write("c.txt", "c\n")
	A.bash("toolu_b", func() { w.Write("a.txt", "a0\na1\nbash\n") })
	A.stop()

	out := w.ok("log").stdout
	for _, want := range []string{"1.1      step 1: Write a.txt — 1 file changed (+1 -0)", "1.2      step 2: Write c.txt", "1.3      step 3: Bash ./gen.sh"} {
		if !strings.Contains(out, want) {
			t.Errorf("log does not list %q:\n%s", want, out)
		}
	}
	if out := w.ok("blame", "a.txt").stdout; !strings.Contains(out, "a.txt:2         0s ago    Turn 1: three tools — step 1: Write a.txt") || !strings.Contains(out, "a.txt:3         0s ago    Turn 1: three tools — step 3: Bash ./gen.sh") {
		t.Errorf("blame does not name the steps:\n%s", out)
	}

	var plan struct {
		Target struct {
			Step  int
			Title string
		}
	}
	w.okJSON(&plan, "rewind", "1.2", "--dry-run")
	if plan.Target.Step != 2 || plan.Target.Title != "before step 2 of turn 1 (Write c.txt)" {
		t.Errorf("rewind 1.2's plan names %+v", plan.Target)
	}
	var revert struct {
		Plan struct{ Target struct{ Title string } }
	}
	w.okJSON(&revert, "revert", "1.2", "--dry-run")
	if revert.Plan.Target.Title != "step 2 of turn 1 (Write c.txt)" {
		t.Errorf("revert 1.2's plan names %+v", revert.Plan.Target)
	}
	if r := w.run("rewind", "1.7"); r.code == 0 || !strings.Contains(r.stderr, "1–3") {
		t.Errorf("rewind 1.7: exit %d: %s", r.code, r.stderr)
	}

	w.ok("rewind", "1.2")
	if w.Read("a.txt") != "a0\na1\n" || w.Read("c.txt") != "<missing>" {
		t.Fatalf("after rewind 1.2: a=%q c=%q", w.Read("a.txt"), w.Read("c.txt"))
	}
	w.ok("undo")
	if out := w.ok("log").stdout; !strings.Contains(out, "Rewind to before step 2 of turn 1 (Write c.txt) — undone") {
		t.Errorf("log does not name the step rewound to:\n%s", out)
	}
	w.ok("revert", "1.2")
	if w.Read("a.txt") != "a0\na1\nbash\n" || w.Read("c.txt") != "<missing>" {
		t.Fatalf("after revert 1.2: a=%q c=%q", w.Read("a.txt"), w.Read("c.txt"))
	}
	if out := w.ok("log").stdout; !strings.Contains(out, "Revert step 2 of turn 1 (Write c.txt), later changes kept") {
		t.Errorf("log does not name the reverted step:\n%s", out)
	}
	w.ok("undo")
	if w.Read("c.txt") != "c\n" {
		t.Errorf("undo of the revert left c.txt %q", w.Read("c.txt"))
	}
}

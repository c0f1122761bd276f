package e2e_test

import (
	"strings"
	"testing"
)

// TestConversationForkNotice: after `rewind 2 --mode conversation` the
// files stay; the fork's first prompt (a session the journal knows only
// from the rewind) is told which files differ from before turn 2 and who
// changed them; its next prompt is told nothing.
func TestConversationForkNotice(t *testing.T) {
	w := newWS(t)
	projects := claudeProjects(t, w)
	w.Write("a.txt", "a0\n")
	A := w.claude("aaaaaaaa-1111-4111-8111-111111111111", projects)
	A.event("SessionStart", "source", "startup")
	A.prompt("one: edit a")
	A.write("a.txt", "a1\n")
	A.stop()
	A.prompt("two: add b")
	A.bash("toolu_b", func() { w.Write("b.txt", "b\n") })
	A.stop()
	w.Write("a.txt", "the person's\n")

	r := w.ok("rewind", "2", "--mode", "conversation")
	forkID := resumeID(t, r.stdout)
	if w.Read("b.txt") != "b\n" {
		t.Fatal("a conversation rewind changed files")
	}
	F := w.claude(forkID, projects)
	F.event("SessionStart", "source", "resume")
	ctx := noticeContext(t, F.prompt("go on"))
	for _, want := range []string{"before turn 2", "a.txt (changed by user)", "b.txt (changed by turn 2)", "Re-read"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("the fork's notice lacks %q: %s", want, ctx)
		}
	}
	F.stop()
	if again := F.prompt("and then"); again != "" {
		t.Fatalf("the fork was told twice: %q", again)
	}
}

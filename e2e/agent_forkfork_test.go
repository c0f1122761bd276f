package e2e_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConversationRewindToAForksFirstTurn: a session forked by a
// conversation rewind, resumed, and rewound again to the fork's own first
// turn. The second fork is the first one's transcript up to that turn's
// prompt — the original's first exchange, under a new session id — and the
// first fork and the original are left as they were.
func TestConversationRewindToAForksFirstTurn(t *testing.T) {
	w := newWS(t)
	projects := claudeProjects(t, w)
	w.Write("a.txt", "a0\n")
	A := w.claude("aaaaaaaa-1111-4111-8111-111111111111", projects)
	A.event("SessionStart", "source", "startup")
	A.prompt("one: edit a") // turn 1
	A.write("a.txt", "a1\n")
	A.stop()
	A.prompt("two: edit a again") // turn 2
	A.write("a.txt", "a2\n")
	A.stop()

	origA, _ := os.ReadFile(A.transcript)
	bID := resumeID(t, w.ok("rewind", "2", "--mode", "both").stdout)

	// The person resumes the fork; its first prompt is turn 2 again: turn
	// numbers follow the active branch, which the rewind cut after turn 1.
	B := w.claude(bID, projects)
	B.parent = lastUUID(t, B.transcript)
	B.n = 100
	B.event("SessionStart", "source", "resume")
	B.prompt("three: write b in the fork") // turn 2 of the new branch
	B.write("b.txt", "b1\n")
	B.stop()
	forkB, _ := os.ReadFile(B.transcript)

	r := w.ok("rewind", "2", "--mode", "both")
	cID := resumeID(t, r.stdout)
	if cID == bID || cID == A.id {
		t.Fatalf("the second fork reuses a session id: %s", cID)
	}
	if w.Read("b.txt") != "<missing>" || w.Read("a.txt") != "a1\n" {
		t.Fatalf("files not back to before the fork's first turn: a=%q b=%q", w.Read("a.txt"), w.Read("b.txt"))
	}
	forkC, err := os.ReadFile(filepath.Join(projects, cID+".jsonl"))
	if err != nil {
		t.Fatalf("second fork: %v", err)
	}
	// B's lines up to its first prompt (that prompt's file-history-snapshot
	// line included, which Claude Code writes after the hook), under C's id.
	at := bytes.Index(forkB, []byte(`"content":"three: write b in the fork"`))
	upTo := forkB[:bytes.LastIndexByte(forkB[:at], '\n')+1]
	upTo = upTo[:bytes.LastIndexByte(upTo[:len(upTo)-1], '\n')+1]
	want := bytes.ReplaceAll(upTo, []byte(`"sessionId":"`+bID+`"`), []byte(`"sessionId":"`+cID+`"`))
	if !bytes.Equal(forkC, want) {
		t.Fatalf("second fork differs from the first up to its first prompt:\n got %s\nwant %s", forkC, want)
	}
	if bytes.Contains(forkC, []byte("two: edit a again")) || !bytes.Contains(forkC, []byte("one: edit a")) {
		t.Fatalf("second fork should hold the first exchange only:\n%s", forkC)
	}
	if now, _ := os.ReadFile(B.transcript); !bytes.Equal(now, forkB) {
		t.Fatal("the first fork's transcript was modified")
	}
	// The first fork, if the person goes back to it, is told once that its
	// file was taken back.
	if ctx := noticeContext(t, B.prompt("what now?")); !strings.Contains(ctx, "b.txt") {
		t.Errorf("the first fork's notice does not name b.txt: %s", ctx)
	}
	if out := B.prompt("and now?"); out != "" {
		t.Errorf("the first fork was told twice: %q", out)
	}
	if now, _ := os.ReadFile(A.transcript); !bytes.Equal(now, origA) {
		t.Fatal("the original transcript was modified")
	}
}

// lastUUID is the uuid of a transcript's last line.
func lastUUID(t *testing.T, transcript string) string {
	t.Helper()
	data, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	last := lines[len(lines)-1]
	i := strings.Index(last, `"uuid":"`)
	if i < 0 {
		t.Fatalf("no uuid in %s", last)
	}
	return strings.SplitN(last[i+len(`"uuid":"`):], `"`, 2)[0]
}

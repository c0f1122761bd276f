package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// A fork of a Claude Code session that continues from an earlier point of
// its conversation, made with the flags its SDK uses (forkSession,
// resumeSessionAt): a new session in a new transcript, whose first prompt
// hangs where the dropped prompt hung in the original. rewind-lsp records
// the conversation rewind in the fork's session and completes the files as
// for a rewind in place.

// fork runs prompt in a fork of session sid (`--resume sid --fork-session`),
// continuing from entry at (`--resume-session-at`), or from the end when
// at is "", and returns the fork's session id.
func (c *realClaude) fork(sid, at, prompt string) string {
	c.t.Helper()
	args := []string{"-p", "--output-format", "json", "--allowedTools", "Write,Edit,Bash,Read", "--resume", sid, "--fork-session"}
	if at != "" {
		args = append(args, "--resume-session-at", at)
	}
	out := c.claude(append(args, "--", prompt)...)
	var r struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.SessionID == "" || r.SessionID == sid {
		c.t.Fatalf("the fork's session: %q (%v) from\n%s", r.SessionID, err, out)
	}
	return r.SessionID
}

func (c *realClaude) files() string {
	return c.read("a.txt") + c.read("b.txt") + c.read("c.txt") + c.read("d.txt")
}

// TestRealClaudeForkRewindRestoredCode: Claude Code puts back the files of
// prompt two (--rewind-files: its Edit's a.txt, not the shell's b.txt and
// c.txt), then a fork continues from before prompt two with prompt three.
// At the fork's first tool call rewind-lsp records the conversation rewind
// in the fork's session, restores b.txt, leaves c.txt (the person edited
// it since) and lists it; prompt three is turn 2 of the fork; undo brings
// b.txt back; the fork's next prompt is told.
func TestRealClaudeForkRewindRestoredCode(t *testing.T) {
	c := newRealClaude(t)
	sid := c.twoPrompts()
	fork := c.fork(sid, c.restoreTwo(sid), "prompt three")
	if got := c.files(); got != "one\nb1\nthe person's\nd3\n" {
		t.Fatalf("after the completed rewind: a, b, c, d = %q", got)
	}
	rw := c.rewinds()
	if len(rw) != 1 || rw[0].Agent != "claude-code" || rw[0].Session != fork || rw[0].Mode != "both" || rw[0].Turn != 2 ||
		strings.Join(rw[0].Files, ",") != "b.txt" || strings.Join(rw[0].Kept, ",") != "c.txt" {
		t.Fatalf("the fork's rewind: %+v", rw)
	}
	ts := c.turns(false)
	if len(ts) != 2 || ts[0].Session != sid || ts[1].Prompt != "prompt three" || ts[1].Session != fork || ts[1].Ended == "" ||
		strings.Join(changedPaths(ts[1]), ",") != "d.txt" {
		t.Fatalf("turns on the branch: %+v", ts)
	}
	c.checkHooks(nil)
	if *updateFixtures {
		c.saveRewindFixtures("claude-fork", sid, fork)
	}
	if r := c.cli("undo"); r.code != 0 || c.read("b.txt") != "b2\n" {
		t.Fatalf("undo: exit %d %s, b.txt %q", r.code, r.stderr, c.read("b.txt"))
	}
	c.e.Resume(c.ws, fork, "prompt four")
	if q := c.model.For("prompt four"); len(q) == 0 || !q[0].Mentions("b.txt") {
		t.Fatal("the fork's next prompt was not told of the restore")
	}
}

// TestRealClaudeForkRewindRestoredNothing: a fork continues from before
// prompt two and Claude Code restores no file. rewind-lsp records the
// conversation rewind in the fork's session, changes no file, and offers
// the files a code rewind would restore. The original session, resumed
// afterwards, goes on from its own end: no rewind of it.
func TestRealClaudeForkRewindRestoredNothing(t *testing.T) {
	c := newRealClaude(t)
	sid := c.twoPrompts()
	_, parent := c.promptEntry(sid, "prompt two")
	fork := c.fork(sid, parent, "prompt three")
	if got := c.files(); got != "two\nb2\nc2\nd3\n" {
		t.Fatalf("files changed: a, b, c, d = %q", got)
	}
	rw := c.rewinds()
	if len(rw) != 1 || rw[0].Agent != "claude-code" || rw[0].Session != fork || rw[0].Mode != "conversation" || rw[0].Turn != 2 ||
		len(rw[0].Files) != 0 || strings.Join(rw[0].Offered, ",") != "a.txt,b.txt,c.txt" {
		t.Fatalf("the fork's rewind: %+v", rw)
	}
	c.e.Resume(c.ws, sid, "prompt four")
	if rw := c.rewinds(); len(rw) != 1 {
		t.Fatalf("the original session's next prompt was taken for a rewind: %+v", rw)
	}
	c.checkHooks(nil)
	if r := c.cli("rewind", rw[0].Target, "--paths", strings.Join(rw[0].Offered, ",")); r.code != 0 {
		t.Fatalf("the offered rewind: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	if got := c.files(); got != "one\nb1\n<missing>d3\n" {
		t.Fatalf("after the offered rewind: a, b, c, d = %q", got)
	}
}

// TestRealClaudeForkFromTheEnd: a fork that continues from the end of the
// conversation (--fork-session alone) dropped nothing: no rewind, and its
// prompt is turn 3.
func TestRealClaudeForkFromTheEnd(t *testing.T) {
	c := newRealClaude(t)
	sid := c.twoPrompts()
	fork := c.fork(sid, "", "prompt three")
	if rw := c.rewinds(); len(rw) != 0 {
		t.Fatalf("a fork from the end was taken for a rewind: %+v", rw)
	}
	if ts := c.turns(false); len(ts) != 3 || ts[2].Session != fork || ts[2].Prompt != "prompt three" {
		t.Fatalf("turns: %+v", ts)
	}
	c.checkHooks(nil)
}

// TestRealClaudeOwnForkIsNoRewind: the fork rewind-lsp writes for `rewind 2
// --mode conversation` hangs its first prompt where prompt two hung, as
// Claude Code's forks do; but that rewind is rewind-lsp's, recorded
// already. Even with the rewind undone (prompt two back on the journal's
// branch), the fork's first prompt is no rewind of Claude Code's.
func TestRealClaudeOwnForkIsNoRewind(t *testing.T) {
	c := newRealClaude(t)
	sid := c.twoPrompts()
	out := c.cli("rewind", "2", "--mode", "conversation")
	i := strings.Index(out.stdout, "claude --resume ")
	if out.code != 0 || i < 0 {
		t.Fatalf("rewind 2 --mode conversation: exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	fork := strings.Fields(out.stdout[i+len("claude --resume "):])[0]
	if r := c.cli("undo"); r.code != 0 {
		t.Fatalf("undo: exit %d %s", r.code, r.stderr)
	}
	c.e.Resume(c.ws, fork, "prompt three")
	for _, r := range c.rewinds() {
		if r.Agent != "" {
			t.Fatalf("rewind-lsp's own fork was taken for Claude Code's rewind: %+v", r)
		}
	}
	if ts := c.turns(false); len(ts) != 3 || ts[1].Session != sid || ts[2].Session != fork {
		t.Fatalf("turns: %+v", ts)
	}
	c.checkHooks(nil)
}

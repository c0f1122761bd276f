package e2e_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// forkSession is a Claude Code session with a long conversation (tool
// results of tens of kilobytes, as real transcripts have) before its
// second turn, so a conversation rewind to that turn copies megabytes. Its
// transcripts are where Claude Code keeps them under home.
func forkSession(t *testing.T, w *ws, home string, lines int) (s *claudeSession, projects string) {
	t.Helper()
	projects = filepath.Join(home, ".claude", "projects", strings.ReplaceAll(w.Root, "/", "-"))
	os.MkdirAll(projects, 0o700)
	s = w.claude("ffffffff-1111-4111-8111-111111111111", projects)
	s.event("SessionStart", "source", "startup")
	s.prompt("turn one: read everything")
	big := strings.Repeat("a tool result line of a long session\\n", 800)
	for i := 0; i < lines; i++ {
		s.line("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprint("toolu_", i), "content": big}}})
	}
	s.write("f.txt", "one\n")
	s.stop()
	s.prompt("turn two: change it")
	s.write("f.txt", "two\n")
	s.stop()
	return s, projects
}

// checkForks checks the transcript folder: the original, unchanged, and
// only whole forks beside it — each the original's lines before turn 2's
// prompt with its own session id. It returns how many forks there are.
func checkForks(t *testing.T, projects string, s *claudeSession, orig []byte, what string) int {
	t.Helper()
	ents, err := os.ReadDir(projects)
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(orig, []byte(`"content":"turn two: change it"`))
	cut = bytes.LastIndexByte(orig[:cut], '\n') + 1
	cut = bytes.LastIndexByte(orig[:cut-1], '\n') + 1 // and its file-history-snapshot line
	forks := 0
	for _, e := range ents {
		p := filepath.Join(projects, e.Name())
		if p == s.transcript {
			if now, _ := os.ReadFile(p); !bytes.Equal(now, orig) {
				t.Fatalf("%s: the original transcript changed", what)
			}
			continue
		}
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || strings.HasPrefix(id, ".") {
			t.Fatalf("%s: a file that is no transcript beside the original: %s", what, e.Name())
		}
		data, _ := os.ReadFile(p)
		want := bytes.ReplaceAll(orig[:cut], []byte(`"sessionId":"`+s.id+`"`), []byte(`"sessionId":"`+id+`"`))
		if !bytes.Equal(data, want) {
			t.Fatalf("%s: %s is not a whole fork: %d bytes, want %d", what, e.Name(), len(data), len(want))
		}
		forks++
	}
	return forks
}

// TestKillDuringConversationFork kills `rewind --mode conversation` at
// random moments while it copies a transcript of several megabytes: beside
// the original there is never a half-written transcript (nor a temporary
// file a session list could pick up) — a fork is written whole or not at
// all — and the next fork works.
func TestKillDuringConversationFork(t *testing.T) {
	w := newWS(t)
	s, projects := forkSession(t, w, t.TempDir(), 300)
	orig, _ := os.ReadFile(s.transcript)
	// Turn 2 by its entry: after a conversation rewind it is on an
	// abandoned branch, no longer "turn 2".
	var list struct{ Turns []struct{ Entry string } }
	w.okJSON(&list, "log")
	target := list.Turns[1].Entry
	// How long one fork takes here, to aim the kills inside it.
	t0 := time.Now()
	w.ok("rewind", target, "--mode", "conversation")
	took := time.Since(t0)
	if n := checkForks(t, projects, s, orig, "a fork"); n != 1 {
		t.Fatalf("%d forks after one conversation rewind", n)
	}
	tries := 30
	if testing.Short() {
		tries = 12
	}
	r := rand.New(rand.NewSource(3))
	killed := 0
	for i := 0; i < tries; i++ {
		c := w.Command([]string{"--root", w.Root, "--store", w.Store, "rewind", target, "--mode", "conversation"}, "REWIND_LSP_NO_SERVER=1")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case <-done:
		case <-time.After(time.Duration(r.Int63n(int64(took) + 1))):
			c.Process.Signal(syscall.SIGKILL)
			<-done
			if st, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && st.Signaled() {
				killed++
			}
		}
		checkForks(t, projects, s, orig, fmt.Sprintf("kill %d", i))
	}
	before := checkForks(t, projects, s, orig, "after the kills")
	var res struct {
		Conversation struct{ Session, Transcript string }
	}
	w.okJSON(&res, "rewind", target, "--mode", "conversation")
	if after := checkForks(t, projects, s, orig, "the next fork"); after != before+1 || res.Conversation.Transcript == "" {
		t.Fatalf("the fork after the kills: %d forks (was %d), result %+v", after, before, res.Conversation)
	}
	if r := w.run("fsck"); r.code != 0 {
		t.Fatalf("fsck after the kills: %s", r.stderr)
	}
	t.Logf("a fork took %v; %d of %d runs were killed, %d whole forks beside the original", took, killed, tries, before)
	if killed == 0 {
		t.Fatal("no run was killed: the test did not test anything")
	}
}

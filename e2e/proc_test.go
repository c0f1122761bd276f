package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// proc is one run of the binary in the background.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	start          time.Time
	done           chan struct{}
	code           int
	took           time.Duration
}

// spawn starts the binary on w with stdin, without waiting for it.
func (w *ws) spawn(stdin string, args ...string) *proc {
	w.t.Helper()
	p := &proc{done: make(chan struct{})}
	p.cmd = w.Command(append([]string{"--root", w.Root, "--store", w.Store}, args...), "REWIND_LSP_HOME="+w.Store+"-home")
	p.cmd.Stdin = strings.NewReader(stdin)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.start = time.Now()
	if err := p.cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		p.took = time.Since(p.start)
		p.code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			p.code = ee.ExitCode()
			if ee.ExitCode() < 0 {
				p.code = -1 // killed by a signal
			}
		}
		close(p.done)
	}()
	w.t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait waits for the run's end, at most max (then the test fails).
func (p *proc) wait(t *testing.T, max time.Duration, what string) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(max):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("%s still runs after %v\nstderr: %s", what, max, p.stderr.String())
	}
}

// local runs a command that must succeed without asking any server (to
// look at the store while a server hangs).
func (w *ws) local(args ...string) string {
	w.t.Helper()
	c := w.Command(append([]string{"--root", w.Root, "--store", w.Store}, args...),
		"REWIND_LSP_HOME="+w.Store+"-home", "REWIND_LSP_NO_SERVER=1")
	out, err := c.Output()
	if err != nil {
		w.t.Fatalf("rewind-lsp %v (alone): %v", args, err)
	}
	return string(out)
}

// turnCount is the number of turns on the active branch, and whether the
// latest is open.
func (w *ws) turnCount() (n int, open bool) {
	w.t.Helper()
	var st struct {
		Turns    int
		OpenTurn *struct{ Turn int }
	}
	if err := json.Unmarshal([]byte(w.local("--json", "status")), &st); err != nil {
		w.t.Fatal(err)
	}
	return st.Turns, st.OpenTurn != nil
}

// hookBudget is what a hook promises the agent: an answer within 5 s.
const hookBudget = 5 * time.Second

// promptEvent is a Claude Code UserPromptSubmit event for w.
func (w *ws) promptEvent(prompt string) string {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s-hang",
		"cwd": w.Root, "prompt": prompt})
	return string(b)
}

// checkHook runs a UserPromptSubmit hook and checks its promise: exit 0 within
// 5 s, nothing on stdout, and the turn recorded or the problem reported on
// stderr. It returns whether the turn was recorded (read from the journal
// itself: a store locked by a stopped process blocks every command).
func (w *ws) checkHook(prompt string) bool {
	w.t.Helper()
	p := w.spawn(w.promptEvent(prompt), "hook", "claude-code")
	p.wait(w.t, 10*time.Second, "the hook")
	if p.code != 0 || p.took >= hookBudget || p.stdout.Len() != 0 {
		w.t.Fatalf("hook: exit %d after %v, stdout %q; want exit 0 within %v and no output\nstderr: %s",
			p.code, p.took.Round(time.Millisecond), p.stdout.String(), hookBudget, p.stderr.String())
	}
	journal, _ := os.ReadFile(filepath.Join(w.Store, "journal"))
	recorded := bytes.Count(journal, []byte(`"prompt":"`+prompt+`"`))
	if recorded > 1 {
		w.t.Fatalf("the hook's turn is recorded %d times", recorded)
	}
	if recorded == 0 && strings.TrimSpace(p.stderr.String()) == "" {
		w.t.Fatal("the hook neither recorded its turn nor said why on stderr")
	}
	w.t.Logf("hook: %v, recorded %v, stderr %q", p.took.Round(time.Millisecond), recorded == 1, p.stderr.String())
	return recorded == 1
}

package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/testkit/agents"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// Claude Code's rewind typed in its interface under tmux, as a person does.

// tui is Claude Code's interactive interface in a tmux session, typed at
// as a person does.
type tui struct {
	c    *realClaude
	sock string
}

func (c *realClaude) tui() *tui {
	c.t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		c.t.Fatalf("Claude Code's interface is driven in tmux, which is not installed (apt-get install tmux): %v", err)
	}
	// What a person has answered once: onboarding done, this folder
	// trusted, the API key accepted.
	key := "fake"
	cfg := map[string]any{"hasCompletedOnboarding": true, "theme": "dark",
		"customApiKeyResponses": map[string]any{"approved": []string{key}},
		"projects":              map[string]any{c.ws: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}}}
	data, _ := json.Marshal(cfg)
	claudeJSON := filepath.Join(c.e.Home, ".claude.json")
	old, _ := os.ReadFile(claudeJSON)
	var have map[string]any
	if json.Unmarshal(old, &have) == nil {
		for k, v := range cfg {
			have[k] = v
		}
		data, _ = json.Marshal(have)
	}
	os.WriteFile(claudeJSON, data, 0o600)
	// One tmux server per test: its own socket, removed with it.
	u := &tui{c: c, sock: fmt.Sprintf("rwclaude-%d-%s", os.Getpid(), filepath.Base(filepath.Dir(c.e.Dir())))}
	env := []string{"PATH=" + c.e.Bin + ":" + os.Getenv("PATH"), "HOME=" + c.e.Home, "ANTHROPIC_API_KEY=" + key,
		"ANTHROPIC_BASE_URL=" + c.model.URL, "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "TERM=xterm-256color"}
	env = append(env, c.e.ExtraEnv...)
	args := []string{"-L", u.sock, "new-session", "-d", "-x", "160", "-y", "50", "-c", c.ws, "env", "-i"}
	args = append(append(args, env...), c.e.Cmd, "--allowedTools", "Write,Edit,Bash,Read")
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		c.t.Fatalf("tmux: %v\n%s", err, out)
	}
	c.t.Cleanup(func() {
		// Claude Code writes to its home until it is gone.
		exec.Command("tmux", "-L", u.sock, "send-keys", "C-c").Run()
		exec.Command("tmux", "-L", u.sock, "send-keys", "C-c").Run()
		for i := 0; i < 50 && exec.Command("tmux", "-L", u.sock, "has-session").Run() == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
		exec.Command("tmux", "-L", u.sock, "kill-server").Run()
		os.Remove(filepath.Join(os.TempDir(), fmt.Sprintf("tmux-%d", os.Getuid()), u.sock))
		time.Sleep(500 * time.Millisecond)
	})
	return u
}

// screen is what the terminal shows now.
func (u *tui) screen() string {
	out, _ := exec.Command("tmux", "-L", u.sock, "capture-pane", "-p").Output()
	return string(out)
}

// keys sends tmux key names (Enter, Escape, Down…) or literal text with -l.
func (u *tui) keys(args ...string) {
	u.c.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-L", u.sock, "send-keys"}, args...)...).CombinedOutput(); err != nil {
		u.c.t.Fatalf("send-keys %v: %v\n%s", args, err, out)
	}
}

// waitFor waits until the screen shows text.
func (u *tui) waitFor(text string) {
	u.c.t.Helper()
	end := time.Now().Add(60 * time.Second)
	for time.Now().Before(end) {
		if strings.Contains(u.screen(), text) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	u.c.t.Fatalf("the screen never showed %q:\n%s", text, u.screen())
}

// waitGone waits until the screen no longer shows text (a menu closed).
func (u *tui) waitGone(text string) {
	u.c.t.Helper()
	end := time.Now().Add(60 * time.Second)
	for time.Now().Before(end) {
		if !strings.Contains(u.screen(), text) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	u.c.t.Fatalf("the screen still shows %q:\n%s", text, u.screen())
}

// prompt types a prompt and waits until its turn is over: the model's last
// reply on the screen and the Stop hook finished (a key pressed before that
// interrupts the turn).
func (u *tui) prompt(text, reply string) {
	u.c.t.Helper()
	stops := u.stops()
	u.keys("-l", text)
	u.waitFor(text) // in the input box, not in a menu
	time.Sleep(300 * time.Millisecond)
	u.keys("Enter")
	u.waitFor(reply)
	end := time.Now().Add(60 * time.Second)
	for u.stops() == stops {
		if time.Now().After(end) {
			u.c.t.Fatalf("the Stop hook of %q never finished:\n%s", text, u.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // the interface settles back to its prompt
}

// stops counts the Stop hook runs that finished.
func (u *tui) stops() int {
	n := 0
	for _, h := range u.c.e.HookRuns() {
		if h.Event() == "Stop" && h.Exit != -1 {
			n++
		}
	}
	return n
}

// TestRealClaudeTUIRewind: Claude Code's rewind driven in its interface as
// a person does — Esc Esc, prompt two, then "Restore code and conversation"
// or "Restore conversation" — and a new prompt. With its code restored,
// rewind-lsp restores what its shell wrote in prompt two and leaves c.txt,
// which the person changed since; with only the conversation restored, no
// file changes and the files are offered. Either way the new prompt is
// turn 2. "branch" does it in a fork: /branch first (a new session that
// copies the conversation), then the rewind there; the rewind is the
// fork's, its dropped turn the original session's.
func TestRealClaudeTUIRewind(t *testing.T) {
	for _, restore := range []bool{true, false} {
		name := map[bool]string{true: "restore code and conversation", false: "restore conversation"}[restore]
		t.Run(name, func(t *testing.T) { tuiRewind(t, restore, false) })
	}
	t.Run("branch, restore code and conversation", func(t *testing.T) { tuiRewind(t, true, true) })
}

func tuiRewind(t *testing.T, restore, branch bool) {
	c := newRealClaude(t)
	c.model.On("prompt one", fakemodel.Tools(agents.WriteFile(agents.Claude, c.ws, filepath.Join(c.ws, "a.txt"), "one\n")),
		fakemodel.Tools(agents.Shell(agents.Claude, "echo b1 > b.txt")), fakemodel.Say("ok one done"))
	c.model.On("prompt two", fakemodel.Tools(agents.EditFile(agents.Claude, c.ws, filepath.Join(c.ws, "a.txt"), "one", "two")),
		fakemodel.Tools(agents.Shell(agents.Claude, "echo c2 > c.txt; echo b2 > b.txt")), fakemodel.Say("ok two done"))
	c.model.On("prompt three", fakemodel.Tools(agents.Shell(agents.Claude, "echo d3 > d.txt")), fakemodel.Say("ok three done"))
	u := c.tui()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Claude Code's screen:\n%s", u.screen())
		}
	})
	u.waitFor("auto mode")
	u.prompt("prompt one", "ok one done")
	u.prompt("prompt two", "ok two done")
	c.write("c.txt", "the person's\n")
	session := c.e.HookRuns()[0].Field("session_id")
	if branch {
		u.keys("-l", "/branch")
		time.Sleep(300 * time.Millisecond)
		u.keys("Enter")
		u.waitFor("Branched session")
		session = ""
		for _, h := range c.e.HookRuns() {
			if h.Event() == "SessionStart" && h.Field("source") == "fork" {
				session = h.Field("session_id")
			}
		}
		if session == "" {
			t.Fatal("/branch ran no SessionStart hook with source fork")
		}
	}
	u.keys("Escape")
	time.Sleep(200 * time.Millisecond)
	u.keys("Escape")
	u.waitFor("Restore the code and/or conversation")
	u.keys("Up") // from "(current)" to prompt two
	time.Sleep(300 * time.Millisecond)
	u.keys("Enter")
	u.waitFor("Restore code and conversation")
	if !restore {
		u.keys("Down") // "Restore conversation"
		time.Sleep(300 * time.Millisecond)
	}
	u.keys("Enter")
	// Keys typed while the menu is still up (a loaded machine) are its
	// keys, not the prompt's.
	u.waitGone("Restore code and conversation")
	time.Sleep(time.Second)
	u.keys("C-u") // the rewound prompt is put back in the input box
	time.Sleep(300 * time.Millisecond)
	u.prompt("prompt three", "ok three done")

	files := c.read("a.txt") + c.read("b.txt") + c.read("c.txt") + c.read("d.txt")
	rw := c.rewinds()
	if len(rw) != 1 || rw[0].Agent != "claude-code" || rw[0].Turn != 2 || rw[0].Session != session {
		t.Fatalf("the agent's rewind: %+v, want one of session %s", rw, session)
	}
	if restore {
		if files != "one\nb1\nthe person's\nd3\n" || rw[0].Mode != "both" || strings.Join(rw[0].Files, ",") != "b.txt" ||
			strings.Join(rw[0].Kept, ",") != "c.txt" {
			t.Fatalf("restored code: a, b, c, d = %q; rewind %+v", files, rw[0])
		}
	} else if files != "two\nb2\nthe person's\nd3\n" || rw[0].Mode != "conversation" || strings.Join(rw[0].Offered, ",") != "a.txt,b.txt,c.txt" {
		t.Fatalf("restored nothing: a, b, c, d = %q; rewind %+v", files, rw[0])
	}
	ts := c.turns(false)
	if len(ts) != 2 || ts[1].Prompt != "prompt three" || ts[1].Ended == "" || ts[1].Session != session || strings.Join(changedPaths(ts[1]), ",") != "d.txt" {
		t.Fatalf("turns on the branch: %+v", ts)
	}
	c.checkHooks(nil)
}

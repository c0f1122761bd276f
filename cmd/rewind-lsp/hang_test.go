package main_test

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	p.cmd = execBin(append([]string{"--root", w.root, "--store", w.store}, args...), "REWIND_LSP_HOME="+w.store+"-home")
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
	c := execBin(append([]string{"--root", w.root, "--store", w.store}, args...),
		"REWIND_LSP_HOME="+w.store+"-home", "REWIND_LSP_NO_SERVER=1")
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
		"cwd": w.root, "prompt": prompt})
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
	journal, _ := os.ReadFile(filepath.Join(w.store, "journal"))
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

// checkSIGTERM starts a command, sends it SIGTERM after a while, and checks
// that it ends promptly.
func (w *ws) checkSIGTERM(args ...string) {
	w.t.Helper()
	p := w.spawn("", args...)
	time.Sleep(700 * time.Millisecond)
	select {
	case <-p.done:
		w.t.Fatalf("rewind-lsp %v ended before the signal (exit %d): the test did not test anything\n%s",
			args, p.code, p.stderr.String())
	default:
	}
	sent := time.Now()
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(w.t, 10*time.Second, "the command after SIGTERM")
	if took := time.Since(sent); took > 1500*time.Millisecond {
		w.t.Fatalf("rewind-lsp %v took %v to obey SIGTERM", args, took.Round(time.Millisecond))
	}
	if p.code == 0 {
		w.t.Fatalf("rewind-lsp %v stopped by SIGTERM exited 0", args)
	}
}

// TestHangingServer: a process that accepts
// on the store's socket and never answers, a real server stopped with
// SIGSTOP, and a stopped server that holds the store's lock (mid-rewind,
// waiting for its editor). `turn start` returns with its turn recorded
// when the store is free; the hook always returns within 5 s with exit 0,
// its turn recorded or the problem on stderr; a command waiting obeys
// SIGTERM at once. A stopped server that wakes up does not record the
// forwarded call a second time.
func TestHangingServer(t *testing.T) {
	t.Run("raw listener", func(t *testing.T) {
		w := newWS(t)
		w.write("a.txt", "a\n")
		ln, err := net.Listen("unix", filepath.Join(w.store, "server.sock"))
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			var held []net.Conn // accepted, never answered
			for {
				c, err := ln.Accept()
				if err != nil {
					for _, c := range held {
						c.Close()
					}
					return
				}
				held = append(held, c)
			}
		}()
		p := w.spawn("", "turn", "start", "--prompt", "past a silent socket")
		p.wait(t, 15*time.Second, "turn start")
		if n, open := w.turnCount(); p.code != 0 || n != 1 || !open {
			t.Fatalf("turn start past a silent socket: exit %d after %v, %d turns (open %v)\n%s",
				p.code, p.took, n, open, p.stderr.String())
		}
		w.local("turn", "end")
		if !w.checkHook("a hook past a silent socket") {
			t.Error("the hook did not record its turn although the store was free")
		}
		w.checkSIGTERM("turn", "start")
	})

	t.Run("stopped server", func(t *testing.T) {
		w := newWS(t)
		w.write("a.txt", "a\n")
		s := w.startServer()
		w.served()
		s.signal(syscall.SIGSTOP)
		if !w.checkHook("a hook past a stopped server") {
			t.Error("the hook did not record its turn although the store was free")
		}
		w.checkSIGTERM("checkpoint", "x")
		// The server wakes up and reads the calls that were sent to it: the
		// hook's turn, asked twice, is not recorded again.
		s.signal(syscall.SIGCONT)
		w.served()
		time.Sleep(500 * time.Millisecond)
		if n, _ := w.turnCount(); n != 1 {
			t.Fatalf("%d turns after the stopped server woke up; want the hook's one", n)
		}
	})

	t.Run("stopped server holding the lock", func(t *testing.T) {
		w := newWS(t)
		w.write("a.txt", "a\n")
		w.turn("t1", func() { w.write("a.txt", "b\n") })
		s := w.startServer()
		// A rewind from the editor: the server records it and waits for
		// the editor to apply it (this editor never answers), holding the
		// store's lock; then it is stopped.
		s.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand",
			"params": map[string]any{"command": "rewind.rewind", "arguments": []any{map[string]any{"target": "1"}}}})
		journal := filepath.Join(w.store, "journal")
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if data, _ := os.ReadFile(journal); bytes.Contains(data, []byte(`"pending":true`)) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the server did not start the rewind")
			}
		}
		s.signal(syscall.SIGSTOP)
		if w.checkHook("a hook while a stopped server holds the lock") {
			t.Error("the hook recorded a turn while the store was locked")
		}
		w.checkSIGTERM("turn", "start")
		s.kill()
	})
}

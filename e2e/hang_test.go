//go:build unix

// The hang tests stop and signal processes (SIGSTOP, SIGTERM), which
// Windows does not have.

package e2e_test

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

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
		w.Write("a.txt", "a\n")
		ln, err := net.Listen("unix", filepath.Join(w.Store, "server.sock"))
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
		w.Write("a.txt", "a\n")
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
		w.Write("a.txt", "a\n")
		w.turn("t1", func() { w.Write("a.txt", "b\n") })
		s := w.startServer()
		// A rewind from the editor: the server records it and waits for
		// the editor to apply it (this editor never answers), holding the
		// store's lock; then it is stopped.
		s.c.Send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand",
			"params": map[string]any{"command": "rewind.rewind", "arguments": []any{map[string]any{"target": "1"}}}})
		journal := filepath.Join(w.Store, "journal")
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

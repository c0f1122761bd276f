package commands_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// dropProxy stands between the command line and a real SocketServer and
// loses answers: it listens on the socket the client asks, forwards each
// request to the real server and reads its answer to the end, then
//
//   - "dies": drops it and stops listening (a server killed after it ran
//     the call, before it answered);
//   - "lives": drops every answer and keeps listening (a connection lost,
//     the server alive);
//   - "once": drops the first answer, passes the next ones on;
//   - "lost": stops listening before it forwards anything (a server killed
//     before it ran the call).
type dropProxy struct {
	t      *testing.T
	ln     net.Listener
	target string
	mode   string

	mu        sync.Mutex
	calls     int // requests received
	forwarded int // answers the real server gave
}

func startDropProxy(t *testing.T, storeDir, target, mode string) *dropProxy {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(storeDir, "server.sock"))
	if err != nil {
		t.Fatal(err)
	}
	p := &dropProxy{t: t, ln: ln, target: target, mode: mode}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.handle(c)
		}
	}()
	return p
}

func (p *dropProxy) close() { p.ln.Close() }

func (p *dropProxy) handle(c net.Conn) {
	defer c.Close()
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return
	}
	p.mu.Lock()
	p.calls++
	n := p.calls
	p.mu.Unlock()
	if p.mode == "lost" {
		p.close()
		return
	}
	s, err := net.Dial("unix", p.target)
	if err != nil {
		p.t.Errorf("proxy: the real server: %v", err)
		return
	}
	defer s.Close()
	if _, err := s.Write(line); err != nil {
		p.t.Errorf("proxy: %v", err)
		return
	}
	r := bufio.NewReader(s)
	var final []byte
	for {
		l, err := r.ReadBytes('\n')
		if err != nil {
			p.t.Errorf("proxy: the real server's answer: %v", err)
			return
		}
		if !bytes.Contains(l, []byte(`"working":true`)) {
			final = l
			break
		}
	}
	p.mu.Lock()
	p.forwarded++
	p.mu.Unlock()
	switch {
	case p.mode == "dies":
		p.close()
	case p.mode == "once" && n > 1:
		c.Write(final)
	}
}

// TestLostAnswerIsNotRunTwice: every
// recording command forwarded to a running server whose answer is lost —
// the server died after running it, or before; or the connection was lost
// and the server lives — is recorded exactly once: the command line asks
// again and finally runs it itself under the same idempotency key, which
// returns what the server recorded. An undo whose answer was lost undoes
// one rewind, not two, and nothing becomes a false conflict.
func TestLostAnswerIsNotRunTwice(t *testing.T) {
	for _, mode := range []string{"dies", "lives", "once", "lost"} {
		t.Run(mode, func(t *testing.T) { lostAnswer(t, mode) })
	}
}

func lostAnswer(t *testing.T, mode string) {
	t.Setenv("REWIND_LSP_NO_SERVER", "")
	root, realStore, asked := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(rel, s string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) string {
		b, _ := os.ReadFile(filepath.Join(root, rel))
		return string(b)
	}
	write("a.txt", "before\n")
	open := func() (*commands.Service, error) {
		return commands.Open(commands.Options{Root: root, StoreDir: realStore, Actor: "cli"})
	}
	svc, err := open()
	if err != nil {
		t.Fatal(err)
	}
	sock, err := commands.ServeSocket(svc)
	if err != nil || sock == nil {
		t.Fatalf("serving the socket: %v", err)
	}
	defer sock.Close()
	target := filepath.Join(realStore, "server.sock")
	journal := filepath.Join(realStore, "journal")

	// call runs one command-line call (one key) through a proxy that loses
	// its answer, and checks that it is recorded exactly once.
	call := func(what string, fn func(ctx context.Context, cl *commands.Auto) (entry string, err error)) {
		t.Helper()
		key := commands.NewKey()
		p := startDropProxy(t, asked, target, mode)
		defer p.close()
		ctx := commands.WithCall(context.Background(), commands.Call{Key: key, Actor: "cli", Source: "cli"})
		entry, err := fn(ctx, commands.NewAuto(asked, open))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		p.mu.Lock()
		forwarded, calls := p.forwarded, p.calls
		p.mu.Unlock()
		if calls == 0 || (mode != "lost" && forwarded == 0) {
			t.Fatalf("%s: the proxy saw %d calls and forwarded %d: the test did not test anything", what, calls, forwarded)
		}
		data, _ := os.ReadFile(journal)
		if n := bytes.Count(data, []byte(`"key":"`+key+`"`)); n != 1 {
			t.Fatalf("%s (answer lost, %s): %d journal entries carry its key; want 1\n%s", what, mode, n, data)
		}
		if entry == "" || !bytes.Contains(data, []byte(`"id":"`+entry+`"`)) {
			t.Fatalf("%s: the result names entry %q, which the journal does not hold", what, entry)
		}
	}

	call("turn start", func(ctx context.Context, cl *commands.Auto) (string, error) {
		r, err := commands.TurnStart.Call(ctx, cl, commands.TurnStartArgs{Prompt: "p1"})
		if err == nil && r.Turn != 1 {
			t.Errorf("turn start: turn %d, want 1", r.Turn)
		}
		return entryOf(r, err)
	})
	write("a.txt", "after\n")
	write("b.txt", "created\n")
	call("turn end", func(ctx context.Context, cl *commands.Auto) (string, error) {
		return entryOf(commands.TurnEnd.Call(ctx, cl, commands.TurnEndArgs{}))
	})
	call("checkpoint", func(ctx context.Context, cl *commands.Auto) (string, error) {
		return entryOf(commands.Checkpoint.Call(ctx, cl, commands.CheckpointArgs{Label: "c1"}))
	})
	rewind := func(target string) {
		t.Helper()
		call("rewind "+target, func(ctx context.Context, cl *commands.Auto) (string, error) {
			r, err := commands.Rewind.Call(ctx, cl, commands.RewindArgs{Target: target})
			if err == nil && !r.Applied {
				t.Fatalf("rewind %s: not applied: %s", target, r.FailureReason)
			}
			return entryOf(r, err)
		})
	}
	rewind("1")
	if read("a.txt") != "before\n" || read("b.txt") != "" {
		t.Fatalf("after rewind 1: a.txt %q, b.txt %q", read("a.txt"), read("b.txt"))
	}
	rewind("turn:1:end")
	call("undo", func(ctx context.Context, cl *commands.Auto) (string, error) {
		r, err := commands.Undo.Call(ctx, cl, commands.UndoArgs{})
		if err == nil && !r.Applied {
			t.Fatalf("undo: not applied: %s", r.FailureReason)
		}
		return entryOf(r, err)
	})
	// One undo: the second rewind is undone, the first is not.
	if read("a.txt") != "before\n" || read("b.txt") != "" {
		t.Fatalf("after one undo: a.txt %q, b.txt %q; want the state of the first rewind", read("a.txt"), read("b.txt"))
	}
	list, err := svc.List(context.Background(), commands.ListArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Rewinds) != 2 || list.Rewinds[0].Undone || !list.Rewinds[1].Undone || len(list.Turns) != 1 || len(list.Checkpoints) != 1 {
		t.Fatalf("after the lost answers: %d turns, %d checkpoints, rewinds %+v", len(list.Turns), len(list.Checkpoints), list.Rewinds)
	}
	// No false conflict: the next rewind goes through without force.
	rewind("turn:1:end")
	if read("a.txt") != "after\n" || read("b.txt") != "created\n" {
		t.Fatalf("after the last rewind: a.txt %q, b.txt %q", read("a.txt"), read("b.txt"))
	}
	data, _ := os.ReadFile(journal)
	if n := strings.Count(string(data), `"kind":"undo"`); n != 1 {
		t.Fatalf("%d undo entries; want 1", n)
	}
}

// entryOf is the entry a command's result names.
func entryOf(r any, err error) (string, error) {
	if err != nil {
		return "", err
	}
	b, _ := json.Marshal(r)
	var e struct{ Entry string }
	json.Unmarshal(b, &e)
	return e.Entry, nil
}

package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// lspServer is a language server running for a workspace, started as an
// editor starts it (rewind-lsp on stdio, one workspace folder, the
// workspace's store): command-line calls on the root go to it.
type lspServer struct {
	t     *testing.T
	proc  *os.Process
	stdin io.WriteCloser
	done  chan struct{} // closed when the process exited
}

// startServer starts a server for w and waits until it serves the store's
// socket.
func (w *ws) startServer() *lspServer {
	w.t.Helper()
	c := execBin(nil, "REWIND_LSP_HOME="+w.store+"-home")
	stdin, err := c.StdinPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	c.Stdout = io.Discard
	c.Stderr = io.Discard
	if os.Getenv("REWIND_TEST_SERVER_LOG") != "" {
		c.Stderr = os.Stderr
	}
	if err := c.Start(); err != nil {
		w.t.Fatal(err)
	}
	s := &lspServer{t: w.t, proc: c.Process, stdin: stdin, done: make(chan struct{})}
	go func() { c.Wait(); close(s.done) }()
	w.t.Cleanup(func() {
		if canStop {
			s.proc.Signal(sigCont) // a test may leave it stopped
		}
		stdin.Close()
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			s.proc.Kill()
			<-s.done
		}
	})
	uri := "file://" + w.root
	s.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"processId": os.Getpid(), "rootUri": uri, "capabilities": map[string]any{},
		"workspaceFolders":      []map[string]string{{"uri": uri, "name": filepath.Base(w.root)}},
		"initializationOptions": map[string]any{"storeDir": w.store},
	}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	sock := filepath.Join(w.store, "server.sock")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return s
		}
		select {
		case <-s.done:
			w.t.Fatal("the language server exited while starting")
		default:
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("the language server does not serve %s", sock)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// served checks that the command line's calls reach the server: only a
// server watches the workspace.
func (w *ws) served() {
	w.t.Helper()
	var st struct{ WatchMode string }
	w.okJSON(&st, "status")
	if st.WatchMode == "none" || st.WatchMode == "" {
		w.t.Fatalf("the command line does not reach the language server (status: watch mode %q)", st.WatchMode)
	}
}

func (s *lspServer) send(msg any) {
	body, _ := json.Marshal(msg)
	fmt.Fprintf(s.stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

// signal sends sig to the server.
func (s *lspServer) signal(sig syscall.Signal) {
	s.t.Helper()
	if (sig == sigStop || sig == sigCont) && !canStop {
		s.t.Skip("this system cannot stop a process and wake it (SIGSTOP)")
	}
	if err := s.proc.Signal(sig); err != nil {
		s.t.Fatalf("signal %v to the server: %v", sig, err)
	}
}

// kill kills the server with SIGKILL and waits for its end.
func (s *lspServer) kill() {
	s.proc.Signal(syscall.SIGKILL)
	<-s.done
}

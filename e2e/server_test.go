package e2e_test

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/wine"
)

// lspServer is a language server running for a workspace, started as an
// editor starts it (rewind-lsp on stdio, one workspace folder, the
// workspace's store): command-line calls on the root go to it.
type lspServer struct {
	t    *testing.T
	c    *testkit.Conn // the editor's end: it never answers the server's requests
	proc *os.Process
	done chan struct{} // closed when the process exited
}

// startServer starts a server for w and waits until it serves the store's
// socket.
func (w *ws) startServer() *lspServer {
	wine.Skip(w.t, "AF_UNIX sockets (WSAEAFNOSUPPORT): no server can serve the command line")
	w.t.Helper()
	srv, c := testkit.StartServer(w.Sandbox)
	s := &lspServer{t: w.t, c: c, proc: srv.Proc, done: make(chan struct{})}
	go func() { <-srv.Exit; close(s.done) }()
	// Runs before the server's own cleanup: a test may leave it stopped.
	w.t.Cleanup(func() {
		if canStop {
			s.proc.Signal(sigCont)
		}
	})
	uri := testkit.URI(w.Root)
	c.Start("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": uri, "capabilities": map[string]any{},
		"workspaceFolders":      []map[string]string{{"uri": uri, "name": filepath.Base(w.Root)}},
		"initializationOptions": map[string]any{"storeDir": w.Store},
	})
	c.Notify("initialized", map[string]any{})
	sock := filepath.Join(w.Store, "server.sock")
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

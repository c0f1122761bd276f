package testkit

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Server is a language server a test started: its input, its exit code
// and what it wrote to stderr.
type Server struct {
	In     io.WriteCloser
	Exit   chan int // receives the exit code once the server ended
	Stderr *LockedBuffer
	Proc   *os.Process // the binary's process; nil for a server in this process
}

// LockedBuffer is a bytes.Buffer safe for concurrent use.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StartServer starts the real binary with args (none: it serves LSP on
// stdio) in the sandbox's environment and home, and connects to it. At the
// test's end its input is closed and it gets 5 s to exit before it is
// killed; a data race it reports fails the test, and its stderr is logged
// when the test failed (REWIND_TEST_SERVER_LOG set: copied to this
// process's stderr as it comes).
func StartServer(s *Sandbox, args ...string) (*Server, *Conn) {
	t := s.T
	t.Helper()
	cmd := s.Command(args)
	cmd.Dir = s.Home
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	srv := &Server{In: stdin, Exit: make(chan int, 1), Stderr: &LockedBuffer{}}
	cmd.Stderr = srv.Stderr
	if os.Getenv("REWIND_TEST_SERVER_LOG") != "" {
		cmd.Stderr = io.MultiWriter(srv.Stderr, os.Stderr)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	srv.Proc = cmd.Process
	c := NewConn(stdout, stdin, func(err error) { t.Error(err) })
	exited := make(chan struct{})
	go func() {
		<-c.Closed()
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			code = -1
		}
		srv.Exit <- code
		close(exited)
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
		if strings.Contains(srv.Stderr.String(), "WARNING: DATA RACE") {
			t.Errorf("the server has a data race")
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", srv.Stderr.String())
		}
	})
	return srv, c
}

package lsp

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// inProcess is a server running in this test process, for tests that need
// the *Server itself.
type inProcess struct {
	*testkit.Server
	srv *Server
}

// startInProcess runs the server in this process over pipes.
func startInProcess(t testing.TB) (*inProcess, *testkit.Conn) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &inProcess{Server: &testkit.Server{In: inW, Exit: make(chan int, 1), Stderr: &testkit.LockedBuffer{}}}
	ready := make(chan *Server, 1)
	go func() {
		code := run(context.Background(), inR, outW, s.Stderr, func(srv *Server) {
			srv.verifyTimeout = 500 * time.Millisecond
			ready <- srv
		})
		outW.Close()
		s.Exit <- code
	}()
	s.srv = <-ready
	c := testkit.NewConn(outR, inW, func(err error) { t.Error(err) })
	t.Cleanup(func() {
		inW.Close()
		if t.Failed() {
			t.Logf("server log:\n%s", s.Stderr.String())
		}
	})
	return s, c
}

// editorApply applies edits the way the fake editor does (strict about
// positions), to check the server's edits against.
func editorApply(text string, edits []TextEdit, useUTF8 bool) (string, error) {
	kit := make([]testkit.TextEdit, len(edits))
	for i, te := range edits {
		kit[i] = testkit.TextEdit{Range: kitRange(te.Range), NewText: te.NewText}
	}
	return testkit.ApplyEdits(text, kit, useUTF8)
}

// kitRange is r as the fake editor's type.
func kitRange(r Range) testkit.Range {
	return testkit.Range{Start: testkit.Position(r.Start), End: testkit.Position(r.End)}
}

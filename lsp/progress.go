package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

var progressSeq atomic.Uint64

// startProgress reports work-done progress for a command that runs longer
// than progressDelay: with the client's token when it sent one, else with a
// token created by window/workDoneProgress/create when the client supports
// it. The returned stop ends the report; it never waits for the client.
func (s *Server) startProgress(ctx context.Context, token json.RawMessage, title string) (stop func()) {
	if len(token) == 0 || string(token) == "null" {
		token = nil
		if !s.progress {
			return func() {}
		}
	}
	var (
		mu    sync.Mutex
		done  bool
		begun bool
		tok   = token
	)
	cancel := make(chan struct{})
	go func() {
		select {
		case <-time.After(s.progressDelay):
		case <-cancel:
			return
		}
		if tok == nil {
			t, _ := json.Marshal(fmt.Sprintf("rewind-lsp/%d", progressSeq.Add(1)))
			cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
			err := s.conn.Call(cctx, "window/workDoneProgress/create", workDoneCreateParams{Token: t}, nil)
			ccancel()
			if err != nil {
				s.log.Printf("window/workDoneProgress/create: %v", err)
				return
			}
			tok = t
		}
		mu.Lock()
		defer mu.Unlock()
		if done {
			return
		}
		begun = true
		s.notifyProgress(tok, workDoneBegin{Kind: "begin", Title: title})
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(cancel)
			mu.Lock()
			defer mu.Unlock()
			done = true
			if begun {
				s.notifyProgress(tok, workDoneEnd{Kind: "end"})
			}
		})
	}
}

func (s *Server) notifyProgress(token json.RawMessage, value any) {
	if err := s.conn.Notify(s.baseCtx, "$/progress", progressParams{Token: token, Value: value}); err != nil {
		s.log.Printf("$/progress: %v", err)
	}
}

package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// lockedBuffer is a bytes.Buffer one goroutine writes and another reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestFollowTellsAnOperationReadWhilePending: a follower that reads the
// journal while a rewind is still pending (its files not written yet)
// tells the rewind once its done entry comes, instead of taking the
// pending entry as seen and skipping past its done entry.
func TestFollowTellsAnOperationReadWhilePending(t *testing.T) {
	j := journal.Open(t.TempDir())
	defer j.Close()
	appendAll := func(es ...*journal.Entry) {
		t.Helper()
		l, err := j.Lock()
		if err != nil {
			t.Fatal(err)
		}
		defer l.Unlock()
		if err := l.Append(es...); err != nil {
			t.Fatal(err)
		}
	}
	start := journal.NewTurnStart("", 1, "", journal.SourceCLI, journal.Snap{})
	start.Prompt = "one"
	end := journal.NewTurnEnd(start.ID, start, journal.Snap{}, nil)
	rw := journal.NewRewind(end.ID, "1", start.ID, journal.ModeCode)
	rw.Pending = true
	appendAll(start, end, rw)

	h, err := j.History()
	if err != nil {
		t.Fatal(err)
	}
	out := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	c := &cli{ctx: ctx, stdout: out}
	c.g.json = true
	done := make(chan error, 1)
	go func() { done <- c.followEvents(j, h, &eventPrinter{w: out, json: true}) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	// The follower began with the rewind pending, the journal's last entry.
	appendAll(journal.NewDone(rw, true, journal.Snap{}, ""))
	waitFor(t, out, `"kind":"rewind"`)
	if n := strings.Count(out.String(), `"kind":"rewind"`); n != 1 {
		t.Errorf("the rewind told %d times:\n%s", n, out)
	}
}

// waitFor waits, at most 5 s, until out holds want.
func waitFor(t *testing.T, out *lockedBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s the follower printed no %s:\n%s", want, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

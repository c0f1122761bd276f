package journal

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkStore measures, on a copy of a real store (the folder
// REWIND_LSP_BENCH_STORE names, e.g. one bench/history generated), what a
// new process pays to read the history and answer a command's usual
// questions, what a running server pays for a page of the listing, and
// what a session's first and latest entries cost
// (REWIND_LSP_BENCH_SESSION, default bench/history's own session).
func BenchmarkStore(b *testing.B) {
	src := os.Getenv("REWIND_LSP_BENCH_STORE")
	if src == "" {
		b.Skip("REWIND_LSP_BENCH_STORE names no store")
	}
	sid := os.Getenv("REWIND_LSP_BENCH_SESSION")
	if sid == "" {
		sid = "bench-history-session"
	}
	dir := filepath.Join(b.TempDir(), "store")
	if out, err := exec.Command("cp", "-a", src, dir).CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			j := Open(dir)
			h, err := j.History()
			if err != nil {
				b.Fatal(err)
			}
			h.OpenTurns()
			h.NextTurn()
			h.Newest()
			h.List(20, 0, false)
			j.Close()
		}
	})
	b.Run("page of 50 warm", func(b *testing.B) {
		j := Open(dir)
		defer j.Close()
		for b.Loop() {
			h, err := j.History()
			if err != nil {
				b.Fatal(err)
			}
			h.List(50, 0, false)
			h.TurnCount()
			h.Newest()
		}
	})
	b.Run("session ends", func(b *testing.B) {
		j := Open(dir)
		defer j.Close()
		for b.Loop() {
			h, err := j.History()
			if err != nil {
				b.Fatal(err)
			}
			h.SessionFirst(sid)
			h.SessionLast(sid, KindTurnStart)
		}
	})
	b.Run("session all", func(b *testing.B) {
		j := Open(dir)
		defer j.Close()
		for b.Loop() {
			h, err := j.History()
			if err != nil {
				b.Fatal(err)
			}
			h.Session(sid)
		}
	})
}

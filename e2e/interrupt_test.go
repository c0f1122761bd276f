package e2e_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigTurn makes n files, then a turn that changes all of them, so a rewind
// has many files to write.
func bigTurn(w *ws, n int) (before, after func(i int) string) {
	before = func(i int) string { return strings.Repeat(fmt.Sprintf("before %d\n", i), 20) }
	after = func(i int) string { return strings.Repeat(fmt.Sprintf("after %d\n", i), 30) }
	for i := 0; i < n; i++ {
		w.Write(fmt.Sprintf("d%d/f%d.txt", i%10, i), before(i))
	}
	w.turn("change all", func() {
		for i := 0; i < n; i++ {
			w.Write(fmt.Sprintf("d%d/f%d.txt", i%10, i), after(i))
		}
		w.Write("created/by/agent.txt", "new\n")
	})
	return before, after
}

// killAfterIntent starts the binary with args and kills it with SIGKILL
// once its operation is recorded as pending (plus a random delay), or when
// it ends by itself.
func killAfterIntent(t *testing.T, w *ws, r *rand.Rand, args ...string) (killed bool) {
	t.Helper()
	journal := filepath.Join(w.Store, "journal")
	start, _ := os.ReadFile(journal)
	c := w.Command(append([]string{"--root", w.Root, "--store", w.Store}, args...))
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	for {
		select {
		case <-done:
			return false
		case <-time.After(200 * time.Microsecond):
		}
		data, _ := os.ReadFile(journal)
		if len(data) > len(start) && bytes.Contains(data[len(start):], []byte(`"pending":true`)) {
			time.Sleep(time.Duration(r.Intn(40)) * time.Millisecond)
			c.Process.Signal(syscall.SIGKILL)
			<-done
			return true
		}
	}
}

func noTemps(t *testing.T, root string) {
	t.Helper()
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if fi != nil && strings.HasPrefix(fi.Name(), ".rewind-") {
			t.Errorf("temporary file left in the workspace: %s", p)
		}
		return nil
	})
}

// TestInterruptedRewindIsFinished: a rewind or undo killed after it was
// recorded is finished by the next command: the files are exactly the
// target, no temporary file stays, the rewind is listed as applied, the
// next rewind needs no --force (no false conflicts), and undo still works.
func TestInterruptedRewindIsFinished(t *testing.T) {
	const n = 300
	r := rand.New(rand.NewSource(7))
	tries := 6
	if testing.Short() {
		tries = 2
	}
	finished := 0
	for try := 0; try < tries; try++ {
		w := newWS(t)
		before, after := bigTurn(w, n)
		check := func(what string, want func(int) string, created bool) {
			t.Helper()
			for i := 0; i < n; i++ {
				if got := w.Read(fmt.Sprintf("d%d/f%d.txt", i%10, i)); got != want(i) {
					j, _ := os.ReadFile(filepath.Join(w.Store, "journal"))
					t.Fatalf("try %d, %s: f%d = %q\n%s", try, what, i, clip(got), j)
				}
			}
			if got := w.Read("created/by/agent.txt"); (got != "<missing>") != created {
				t.Fatalf("try %d, %s: created/by/agent.txt = %q", try, what, got)
			}
			if _, err := os.Stat(filepath.Join(w.Root, "created")); (err == nil) != created {
				var left []string
				filepath.Walk(filepath.Join(w.Root, "created"), func(p string, _ os.FileInfo, _ error) error { left = append(left, p); return nil })
				j, _ := os.ReadFile(filepath.Join(w.Store, "journal"))
				t.Fatalf("try %d, %s: the agent's folder: %v %v\n%s", try, what, err, left, j)
			}
			noTemps(t, w.Root)
		}
		if killAfterIntent(t, w, r, "rewind", "1") {
			finished++
		}
		w.ok("status") // any command finishes it
		check("rewind finished", before, false)
		var list struct {
			Rewinds []struct{ Applied, Undone bool }
		}
		w.okJSON(&list, "log")
		if len(list.Rewinds) != 1 || !list.Rewinds[0].Applied {
			t.Fatalf("try %d: the finished rewind is not listed as applied: %+v", try, list.Rewinds)
		}
		// An interrupted undo is finished the same way.
		killAfterIntent(t, w, r, "undo")
		w.ok("log")
		check("undo finished", after, true)
		// No false conflicts: a rewind without --force goes through.
		w.ok("rewind", "1")
		check("second rewind", before, false)
		w.ok("undo")
		check("undo", after, true)
	}
	t.Logf("%d of %d rewinds were killed half-way and finished", finished, tries)
	if finished == 0 {
		t.Fatal("no rewind was interrupted: the test did not test anything")
	}
}

package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestServerKilledMidForwardedCall: the
// command line forwards `rewind` (or `undo`) to a running server, which is
// stopped (SIGSTOP) once the operation changed its first file and killed
// (SIGKILL) before it answers. The command line runs the call itself under
// the same key: it finishes the server's operation instead of doing it a
// second time, so there is one rewind (one undo — an undo never undoes two
// rewinds), it exits 0 with the result, the tree is exactly the target, and
// nothing is a false conflict afterwards.
func TestServerKilledMidForwardedCall(t *testing.T) {
	for _, op := range []string{"rewind", "undo"} {
		t.Run(op, func(t *testing.T) {
			const n = 400
			w := newWS(t)
			before, after := bigTurn(w, n)
			check := func(what string, want func(int) string, created bool) {
				t.Helper()
				for i := 0; i < n; i++ {
					if got := w.Read(fmt.Sprintf("d%d/f%d.txt", i%10, i)); got != want(i) {
						t.Fatalf("%s: f%d = %q", what, i, clip(got))
					}
				}
				if got := w.Read("created/by/agent.txt"); (got != "<missing>") != created {
					t.Fatalf("%s: created/by/agent.txt = %q", what, got)
				}
				noTemps(t, w.Root)
			}
			args := []string{"--json", "rewind", "1"}
			kind := `"kind":"rewind"`
			if op == "undo" {
				// Two rewinds: an undo that ran twice would undo both.
				w.ok("rewind", "1")
				w.ok("rewind", "turn:1:end")
				args, kind = []string{"--json", "undo"}, `"kind":"undo"`
			}
			s := w.startServer()
			w.served()
			journal := filepath.Join(w.Store, "journal")
			start, _ := os.ReadFile(journal)
			p := w.spawn("", args...)
			// The operation's first change: the agent's file goes.
			agentFile := filepath.Join(w.Root, "created/by/agent.txt")
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Microsecond) {
				if _, err := os.Lstat(agentFile); err != nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the server did not start the %s", op)
				}
			}
			s.signal(sigStop)
			data, _ := os.ReadFile(journal)
			midway := !bytes.Contains(data[len(start):], []byte(`"kind":"done"`))
			select {
			case <-p.done:
				t.Fatalf("the command line had its answer before the server was stopped: the test did not test anything")
			default:
			}
			s.kill()
			p.wait(t, 30*time.Second, op+" after its server was killed")
			t.Logf("killed the server %s; the command line ended after %v", map[bool]string{true: "mid-way", false: "after it recorded the end"}[midway], p.took.Round(time.Millisecond))
			var res struct {
				Applied bool
				Entry   string
			}
			if p.code != 0 || json.Unmarshal(p.stdout.Bytes(), &res) != nil || !res.Applied || res.Entry == "" {
				t.Fatalf("%s whose server was killed: exit %d, stdout %s\nstderr: %s", op, p.code, p.stdout.String(), p.stderr.String())
			}
			check(op+" finished", before, false)
			data, _ = os.ReadFile(journal)
			if got := bytes.Count(data[len(start):], []byte(kind)); got != 1 {
				t.Fatalf("%d %s entries after the lost answer; want 1", got, op)
			}
			var list struct {
				Rewinds []struct{ Applied, Undone bool }
			}
			w.okJSON(&list, "log")
			last := list.Rewinds[len(list.Rewinds)-1]
			if op == "rewind" && (len(list.Rewinds) != 1 || !last.Applied || last.Undone) ||
				op == "undo" && (len(list.Rewinds) != 2 || !last.Undone || list.Rewinds[0].Undone) {
				t.Fatalf("rewinds after the lost answer: %+v", list.Rewinds)
			}
			// No false conflicts: undo and rewind go through without --force.
			w.ok("undo")
			check("undo", after, true)
			w.ok("rewind", "1")
			check("rewind", before, false)
		})
	}
}

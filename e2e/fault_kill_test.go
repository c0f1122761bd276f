package e2e_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInterruptedRevertIsFinished: a revert of one turn (of 300 files,
// with a later turn kept) killed after it was recorded is finished by the
// next command: turn 1's changes taken back exactly, turn 2's kept, no
// temporary file left, the revert listed as applied; an interrupted undo
// of it likewise; and the next revert needs no force (no false conflicts).
func TestInterruptedRevertIsFinished(t *testing.T) {
	const n = 300
	r := rand.New(rand.NewSource(11))
	tries := 6
	if testing.Short() {
		tries = 2
	}
	finished := 0
	for try := 0; try < tries; try++ {
		w := newWS(t)
		w.Write("later.txt", "before turn 2\n")
		before, after := bigTurn(w, n)
		w.turn("turn 2", func() { w.Write("later.txt", "written by turn 2\n") })
		check := func(what string, want func(int) string, created bool) {
			t.Helper()
			for i := 0; i < n; i++ {
				if got := w.Read(fmt.Sprintf("d%d/f%d.txt", i%10, i)); got != want(i) {
					t.Fatalf("try %d, %s: f%d = %q", try, what, i, clip(got))
				}
			}
			if got := w.Read("created/by/agent.txt"); (got != "<missing>") != created {
				t.Fatalf("try %d, %s: created/by/agent.txt = %q", try, what, got)
			}
			if got := w.Read("later.txt"); got != "written by turn 2\n" {
				t.Fatalf("try %d, %s: turn 2's file = %q", try, what, got)
			}
			noTemps(t, w.Root)
		}
		if killAfterIntent(t, w, r, "revert", "1") {
			finished++
		}
		w.ok("status")
		check("revert finished", before, false)
		var list struct {
			Rewinds []struct {
				Mode            string
				Applied, Undone bool
			}
		}
		w.okJSON(&list, "log")
		if len(list.Rewinds) != 1 || list.Rewinds[0].Mode != "revert" || !list.Rewinds[0].Applied {
			t.Fatalf("try %d: the finished revert is not listed as applied: %+v", try, list.Rewinds)
		}
		killAfterIntent(t, w, r, "undo")
		w.ok("log")
		check("undo finished", after, true)
		w.ok("revert", "1")
		check("second revert", before, false)
		w.ok("undo")
		check("undo", after, true)
		if r := w.run("fsck"); r.code != 0 {
			t.Fatalf("try %d: fsck: %s", try, r.stderr)
		}
	}
	t.Logf("%d of %d reverts were killed half-way and finished", finished, tries)
	if finished == 0 {
		t.Fatal("no revert was interrupted: the test did not test anything")
	}
}

// TestKillDuringMCPRewind: the agent's MCP connection (`rewind-lsp mcp`)
// is killed while its rewind to its checkpoint writes 300 files. The next
// command finishes the rewind: the files are exactly the checkpoint's, the
// rewind is listed as applied, and undo brings the agent's work back.
func TestKillDuringMCPRewind(t *testing.T) {
	const n = 300
	r := rand.New(rand.NewSource(5))
	tries := 4
	if testing.Short() {
		tries = 2
	}
	cp := func(i int) string { return strings.Repeat(fmt.Sprintf("at the checkpoint %d\n", i), 20) }
	agent := func(i int) string { return strings.Repeat(fmt.Sprintf("the agent's try %d\n", i), 30) }
	finished := 0
	for try := 0; try < tries; try++ {
		w := newWS(t)
		for i := 0; i < n; i++ {
			w.Write(fmt.Sprintf("d%d/f%d.txt", i%10, i), cp(i))
		}
		cmd := w.Command([]string{"--root", w.Root, "--store", w.Store, "mcp"})
		client := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "checkpoint", Arguments: map[string]any{"goal": "try something"}}); err != nil || res.IsError {
			t.Fatalf("checkpoint: %v %+v", err, res)
		}
		for i := 0; i < n; i++ {
			w.Write(fmt.Sprintf("d%d/f%d.txt", i%10, i), agent(i))
		}
		w.Write("made/by/the/agent.txt", "new\n")
		journal := filepath.Join(w.Store, "journal")
		start, _ := os.ReadFile(journal)
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "rewind", Arguments: map[string]any{"report": "that did not work"}})
			done <- err
		}()
		killed := false
	wait:
		for {
			select {
			case <-done:
				break wait
			case <-time.After(200 * time.Microsecond):
			}
			data, _ := os.ReadFile(journal)
			if len(data) > len(start) && strings.Contains(string(data[len(start):]), `"pending":true`) {
				time.Sleep(time.Duration(r.Intn(30)) * time.Millisecond)
				cmd.Process.Signal(syscall.SIGKILL)
				killed = true
				break
			}
		}
		cs.Close()
		if killed {
			finished++
		}
		w.ok("status") // finishes what the killed connection started
		for i := 0; i < n; i++ {
			if got := w.Read(fmt.Sprintf("d%d/f%d.txt", i%10, i)); got != cp(i) {
				t.Fatalf("try %d: f%d after the rewind was finished: %q", try, i, clip(got))
			}
		}
		if w.Exists("made/by/the/agent.txt") {
			t.Fatalf("try %d: the agent's new file survived the rewind", try)
		}
		noTemps(t, w.Root)
		var list struct {
			Rewinds []struct{ Applied bool }
		}
		w.okJSON(&list, "log")
		if len(list.Rewinds) != 1 || !list.Rewinds[0].Applied {
			t.Fatalf("try %d: the MCP rewind is not listed as applied: %+v", try, list.Rewinds)
		}
		w.ok("undo")
		for i := 0; i < n; i++ {
			if got := w.Read(fmt.Sprintf("d%d/f%d.txt", i%10, i)); got != agent(i) {
				t.Fatalf("try %d: f%d after undo: %q", try, i, clip(got))
			}
		}
		if r := w.run("fsck"); r.code != 0 {
			t.Fatalf("try %d: fsck: %s", try, r.stderr)
		}
	}
	t.Logf("%d of %d MCP rewinds were killed half-way and finished", finished, tries)
	if finished == 0 {
		t.Fatal("no MCP rewind was interrupted: the test did not test anything")
	}
}

// TestKillDuringRetention kills gc — retention dropping snapshots, then
// the repack that rewrites the packs without them — at random moments,
// with new turns in between. After every kill fsck is clean: nothing a
// journal entry still needs is gone (a snapshot gc dropped is marked so);
// the next gc finishes; and every turn end still kept rewinds exactly.
func TestKillDuringRetention(t *testing.T) {
	// No grace period: gc may rewrite packs and sweep objects just made.
	t.Setenv("REWIND_LSP_GC_GRACE", "0")
	w := newWS(t)
	const files = 40
	content := func(turn, i int) string {
		var b strings.Builder
		for j := 0; j < 100+i%100; j++ { // incompressible: packs of megabytes to rewrite
			fmt.Fprintf(&b, "turn %d file %d line %d: %x\n", turn, i, j, rand.Int63())
		}
		return b.String()
	}
	want := map[int]map[string]string{} // turn -> file -> content at its end
	turn := 0
	step := func() {
		turn++
		w.ok("turn", "start", "--prompt", fmt.Sprint("turn ", turn))
		st := map[string]string{}
		for i := 0; i < files; i++ {
			c := content(turn, i)
			w.Write(fmt.Sprintf("f%d.txt", i), c)
			st[fmt.Sprintf("f%d.txt", i)] = c
		}
		w.ok("turn", "end")
		want[turn] = st
	}
	for i := 0; i < 12; i++ {
		step()
	}
	t0 := time.Now()
	w.ok("gc", "--max-snapshots", "6")
	took := time.Since(t0)
	kills := 24
	if testing.Short() {
		kills = 8
	}
	r := rand.New(rand.NewSource(9))
	packs := func() int {
		p, _ := filepath.Glob(filepath.Join(w.Store, "objects", "packs", "pack-*.pack"))
		return len(p)
	}
	gcEntries := func() int {
		j, _ := os.ReadFile(filepath.Join(w.Store, "journal"))
		return strings.Count(string(j), `"kind":"gc"`)
	}
	// Where each kill landed: before gc recorded what it drops, between that
	// and the end of the repack (a merged pack written beside the old
	// ones), or after.
	landed := map[string]int{}
	killed := 0
	for k := 0; k < kills; k++ {
		step()
		step()
		p0, g0 := packs(), gcEntries()
		c := w.Command([]string{"--root", w.Root, "--store", w.Store, "gc", "--max-snapshots", "6"}, "REWIND_LSP_NO_SERVER=1")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case <-done:
		case <-time.After(time.Duration(r.Int63n(int64(took) + 1))):
			c.Process.Signal(syscall.SIGKILL)
			<-done
			if st, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && st.Signaled() {
				killed++
				switch {
				case gcEntries() == g0:
					landed["before dropping"]++
				case packs() > p0:
					landed["during the repack"]++
				default:
					landed["after the repack"]++
				}
			}
		}
		if res := w.run("fsck"); res.code != 0 {
			t.Fatalf("kill %d: fsck after gc was killed: exit %d\n%s", k, res.code, res.stderr)
		}
	}
	w.ok("gc", "--max-snapshots", "6")
	if res := w.run("fsck"); res.code != 0 || strings.Contains(res.stderr, "note:") {
		t.Fatalf("fsck after the last gc: exit %d\n%s", res.code, res.stderr)
	}
	var list struct {
		Turns []struct {
			Turn  int
			Ended string
		}
	}
	w.okJSON(&list, "log")
	kept := 0
	for _, tt := range list.Turns {
		res := w.run("rewind", fmt.Sprintf("turn:%d:end", tt.Turn), "--force")
		if res.code != 0 {
			if strings.Contains(res.stderr, "dropped by gc") {
				continue
			}
			t.Fatalf("rewind to the end of turn %d: exit %d\n%s", tt.Turn, res.code, res.stderr)
		}
		kept++
		for f, c := range want[tt.Turn] {
			if got := w.Read(f); got != c {
				t.Fatalf("after rewinding to the end of turn %d, %s = %q", tt.Turn, f, clip(got))
			}
		}
	}
	if kept < 6 {
		t.Fatalf("only %d turns could be rewound to; gc keeps 6", kept)
	}
	t.Logf("gc took %v; %d of %d runs were killed (%v); %d turns kept", took, killed, kills, landed, kept)
	if killed == 0 {
		t.Fatal("no gc was killed: the test did not test anything")
	}
}

package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestHookClaudeCode(t *testing.T) {
	w := newWS(t)
	w.Write("f", "before\n")
	sub := filepath.Join(w.Root, "sub")
	os.MkdirAll(sub, 0o755)
	ev := func(m map[string]any) string { b, _ := json.Marshal(m); return string(b) }
	hook := func(stdin string) result {
		t.Helper()
		// No --root: the event's cwd selects the root (its nearest .git
		// ancestor); the store comes from REWIND_LSP_HOME.
		c := w.Command([]string{"hook", "claude-code"}, "REWIND_LSP_HOME="+w.Store)
		c.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return result{code, out.String(), errb.String()}
	}
	os.Mkdir(filepath.Join(w.Root, ".git"), 0o755)
	for _, r := range []result{
		hook(ev(map[string]any{"hook_event_name": "SessionStart", "session_id": "s-1", "cwd": sub, "source": "startup"})),
		hook(ev(map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s-1", "cwd": sub, "prompt": "make it faster"})),
	} {
		if r.code != 0 || r.stdout != "" {
			t.Fatalf("hook: exit %d, stdout %q (must be 0 and empty), stderr %s", r.code, r.stdout, r.stderr)
		}
	}
	w.Write("f", "after\n")
	if r := hook(ev(map[string]any{"hook_event_name": "Stop", "session_id": "s-1", "cwd": sub})); r.code != 0 || r.stdout != "" {
		t.Fatalf("Stop: %+v", r)
	}
	// Read back through the same default store.
	c := w.Command([]string{"--root", w.Root, "--json", "log"}, "REWIND_LSP_HOME="+w.Store)
	out, err := c.Output()
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Turns []struct {
			Prompt, Source, Session, Ended string
			Changed                        []struct{ Path string }
		}
	}
	json.Unmarshal(out, &list)
	if len(list.Turns) != 1 || list.Turns[0].Prompt != "make it faster" || list.Turns[0].Source != "hook" ||
		list.Turns[0].Session != "s-1" || list.Turns[0].Ended == "" || len(list.Turns[0].Changed) != 1 {
		t.Fatalf("hook turn: %s", out)
	}
	// Garbage, unknown events, a missing cwd: exit 0, nothing on stdout.
	for _, in := range []string{"not json", `{"hook_event_name":"PreToolUse","cwd":"/"}`,
		ev(map[string]any{"hook_event_name": "UserPromptSubmit", "cwd": filepath.Join(w.Root, "gone")}), ""} {
		r := hook(in)
		if r.code != 0 || r.stdout != "" {
			t.Errorf("hook with %q: exit %d stdout %q", in, r.code, r.stdout)
		}
	}
	if r := hook("not json"); !strings.Contains(r.stderr, "not JSON") {
		t.Errorf("bad event not reported on stderr: %q", r.stderr)
	}
}

// TestConcurrentProcesses runs 8 processes appending turns and checkpoints
// to one root at once: every record is there once, the journal parses, and
// no turn number repeats on the active branch.
func TestConcurrentProcesses(t *testing.T) {
	w := newWS(t)
	w.Write("shared.txt", "0\n")
	const procs, rounds = 8, 4
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	errs := make(chan error, procs*rounds*3)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				for _, args := range [][]string{
					{"turn", "start", "--prompt", fmt.Sprintf("p%d-%d", p, i), "--session", fmt.Sprint("s", p)},
					{"checkpoint", fmt.Sprintf("c%d-%d", p, i)},
					{"turn", "end", "--session", fmt.Sprint("s", p)},
				} {
					os.WriteFile(filepath.Join(w.Root, fmt.Sprintf("f%d.txt", p)), []byte(fmt.Sprint(i, args[0])), 0o644)
					c := w.Command(append([]string{"--root", w.Root, "--store", w.Store, "--json"}, args...))
					out, err := c.Output()
					if err != nil {
						errs <- fmt.Errorf("%v: %v", args, err)
						continue
					}
					var r struct{ Entry string }
					if err := json.Unmarshal(out, &r); err != nil {
						errs <- fmt.Errorf("%v: %v: %s", args, err, out)
						continue
					}
					if r.Entry != "" {
						mu.Lock()
						ids = append(ids, r.Entry)
						mu.Unlock()
					}
				}
			}
		}(p)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data, err := os.ReadFile(filepath.Join(w.Store, "journal"))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for n, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var e struct{ ID string }
		if len(line) < 10 || json.Unmarshal([]byte(line[9:]), &e) != nil {
			t.Fatalf("journal line %d does not parse: %q", n+1, line)
		}
		count[e.ID]++
	}
	for _, id := range ids {
		if count[id] != 1 {
			t.Errorf("entry %s appears %d times", id, count[id])
		}
	}
	var list struct{ Turns []struct{ Turn int } }
	w.okJSON(&list, "log")
	seen := map[int]bool{}
	for _, tt := range list.Turns {
		if seen[tt.Turn] {
			t.Errorf("turn number %d repeats", tt.Turn)
		}
		seen[tt.Turn] = true
	}
	if len(list.Turns) != procs*rounds {
		t.Errorf("%d turns, want %d", len(list.Turns), procs*rounds)
	}
	if r := w.run("fsck"); r.code != 0 {
		t.Errorf("fsck after concurrent writers: %s", r.stderr)
	}
}

// TestCrashSafety kills the command line with SIGKILL at random moments of
// captures and rewinds; afterwards fsck is clean, every record whose command
// completed reads back, and a rewind is exact.
func TestCrashSafety(t *testing.T) {
	w := newWS(t)
	for i := 0; i < 400; i++ {
		w.Write(fmt.Sprintf("d%d/f%d.txt", i%20, i), strings.Repeat(fmt.Sprintf("line %d\n", i), 50+i%200))
	}
	w.ok("turn", "start", "--prompt", "base")
	w.ok("turn", "end")
	r := rand.New(rand.NewSource(1))
	kills := 200
	if testing.Short() {
		kills = 40
	}
	deadline := time.Now().Add(60 * time.Second)
	var completed []string
	for k := 0; k < kills && time.Now().Before(deadline); k++ {
		// Change some files so captures have work to do.
		for j := 0; j < 20; j++ {
			i := r.Intn(400)
			w.Write(fmt.Sprintf("d%d/f%d.txt", i%20, i), fmt.Sprintf("edit %d %d\n", k, j))
		}
		args := [][]string{{"checkpoint", fmt.Sprint("k", k)}, {"rewind", "1", "--force"}, {"turn", "start"}, {"undo", "--force"}}[r.Intn(4)]
		c := w.Command(append([]string{"--root", w.Root, "--store", w.Store, "--json"}, args...))
		var out bytes.Buffer
		c.Stdout = &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case err := <-done:
			var res struct{ Entry string }
			if err == nil && json.Unmarshal(out.Bytes(), &res) == nil && res.Entry != "" {
				completed = append(completed, res.Entry)
			}
		case <-time.After(time.Duration(r.Intn(150)) * time.Millisecond):
			c.Process.Signal(syscall.SIGKILL)
			<-done
		}
	}
	if r := w.run("fsck"); r.code != 0 {
		t.Fatalf("fsck after kills: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	journal, _ := os.ReadFile(filepath.Join(w.Store, "journal"))
	for _, id := range completed {
		if !bytes.Contains(journal, []byte(id)) {
			t.Errorf("completed entry %s is missing", id)
		}
	}
	t.Logf("%d commands completed, the others were killed", len(completed))
	// A rewind after all that is exact.
	w.ok("rewind", "1", "--force")
	for i := 0; i < 400; i++ {
		want := strings.Repeat(fmt.Sprintf("line %d\n", i), 50+i%200)
		if got := w.Read(fmt.Sprintf("d%d/f%d.txt", i%20, i)); got != want {
			t.Fatalf("f%d after rewind: %q", i, clip(got))
		}
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func TestDamagedStore(t *testing.T) {
	w := newWS(t)
	w.Write("f.txt", "original content\n")
	w.turn("t1", func() { w.Write("f.txt", "changed\n") })
	// Damage every stored object (flip its last byte).
	objs := []string{}
	filepath.Walk(filepath.Join(w.Store, "objects"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			objs = append(objs, p)
		}
		return nil
	})
	if len(objs) == 0 {
		t.Fatal("no objects")
	}
	for _, p := range objs {
		data, _ := os.ReadFile(p)
		data[len(data)-1] ^= 0xff
		os.Chmod(p, 0o600)
		os.WriteFile(p, data, 0o600)
	}
	r := w.run("fsck")
	if r.code != 1 || !strings.Contains(r.stderr, "damaged") || !strings.Contains(r.stderr, filepath.Join(w.Store, "objects")) {
		t.Fatalf("fsck of damaged objects: exit %d\n%s", r.code, r.stderr)
	}
	r = w.run("rewind", "1")
	if r.code == 0 || !strings.Contains(r.stderr, "damaged") {
		t.Fatalf("rewind needing a damaged object: exit %d %q", r.code, r.stderr)
	}
	if w.Read("f.txt") != "changed\n" {
		t.Fatalf("a failed rewind changed the file")
	}
}

func TestDamagedJournalLine(t *testing.T) {
	w := newWS(t)
	w.Write("f", "1\n")
	w.turn("a", func() { w.Write("f", "2\n") })
	w.turn("b", func() { w.Write("f", "3\n") })
	jp := filepath.Join(w.Store, "journal")
	data, _ := os.ReadFile(jp)
	lines := strings.SplitAfter(string(data), "\n")
	lines[1] = strings.Replace(lines[1], "turnEnd", "turnEnX", 1)
	os.WriteFile(jp, []byte(strings.Join(lines, "")), 0o600)
	r := w.run("fsck")
	if r.code != 1 || !strings.Contains(r.stderr, "line 2") {
		t.Fatalf("fsck of a damaged journal line: exit %d %q", r.code, r.stderr)
	}
	// A torn last record (a crash mid-write) is reported; the next append
	// sets it aside, and the damaged line 2 stays an error.
	torn := strings.Join(lines, "") + `1234abcd {"id":"torn`
	os.WriteFile(jp, []byte(torn), 0o600)
	if r := w.run("fsck"); r.code != 1 || !strings.Contains(r.stderr, "line 5") || !strings.Contains(r.stderr, "torn") {
		t.Fatalf("fsck of a torn last record: exit %d %q", r.code, r.stderr)
	}
	w.ok("checkpoint", "after-crash")
	if r := w.run("fsck"); r.code != 1 || !strings.Contains(r.stderr, "line 2") || strings.Contains(r.stderr, "line 5") {
		t.Fatalf("fsck after an append to a torn record: exit %d %q", r.code, r.stderr)
	}
	var list struct{ Turns []struct{ Prompt string } }
	w.okJSON(&list, "log")
	if len(list.Turns) != 2 {
		t.Fatalf("earlier records damaged: %+v", list)
	}
}

package e2e_test

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/testkit/wine"
)

// TestKilledWhileRecording: command-line turns, checkpoints and the
// journal's view written every few entries (so that segments are written
// and merged all the time), each process killed with SIGKILL at a random
// moment, 60 times: every command that finished is in the journal, fsck is
// clean after each round (the view agrees with the journal, or was built
// again) but for the torn last line of an append a kill cut off, which
// the next append sets aside, and a new process answers what the journal
// says.
func TestKilledWhileRecording(t *testing.T) {
	wine.Skip(t, "SIGKILL of a wine process leaves the Windows process to wineserver")
	t.Setenv("REWIND_LSP_VIEW_EVERY", "3")
	w := newWS(t)
	w.Write("f.txt", "0\n")
	r := rand.New(rand.NewSource(3))
	type done struct{ what, entry string }
	var finished []done
	killed := 0
	kills := 60
	if testing.Short() {
		kills = 20
	}
	for i := 0; killed < kills && i < kills*4; i++ {
		w.Write("f.txt", strings.Repeat("x", i%7)+"\n")
		args := [][]string{{"turn", "start", "--prompt", "p"}, {"turn", "end"}, {"checkpoint", "c"}}[i%3]
		p := w.spawn("", append([]string{"--json"}, args...)...)
		time.Sleep(time.Duration(r.Intn(45)) * time.Millisecond)
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.wait(t, 10*time.Second, strings.Join(args, " "))
		if p.code == -1 {
			killed++
		} else if p.code == 0 {
			var out struct{ Entry string }
			if json.Unmarshal(p.stdout.Bytes(), &out) == nil && out.Entry != "" {
				finished = append(finished, done{strings.Join(args, " "), out.Entry})
			}
		}
		if i%10 == 9 {
			res := w.run("fsck")
			if res.code != 0 {
				// The one damage a kill may leave is the torn last line of
				// the append it cut off, which the next append sets aside.
				if strings.Count(res.stdout+res.stderr, "damaged:") != 1 || !strings.Contains(res.stdout+res.stderr, "torn last line") {
					t.Fatalf("fsck after %d kills: exit %d\n%s%s", killed, res.code, res.stdout, res.stderr)
				}
				w.ok("checkpoint", "after-a-torn-line")
				if res := w.run("fsck"); res.code != 0 {
					t.Fatalf("fsck after the append that follows a torn line: exit %d\n%s%s", res.code, res.stdout, res.stderr)
				}
			}
		}
	}
	if killed < kills/2 {
		t.Fatalf("only %d processes were killed before they finished", killed)
	}
	// Every finished command's entry is in the journal, as read by a new
	// process through its view.
	var log struct {
		Turns []struct {
			Entry string
			Ended string
		}
		Checkpoints []struct{ Entry string }
	}
	w.okJSON(&log, "log", "--all")
	have := map[string]bool{}
	for _, tu := range log.Turns {
		have[tu.Entry] = true
	}
	for _, c := range log.Checkpoints {
		have[c.Entry] = true
	}
	ends := 0
	for _, f := range finished {
		if f.what == "turn end" {
			ends++ // an end is listed with its turn
			continue
		}
		if !have[f.entry] {
			t.Fatalf("%s finished as %s, but the journal lists no such entry", f.what, f.entry)
		}
	}
	if res := w.run("fsck"); res.code != 0 {
		t.Fatalf("fsck at the end: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	segs, _ := filepath.Glob(filepath.Join(w.Store, "view", "seg-*"))
	t.Logf("%d processes killed, %d finished (%d turn ends); %d entries listed; %d segment files", killed, len(finished), ends, len(have), len(segs))
	if len(segs) == 0 {
		t.Fatal("no view was ever written: the test did not test its writes")
	}
}

// TestServerKilledWhileRecording: a language server records the command
// line's turns (forwarded over its socket) and writes the journal's view
// every few entries; it is killed with SIGKILL at a random moment while a
// turn is under way, 25 times, a new server started after each: every
// command that finished is in the journal, and fsck is clean.
func TestServerKilledWhileRecording(t *testing.T) {
	wine.Skip(t, "AF_UNIX sockets (WSAEAFNOSUPPORT): no server can serve the command line")
	t.Setenv("REWIND_LSP_VIEW_EVERY", "3")
	w := newWS(t)
	w.Write("f.txt", "0\n")
	r := rand.New(rand.NewSource(5))
	var entries []string
	kills := 25
	if testing.Short() {
		kills = 8
	}
	for k := 0; k < kills; k++ {
		srv := w.startServer()
		for i := 0; i < 3; i++ { // a few turns the server records whole
			w.Write("f.txt", strings.Repeat("s", k*3+i)+"\n")
			var out struct{ Entry string }
			w.okJSON(&out, "turn", "start", "--prompt", "through the server")
			entries = append(entries, out.Entry)
			w.ok("turn", "end")
		}
		// The kill lands while a turn start runs through it.
		p := w.spawn("", "--json", "turn", "start", "--prompt", "killed")
		time.Sleep(time.Duration(r.Intn(30)) * time.Millisecond)
		srv.kill()
		p.wait(t, 10*time.Second, "a turn start whose server was killed")
		var out struct{ Entry string }
		if p.code == 0 && json.Unmarshal(p.stdout.Bytes(), &out) == nil && out.Entry != "" {
			entries = append(entries, out.Entry) // answered, or run alone after the server went
		}
		w.run("turn", "end")
		if res := w.run("fsck"); res.code != 0 {
			t.Fatalf("fsck after %d server kills: exit %d\n%s%s", k+1, res.code, res.stdout, res.stderr)
		}
	}
	var log struct{ Turns []struct{ Entry string } }
	w.okJSON(&log, "log", "--all")
	have := map[string]bool{}
	for _, tu := range log.Turns {
		have[tu.Entry] = true
	}
	for _, e := range entries {
		if !have[e] {
			t.Fatalf("turn %s was answered, but the journal lists no such entry", e)
		}
	}
	segs, _ := filepath.Glob(filepath.Join(w.Store, "view", "seg-*"))
	t.Logf("%d server kills; %d turns answered and listed; %d segment files", kills, len(entries), len(segs))
}

// TestViewFilesDamagedCommandsAnswerTheSame: every file of the store but
// the journal and the objects — the view's segments and manifest, the stat
// cache, the retention note, the lock files, the root note — removed, cut,
// or filled with garbage: status, log, diff, rewind and undo answer exactly
// as before, and fsck is clean.
func TestViewFilesDamagedCommandsAnswerTheSame(t *testing.T) {
	t.Setenv("REWIND_LSP_VIEW_EVERY", "4")
	base := newWS(t)
	for i := 0; i < 12; i++ {
		base.turn("turn "+string(rune('a'+i)), func() { base.Write("f.txt", strings.Repeat("y", i)+"\n") })
		if i%4 == 0 {
			base.ok("checkpoint", "c"+string(rune('a'+i)))
		}
	}
	answers := func(w *ws) string {
		t.Helper()
		var b strings.Builder
		for _, args := range [][]string{{"log", "--all"}, {"log", "--limit", "3", "--before", "9"}, {"diff", "3"}} {
			b.WriteString(w.ok(append([]string{"--json"}, args...)...).stdout)
		}
		var st map[string]any
		w.okJSON(&st, "status")
		delete(st, "lastCaptureMs")
		delete(st, "storeBytes")
		js, _ := json.Marshal(st)
		b.Write(js)
		// The same answers, but for where the root and its store are, and
		// how long ago things happened.
		out := strings.NewReplacer(w.Root, "ROOT", w.Store, "STORE").Replace(b.String())
		return ages.ReplaceAllString(out, `"age": "…"`)
	}
	want := answers(base)
	damage := map[string]func(string){
		"removed": func(p string) { os.Remove(p) },
		"cut":     func(p string) { fi, _ := os.Stat(p); os.Truncate(p, fi.Size()/2) },
		"garbage": func(p string) {
			fi, _ := os.Stat(p)
			os.WriteFile(p, []byte(strings.Repeat("\x07garbage", int(fi.Size())/8+1)), 0o600)
		},
	}
	for how, do := range damage {
		t.Run(how, func(t *testing.T) {
			w := newWS(t)
			os.RemoveAll(w.Root)
			os.RemoveAll(w.Store)
			copyTree(t, base.Root, w.Root)
			copyTree(t, base.Store, w.Store)
			filepath.WalkDir(w.Store, func(p string, d os.DirEntry, err error) error {
				rel, _ := filepath.Rel(w.Store, p)
				if err != nil || d.IsDir() || rel == "journal" || strings.HasPrefix(rel, "objects"+string(filepath.Separator)) {
					return nil
				}
				do(p)
				return nil
			})
			if got := answers(w); got != want {
				t.Fatalf("answers differ after every store file but the journal and objects was %s: %s", how, lineDiff(got, want))
			}
			if res := w.run("fsck"); res.code != 0 {
				t.Fatalf("fsck: exit %d\n%s%s", res.code, res.stdout, res.stderr)
			}
			// An operation goes through as before, and is undone.
			w.ok("rewind", "2")
			if got := w.Read("f.txt"); got != "\n" { // turn 2 starts where turn 1 (i = 0) left it
				t.Fatalf("f.txt after the rewind to turn 2: %q", got)
			}
			w.ok("undo")
			if got, was := w.Read("f.txt"), base.Read("f.txt"); got != was {
				t.Fatalf("f.txt after the undo: %q, want %q", got, was)
			}
		})
	}
}

var ages = regexp.MustCompile(`"age": "[^"]*"`)

// copyTree copies folder src to dst (files and folders).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		if d.Type()&os.ModeSymlink != 0 {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		return os.WriteFile(target, data, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// lineDiff shows where two answers part.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  got:  " + g[i] + "\n  want: " + w[i]
		}
	}
	return "lengths " + strconv.Itoa(len(g)) + " and " + strconv.Itoa(len(w))
}

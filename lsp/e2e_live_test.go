package lsp

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// Live capture: the server sees disk changes itself,
// groups an agent's into automatic turns, and never mistakes the person's
// saves or its own rewinds for agent work.

// startLive starts the real binary on w with a short quiet period and waits
// until it watches the root.
func startLive(t *testing.T, w *testkit.Sandbox, options map[string]any) *testkit.Editor {
	t.Helper()
	srv, c := testkit.StartServer(w)
	e := testkit.NewEditor(t, c, testkit.VSCodeLike)
	e.Server = srv
	opts := map[string]any{"storeDir": w.Store, "autoTurnQuietMs": 400}
	for k, v := range options {
		opts[k] = v
	}
	e.Initialize([]string{w.Root}, opts)
	return e
}

// list is rewind.list.
func list(e *testkit.Editor) commands.ListResult {
	e.T.Helper()
	var l commands.ListResult
	e.MustCmd(commands.NameList, map[string]any{}, &l)
	return l
}

// waitTurns waits until the active branch holds n turns, all ended.
func waitTurns(e *testkit.Editor, n int) []commands.TurnInfo {
	e.T.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		l := list(e)
		if len(l.Turns) == n && (n == 0 || l.Turns[n-1].Ended != "") {
			return l.Turns
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.T.Fatalf("waited for %d ended turns; have %+v", n, list(e).Turns)
	return nil
}

func changedPaths(ti commands.TurnInfo) map[string]fileop.Change {
	m := map[string]fileop.Change{}
	for _, c := range ti.Changed {
		m[c.Path] = c.Change
	}
	return m
}

// waitReady waits for the server's first capture (watching or polling).
func waitReady(e *testkit.Editor, want string) commands.StatusResult {
	e.T.Helper()
	var st commands.StatusResult
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		e.MustCmd(commands.NameStatus, map[string]any{}, &st)
		if st.WatchMode == want {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.T.Fatalf("status: watchMode %q, want %q", st.WatchMode, want)
	return st
}

func TestLiveAutoTurnFromAnotherProcess(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("keep.txt", "before\n")
	w.Write("gone.txt", "the agent deletes me\n")
	w.Write("old.txt", "the agent renames me\n")
	before := w.State()
	e := startLive(t, w, nil)
	st := waitReady(e, "watch")
	if !st.Watching {
		t.Fatalf("status.watching false while watching: %+v", st)
	}
	// An agent with no hooks: a separate process edits, deletes, renames
	// and fills a new folder.
	agent := exec.Command("sh", "-c", "echo after > keep.txt; rm gone.txt; mv old.txt new.txt; mkdir -p made/deep; echo x > made/deep/f.txt")
	agent.Dir = w.Root
	if out, err := agent.CombinedOutput(); err != nil {
		t.Fatalf("agent: %v %s", err, out)
	}
	turns := waitTurns(e, 1)
	if turns[0].Source != journal.SourceAuto {
		t.Errorf("source %q, want auto", turns[0].Source)
	}
	want := map[string]string{"keep.txt": "modify", "gone.txt": "delete", "old.txt": "delete", "new.txt": "create", "made/deep/f.txt": "create"}
	if got := changedPaths(turns[0]); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("auto turn changed %v, want %v", got, want)
	}
	// Its start is the state before the first write.
	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	if !rr.Applied {
		t.Fatalf("rewind: %s", rr.FailureReason)
	}
	e.SaveAll()
	w.WantState(before, "after rewinding the auto turn")
	// The rewind's own writes and the editor's echoes are no turn.
	time.Sleep(time.Second)
	if l := list(e); len(l.Turns) != 1 {
		t.Fatalf("turns after the rewind: %+v", l.Turns)
	}
}

func TestLiveEditorSavesAreNoTurn(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("notes.md", "# notes\n")
	e := startLive(t, w, nil)
	waitReady(e, "watch")
	e.Open(w.Abs("notes.md"))
	e.TypeText(w.Abs("notes.md"), kitRange(Range{Position{1, 0}, Position{1, 0}}), "typed by the person\n")
	e.SaveAll()
	time.Sleep(1500 * time.Millisecond)
	if l := list(e); len(l.Turns) != 0 {
		t.Fatalf("an editor save became a turn: %+v", l.Turns)
	}
}

func TestLiveHookTurnSuppressesAutoTurns(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "a\n")
	e := startLive(t, w, nil)
	waitReady(e, "watch")
	w.MustRun("turn", "start", "--prompt", "from a hook")
	w.Write("a.txt", "changed by the agent\n")
	w.Write("dir/new/file.txt", "a folder made during the turn\n")
	time.Sleep(1200 * time.Millisecond) // well past the quiet period
	l := list(e)
	if len(l.Turns) != 1 || l.Turns[0].Ended != "" || l.Turns[0].Source != journal.SourceCLI {
		t.Fatalf("turns while a hook turn is open: %+v", l.Turns)
	}
	w.MustRun("turn", "end")
	turns := waitTurns(e, 1)
	want := map[string]string{"a.txt": "modify", "dir/new/file.txt": "create"}
	if got := changedPaths(turns[0]); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("hook turn changed %v, want %v", got, want)
	}
}

func TestLivePollingFallback(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("a/x.txt", "x\n")
	w.Write("b/y.txt", "y\n")
	e := startLive(t, w, map[string]any{"maxWatches": 1, "pollIntervalMs": 150})
	st := waitReady(e, "poll")
	if st.Watching {
		t.Fatalf("watching true while polling: %+v", st)
	}
	if !strings.Contains(st.PollReason, "too many folders") {
		t.Errorf("status pollReason %q: want why it polls", st.PollReason)
	}
	// The command line's status (answered by the server) says so too.
	if out := w.MustRun("status"); !strings.Contains(out, "rescans the root") || !strings.Contains(out, "too many folders") {
		t.Errorf("rewind-lsp status while the server polls:\n%s", out)
	}
	if m, _ := e.Conn.WaitNotification("window/logMessage", 0, 5*time.Second, nil); m == nil {
		t.Error("no window/logMessage about the fallback")
	}
	w.Write("b/y.txt", "changed\n")
	turns := waitTurns(e, 1)
	if got := changedPaths(turns[0]); got["b/y.txt"] != fileop.Modify || len(got) != 1 {
		t.Fatalf("polled auto turn: %v", got)
	}
}

// TestLiveTwoServersAndCommandLine: two editors' servers on one root and a
// loop of command-line turns at once: the journal stays consistent, turn
// numbers are unique, and both servers tell their editors.
func TestLiveTwoServersAndCommandLine(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("f.txt", "0\n")
	e1 := startLive(t, w, nil)
	e2 := startLive(t, w, nil)
	waitReady(e1, "watch")
	waitReady(e2, "watch")
	mark1, mark2 := e1.Conn.NotifCount(), e2.Conn.NotifCount()
	const n = 6
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		w.MustRun("turn", "start", "--prompt", fmt.Sprint("cli turn ", i))
		w.Write("f.txt", fmt.Sprint(i+1, "\n"))
		// The editors make checkpoints meanwhile.
		wg.Add(2)
		go func() { defer wg.Done(); e1.Cmd(commands.NameCheckpoint, map[string]any{}, nil) }()
		go func() { defer wg.Done(); e2.Cmd(commands.NameCheckpoint, map[string]any{}, nil) }()
		w.MustRun("turn", "end")
		wg.Wait()
	}
	for _, e := range []*testkit.Editor{e1, e2} {
		if m, _ := e.Conn.WaitNotification("rewind/didChange", map[*testkit.Editor]int{e1: mark1, e2: mark2}[e], didChangeWait, nil); m == nil {
			t.Error("a server did not send rewind/didChange")
		}
	}
	time.Sleep(time.Second) // past the quiet period: no stray auto turn
	l := list(e1)
	nums := map[int]bool{}
	for _, tt := range l.Turns {
		if nums[tt.Turn] {
			t.Errorf("turn number %d twice", tt.Turn)
		}
		nums[tt.Turn] = true
		if tt.Source == journal.SourceAuto {
			t.Errorf("an automatic turn during command-line turns: %+v", tt)
		}
	}
	if len(l.Turns) != n || len(l.Checkpoints) != 2*n {
		t.Fatalf("%d turns, %d checkpoints; want %d, %d", len(l.Turns), len(l.Checkpoints), n, 2*n)
	}
	out := w.MustRun("fsck")
	if out == "" {
		t.Fatal("fsck printed nothing")
	}
	var paths []string
	for _, tt := range l.Turns {
		for _, c := range tt.Changed {
			paths = append(paths, c.Path)
		}
	}
	sort.Strings(paths)
	if len(paths) != n {
		t.Errorf("each turn should change f.txt once: %v\n%s", paths, jsonStr(l.Turns))
	}
}

// TestLiveEditorSideFilesAreNoTurn: files editors write beside the ones a
// person edits are never captured, never a turn, never a conflict. Emacs
// edits notes.txt: its lock link appears, the person types
// for a while, the save writes a backup and the file and drops the
// auto-save and the lock; Vim's swap file and its 4913 probe come and go.
// That is at most one automatic turn, holding notes.txt only, and
// rewinding it meets no conflict while a new lock is there.
func TestLiveEditorSideFilesAreNoTurn(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("notes.txt", "first\n")
	e := startLive(t, w, nil)
	waitReady(e, "watch")
	lock := w.Abs(".#notes.txt")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("person@host.4242:1700000000", lock))
	w.WriteMode(".notes.txt.swp", "vim swap", 0o600)
	w.Write("#notes.txt#", "auto-saved\n")
	time.Sleep(700 * time.Millisecond) // typing, past the quiet period
	w.Write("4913", "")
	must(os.Remove(w.Abs("4913")))
	must(os.Rename(w.Abs("notes.txt"), w.Abs("notes.txt~")))
	w.Write("notes.txt", "second\n")
	must(os.Remove(w.Abs("#notes.txt#")))
	must(os.Remove(lock))
	w.WriteMode(".notes.txt.swp", "vim swap, updated", 0o600)
	time.Sleep(1200 * time.Millisecond) // past the quiet period
	turns := waitTurns(e, 1)
	if got := changedPaths(turns[0]); len(got) != 1 || got["notes.txt"] != fileop.Modify {
		t.Fatalf("the automatic turn changed %v; want notes.txt only", got)
	}
	// The person types again: a new lock, then a rewind of the turn.
	must(os.Symlink("person@host.4242:1700000001", lock))
	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	if !rr.Applied {
		t.Fatalf("rewind: %s (plan %+v)", rr.FailureReason, rr.Plan)
	}
	for _, f := range rr.Plan.Files {
		if f.Path != "notes.txt" || f.Conflict {
			t.Errorf("the rewind touches %+v; want notes.txt only, no conflict", f)
		}
	}
	e.SaveAll()
	if data, err := os.ReadFile(w.Abs("notes.txt")); err != nil || string(data) != "first\n" {
		t.Fatalf("notes.txt after the rewind: %q %v", data, err)
	}
	for _, side := range []string{".#notes.txt", ".notes.txt.swp", "notes.txt~"} {
		if _, err := os.Lstat(w.Abs(side)); err != nil {
			t.Errorf("the rewind removed %s: %v", side, err)
		}
	}
	time.Sleep(time.Second)
	if l := list(e); len(l.Turns) != 1 {
		t.Fatalf("turns: %+v; want the one automatic turn", l.Turns)
	}
}

package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/testkit"
)

func TestTurnLogDiffRewindUndo(t *testing.T) {
	w := newWS(t)
	w.Write("a.txt", "one\n")
	w.turn("add b", func() { w.Write("b.txt", "bee\n"); w.Write("a.txt", "one\ntwo\n") })
	w.turn("drop a", func() { os.Remove(filepath.Join(w.Root, "a.txt")) })

	var list struct {
		Turns []struct {
			Turn    int
			Prompt  string
			Source  string
			Changed []struct {
				Path, Change   string
				Added, Removed int
			}
		}
	}
	w.okJSON(&list, "log")
	if len(list.Turns) != 2 || list.Turns[0].Prompt != "add b" || list.Turns[1].Turn != 2 {
		t.Fatalf("log: %+v", list)
	}
	if c := list.Turns[0].Changed; len(c) != 2 || c[0].Path != "a.txt" || c[0].Change != "modify" || c[0].Added != 1 || c[1].Change != "create" {
		t.Fatalf("turn 1 changed: %+v", c)
	}
	if list.Turns[0].Source != "cli" {
		t.Errorf("source %q, want cli", list.Turns[0].Source)
	}
	human := w.ok("log").stdout
	if !strings.Contains(human, "Turn 1: add b — 2 files changed") {
		t.Errorf("human log lacks the prompt or counts:\n%s", human)
	}

	d := w.ok("diff", "1").stdout
	if !strings.Contains(d, "--- a/a.txt") && !strings.Contains(d, "+++ b/a.txt") {
		t.Errorf("diff lacks a.txt:\n%s", d)
	}
	if !strings.Contains(d, "--- a/b.txt\n+++ /dev/null") {
		t.Errorf("diff does not delete b.txt:\n%s", d)
	}

	var dry struct {
		Target struct{ Turn int }
		Files  []struct{ Path, Change, Via string }
	}
	w.okJSON(&dry, "rewind", "1", "--dry-run")
	if dry.Target.Turn != 1 || len(dry.Files) != 2 || w.Read("b.txt") != "bee\n" {
		t.Fatalf("dry run: %+v (and it must change nothing)", dry)
	}

	var res struct {
		Applied bool
		Entry   string
		Plan    struct{ Files []struct{ Path string } }
	}
	w.okJSON(&res, "rewind", "1")
	if !res.Applied || res.Entry == "" || w.Read("a.txt") != "one\n" || w.Read("b.txt") != "<missing>" {
		t.Fatalf("rewind 1: %+v; a=%q b=%q", res, w.Read("a.txt"), w.Read("b.txt"))
	}
	w.ok("undo")
	if w.Read("a.txt") != "<missing>" || w.Read("b.txt") != "bee\n" {
		t.Fatalf("undo: a=%q b=%q", w.Read("a.txt"), w.Read("b.txt"))
	}
	// With no rewind left, undo undoes the undo (a redo): the rewound
	// state comes back, and undo again takes it back once more.
	w.ok("undo")
	if w.Read("a.txt") != "one\n" || w.Read("b.txt") != "<missing>" {
		t.Fatalf("second undo (redo): a=%q b=%q", w.Read("a.txt"), w.Read("b.txt"))
	}
	w.ok("undo")
	if w.Read("a.txt") != "<missing>" || w.Read("b.txt") != "bee\n" {
		t.Fatalf("third undo: a=%q b=%q", w.Read("a.txt"), w.Read("b.txt"))
	}
	// turn:N:end and ~N targets.
	w.ok("rewind", "turn:1:end")
	if w.Read("a.txt") != "one\ntwo\n" {
		t.Fatalf("turn:1:end: a=%q", w.Read("a.txt"))
	}
	w.ok("rewind", "~2")
	if w.Read("a.txt") != "one\n" || w.Read("b.txt") != "<missing>" {
		t.Fatalf("~2 (start of turn 1): a=%q b=%q", w.Read("a.txt"), w.Read("b.txt"))
	}
	// Undo twice: undoes ~2, then turn:1:end.
	w.ok("undo")
	if w.Read("a.txt") != "one\ntwo\n" {
		t.Fatalf("first undo: a=%q", w.Read("a.txt"))
	}
	w.ok("undo")
	if w.Read("a.txt") != "<missing>" {
		t.Fatalf("two undos should be back at the end of turn 2, a=%q", w.Read("a.txt"))
	}
}

func TestConflictRefusedThenForced(t *testing.T) {
	w := newWS(t)
	w.Write("f.txt", "v1\n")
	w.turn("edit", func() { w.Write("f.txt", "v2\n") })
	w.Write("f.txt", "my own edit\n") // the person's edit, outside a turn
	r := w.run("rewind", "1")
	if r.code != 3 || !strings.Contains(r.stderr, "f.txt") || !strings.Contains(r.stderr, "conflict") {
		t.Fatalf("conflict: exit %d, stderr %s", r.code, r.stderr)
	}
	if w.Read("f.txt") != "my own edit\n" {
		t.Fatal("a refused rewind changed the file")
	}
	w.ok("rewind", "1", "--force")
	if w.Read("f.txt") != "v1\n" {
		t.Fatalf("forced rewind: %q", w.Read("f.txt"))
	}
	w.ok("undo")
	if w.Read("f.txt") != "my own edit\n" {
		t.Fatalf("undo must bring back the person's edit, got %q", w.Read("f.txt"))
	}
}

func TestConversationModesAndCheckpoints(t *testing.T) {
	w := newWS(t)
	w.Write("f", "0\n")
	w.turn("one", func() { w.Write("f", "1\n") })
	w.ok("checkpoint", "good", "--goal", "before two")
	w.turn("two", func() { w.Write("f", "2\n") })
	w.turn("three", func() { w.Write("f", "3\n") })

	// conversation: files unchanged, leaf moves back; the next turn is 2 again.
	var res struct {
		Applied bool
		Plan    struct {
			Conversation struct{ EntriesAffected int }
		}
	}
	w.okJSON(&res, "rewind", "2", "--mode", "conversation", "--report", "two was a dead end")
	if !res.Applied || w.Read("f") != "3\n" || res.Plan.Conversation.EntriesAffected == 0 {
		t.Fatalf("conversation rewind: %+v f=%q", res, w.Read("f"))
	}
	var list struct {
		Turns []struct {
			Turn      int
			Prompt    string
			Abandoned bool
		}
	}
	w.okJSON(&list, "log")
	if len(list.Turns) != 1 || list.Turns[0].Prompt != "one" {
		t.Fatalf("active branch after conversation rewind: %+v", list.Turns)
	}
	w.turn("two again", func() { w.Write("f", "2b\n") })
	w.okJSON(&list, "log", "--all")
	n2 := 0
	for _, tt := range list.Turns {
		if tt.Turn == 2 {
			n2++
		}
	}
	if len(list.Turns) != 4 || n2 != 2 {
		t.Fatalf("all branches: %+v", list.Turns)
	}
	// A checkpoint target, both mode.
	w.ok("rewind", "@good", "--mode", "both")
	if w.Read("f") != "1\n" {
		t.Fatalf("@good: f=%q", w.Read("f"))
	}
	// summarize: nothing changes but a summary is kept; plan: dry.
	w.ok("rewind", "1", "--mode", "summarize", "--report", "learnt X")
	w.ok("rewind", "1", "--mode", "plan")
	if w.Read("f") != "1\n" {
		t.Fatalf("summarize/plan changed files: f=%q", w.Read("f"))
	}
	// Undo the both-rewind: the files and the conversation come back.
	w.ok("undo")
	if w.Read("f") != "2b\n" {
		t.Fatalf("undo of both: f=%q", w.Read("f"))
	}
	w.okJSON(&list, "log")
	if len(list.Turns) != 2 || list.Turns[1].Prompt != "two again" {
		t.Fatalf("branch after undo: %+v", list.Turns)
	}
	// The log names each of them in the server's words.
	human := w.ok("log").stdout
	for _, want := range []string{"Checkpoint @good: before two\n", "Rewind to turn 2 (two), conversation only\n",
		"Report since turn 2 (two):\n    two was a dead end\n", "Rewind to checkpoint @good, code and conversation — undone\n"} {
		if !strings.Contains(human, want) {
			t.Errorf("log lacks %q:\n%s", want, human)
		}
	}
}

func TestExitCodesAndErrors(t *testing.T) {
	w := newWS(t)
	w.Write("f", "x\n")
	w.turn("t", func() { w.Write("f", "y\n") })
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"rewind"}, 2, "usage"},
		{[]string{"rewind", "1", "--bogus"}, 2, "bogus"},
		{[]string{"rewind", "1", "--mode", "sideways"}, 2, "mode"},
		{[]string{"rewind", "99"}, 1, "no turn 99"},
		{[]string{"rewind", "@nolabel"}, 1, "no checkpoint"},
		{[]string{"diff", "zz"}, 1, "unknown target"},
		{[]string{"turn", "sideways"}, 2, "start or end"},
		{[]string{"gc", "--max-snapshots", "-1"}, 2, "negative"},
	}
	for _, c := range cases {
		r := w.run(c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d stderr %q; want exit %d mentioning %q", c.args, r.code, r.stderr, c.code, c.want)
		}
		if c.code != 0 && r.stdout != "" {
			t.Errorf("%v: error output on stdout: %q", c.args, r.stdout)
		}
	}
	// An unreadable root.
	bad := &ws{Sandbox: &testkit.Sandbox{T: t, Root: filepath.Join(t.TempDir(), "nope"), Store: t.TempDir()}, t: t}
	if r := bad.run("status"); r.code != 1 || !strings.Contains(r.stderr, "nope") {
		t.Errorf("missing root: exit %d %q", r.code, r.stderr)
	}
	// turn end with no open turn: records nothing, says so, exit 0.
	if r := w.run("turn", "end"); r.code != 0 || !strings.Contains(r.stderr, "no turn is open") {
		t.Errorf("turn end without a turn: exit %d %q", r.code, r.stderr)
	}
	if v := w.ok("version").stdout; !strings.HasPrefix(v, "rewind-lsp ") {
		t.Errorf("version: %q", v)
	}
}

func TestStoreLocationAndNoWritesInWorkspace(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	os.WriteFile(filepath.Join(root, "f"), []byte("x"), 0o644)
	w := &ws{Sandbox: &testkit.Sandbox{T: t, Root: root}, t: t}
	// No --store: REWIND_LSP_HOME decides.
	cmd := func(args ...string) {
		t.Helper()
		c := w.Command(append([]string{"--root", root}, args...), "REWIND_LSP_HOME="+home)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	cmd("checkpoint", "x")
	ents, _ := os.ReadDir(home)
	if len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), filepath.Base(root)+"-") || len(ents[0].Name()) != len(filepath.Base(root))+13 {
		t.Fatalf("store folder: %v", ents)
	}
	after, _ := os.ReadDir(root)
	if len(after) != 1 {
		t.Fatalf("capture wrote into the workspace: %v", after)
	}
	_ = w
}

func TestGCKeepsPinnedAndDropsTheRest(t *testing.T) {
	w := newWS(t)
	w.Write("f", "v0\n")
	w.Write("big.txt", strings.Repeat("0123456789abcdef", 4096))
	w.ok("checkpoint", "keep")
	for i := 1; i <= 5; i++ {
		w.turn(fmt.Sprint("t", i), func() {
			w.Write("f", fmt.Sprintf("v%d\n", i))
			w.Write("big.txt", strings.Repeat(fmt.Sprintf("%x", i*7919), 8192))
		})
	}
	var before struct{ StoreBytes int64 }
	w.okJSON(&before, "status")
	var rep struct {
		SnapshotsKept    int
		SnapshotsDropped []string
		ObjectsRemoved   int
	}
	// Fresh objects are kept for a grace period; age them so gc may sweep.
	old := time.Now().Add(-time.Hour)
	filepath.Walk(filepath.Join(w.Store, "objects"), func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	w.okJSON(&rep, "gc", "--max-snapshots", "2")
	if len(rep.SnapshotsDropped) == 0 || rep.ObjectsRemoved == 0 {
		t.Fatalf("gc dropped nothing: %+v", rep)
	}
	var after struct{ StoreBytes int64 }
	w.okJSON(&after, "status")
	if after.StoreBytes >= before.StoreBytes {
		t.Errorf("store did not shrink: %d → %d", before.StoreBytes, after.StoreBytes)
	}
	if r := w.run("fsck"); r.code != 0 {
		t.Fatalf("fsck after gc: %s", r.stderr)
	}
	// An old turn's content is gone: a clear refusal, nothing changed.
	r := w.run("rewind", "2")
	if r.code == 0 || !strings.Contains(r.stderr, "gc") {
		t.Fatalf("rewind to a dropped snapshot: exit %d %q", r.code, r.stderr)
	}
	// The labeled checkpoint is pinned, and so is the latest state.
	w.ok("rewind", "@keep")
	if w.Read("f") != "v0\n" {
		t.Fatalf("@keep after gc: %q", w.Read("f"))
	}
	w.ok("undo")
	if w.Read("f") != "v5\n" {
		t.Fatalf("undo after gc: %q", w.Read("f"))
	}
	var log struct{ Turns []struct{ Turn int } }
	w.okJSON(&log, "log")
	if len(log.Turns) != 5 {
		t.Errorf("gc removed journal entries: %d turns", len(log.Turns))
	}
}

func TestStatusJSON(t *testing.T) {
	w := newWS(t)
	w.Write("f", "x")
	w.ok("turn", "start", "--prompt", "working")
	var st map[string]any
	w.okJSON(&st, "status")
	for _, k := range []string{"root", "store", "turns", "snapshots", "storeBytes", "watching", "openTurn"} {
		if _, ok := st[k]; !ok {
			t.Errorf("status lacks %q: %v", k, st)
		}
	}
	if ot, _ := st["openTurn"].(map[string]any); ot == nil || ot["prompt"] != "working" {
		t.Errorf("openTurn: %v", st["openTurn"])
	}
	if st["root"] != w.Root || st["store"] != w.Store {
		t.Errorf("root/store: %v %v", st["root"], st["store"])
	}
}

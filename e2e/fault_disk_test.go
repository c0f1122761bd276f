package e2e_test

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/testkit/disk"
)

// TestFullDiskDuringCheckpoint: the store's disk (a 4 MiB tmpfs) fills
// while a checkpoint writes its pack, and while a rewind captures its undo
// snapshot. Each fails with the disk's error and changes no file of the
// workspace; the store stays fsck-clean and readable; once space is freed
// the same commands work, and what they record rewinds exactly.
func TestFullDiskDuringCheckpoint(t *testing.T) {
	w := newWS(t)
	w.Store = filepath.Join(disk.Small(t, 4<<20), "store")
	os.Mkdir(w.Store, 0o700)
	for i := 0; i < 20; i++ {
		w.Write(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("file %d\n", i))
	}
	w.ok("checkpoint", "base")
	big := make([]byte, 1<<20)
	rand.Read(big)
	if err := os.WriteFile(filepath.Join(w.Root, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	free := disk.Fill(t, filepath.Dir(w.Store), 200<<10)
	r := w.run("checkpoint", "big")
	if r.code != 1 || !strings.Contains(r.stderr, "no space left") {
		t.Fatalf("checkpoint on a full disk: exit %d\n%s", r.code, r.stderr)
	}
	w.Write("f1.txt", "changed by the person\n")
	r = w.run("rewind", "@base", "--force")
	if r.code != 1 || !strings.Contains(r.stderr, "no space left") {
		t.Fatalf("rewind on a full disk: exit %d\n%s", r.code, r.stderr)
	}
	if w.Read("f1.txt") != "changed by the person\n" || w.Read("big.bin") != string(big) {
		t.Fatal("a rewind that failed on a full disk changed the workspace")
	}
	noTemps(t, w.Root)
	if r := w.run("fsck"); r.code != 0 {
		t.Fatalf("fsck on the full disk: exit %d\n%s", r.code, r.stderr)
	}
	var list struct{ Checkpoints []struct{ Label string } }
	w.okJSON(&list, "log")
	if len(list.Checkpoints) != 1 || list.Checkpoints[0].Label != "base" {
		t.Fatalf("checkpoints after the failed ones: %+v", list.Checkpoints)
	}

	free()
	w.ok("checkpoint", "big")
	w.ok("rewind", "@base", "--force")
	if w.Read("f1.txt") != "file 1\n" || w.Read("big.bin") != "<missing>" {
		t.Fatalf("rewind to base after freeing space: f1=%q big.bin present=%v", w.Read("f1.txt"), w.Read("big.bin") != "<missing>")
	}
	w.ok("undo")
	if w.Read("f1.txt") != "changed by the person\n" || w.Read("big.bin") != string(big) {
		t.Fatal("undo after freeing space did not bring back the state before the rewind")
	}
	if r := w.run("fsck"); r.code != 0 {
		t.Fatalf("fsck after freeing space: exit %d\n%s", r.code, r.stderr)
	}
}

// TestFullDiskDuringFork: the disk holding Claude Code's transcripts fills
// while a conversation rewind writes the fork. The result says why no fork
// was made, nothing half-written sits beside the original (and the
// original is untouched); once space is freed the fork is written whole.
func TestFullDiskDuringFork(t *testing.T) {
	w := newWS(t)
	s, projects := forkSession(t, w, disk.Small(t, 6<<20), 60)
	orig, _ := os.ReadFile(s.transcript)
	if len(orig) < 1<<20 {
		t.Fatalf("the transcript is only %d bytes: the fork would fit anywhere", len(orig))
	}
	var list struct{ Turns []struct{ Entry string } }
	w.okJSON(&list, "log")
	target := list.Turns[1].Entry
	free := disk.Fill(t, projects, 256<<10)
	var res struct {
		Conversation struct{ Agent, Session, Transcript, Reason string }
	}
	w.okJSON(&res, "rewind", target, "--mode", "conversation")
	if res.Conversation.Agent != "" || !strings.Contains(res.Conversation.Reason, "no space left") {
		t.Fatalf("conversation rewind on a full disk: %+v", res.Conversation)
	}
	os.Remove(filepath.Join(projects, ".filler")) // not part of the check below
	if n := checkForks(t, projects, s, orig, "after the fork failed"); n != 0 {
		t.Fatalf("%d forks after a fork that failed", n)
	}
	free()
	w.okJSON(&res, "rewind", target, "--mode", "conversation")
	if n := checkForks(t, projects, s, orig, "after freeing space"); n != 1 || res.Conversation.Transcript == "" {
		t.Fatalf("after freeing space: %d forks, result %+v", n, res.Conversation)
	}
}

// TestReadOnlyStore: a store that cannot be written (a read-only mount,
// which root cannot write either). What only reads works — log, status,
// blame, fsck — and every command that must record fails with an error
// naming the store and why, before it changes any file of the workspace;
// a hook still exits 0 and says so on stderr. Writable again, everything
// works and nothing was lost.
func TestReadOnlyStore(t *testing.T) {
	w := newWS(t)
	w.Write("f.txt", "one\n")
	w.turn("first", func() { w.Write("f.txt", "two\n") })
	w.Write("f.txt", "three, by the person\n")
	writable := disk.ReadOnly(t, w.Store)
	for _, args := range [][]string{{"log"}, {"status"}, {"blame", "f.txt"}, {"fsck"}} {
		if r := w.run(args...); r.code != 0 {
			t.Errorf("%v on a read-only store: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	for _, args := range [][]string{{"checkpoint", "x"}, {"turn", "start"}, {"turn", "end"}, {"rewind", "1", "--force"},
		{"undo"}, {"revert", "1"}, {"gc"}} {
		r := w.run(args...)
		if r.code != 1 || !strings.Contains(r.stderr, "read-only") || !strings.Contains(r.stderr, w.Store) {
			t.Errorf("%v on a read-only store: exit %d (want 1, naming the store and why)\n%s", args, r.code, r.stderr)
		}
		if w.Read("f.txt") != "three, by the person\n" {
			t.Fatalf("%v on a read-only store changed the workspace", args)
		}
	}
	ev, _ := json.Marshal(map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s", "cwd": w.Root, "prompt": "p"})
	if r := w.runIn(string(ev), "hook", "claude-code"); r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "read-only") {
		t.Errorf("hook on a read-only store: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	noTemps(t, w.Root)
	writable()
	w.ok("rewind", "1", "--force")
	if w.Read("f.txt") != "one\n" {
		t.Fatalf("rewind once writable: %q", w.Read("f.txt"))
	}
	w.ok("undo")
	if w.Read("f.txt") != "three, by the person\n" {
		t.Fatalf("undo once writable: %q", w.Read("f.txt"))
	}
	if r := w.run("fsck"); r.code != 0 {
		t.Fatalf("fsck once writable: %s", r.stderr)
	}
}

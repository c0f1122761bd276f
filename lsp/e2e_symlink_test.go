package lsp

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// TestSymlinkedFolderIsOneRoot: an editor opens a workspace folder through
// a symbolic link, a hook works in the real folder; they share one store
// (one root, one store). The editor hears of and lists the hook's turn, names files
// under the link, and a rewind edits the buffers it has open by that name;
// the command line on the link reaches the same server.
func TestSymlinkedFolderIsOneRoot(t *testing.T) {
	w := newWsp(t)
	link := filepath.Join(w.home, "link")
	if err := os.Symlink(w.root, link); err != nil {
		t.Fatal(err)
	}
	w.write("a.txt", "before\n", 0o644)
	linked := filepath.Join(link, "a.txt")
	// run runs the command line in dir without --root or --store: the
	// root and the default store are found from the folder.
	run := func(dir string, env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command(binary(t), args...)
		cmd.Env = append(testEnv(w.home), append(env, "PWD="+dir)...)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("rewind-lsp %s in %s: %v\n%s%s", strings.Join(args, " "), dir, err, out.String(), errb.String())
		}
		return out.String()
	}
	alone := []string{"REWIND_LSP_NO_SERVER=1"}

	srv, c := startBinary(t, w.home)
	e := newEditor(t, c, vscodeLike)
	e.srv = srv
	e.initialize([]string{link}, map[string]any{"autoTurnQuietMs": 400})
	e.open(linked)
	mark := c.notifCount()

	run(w.root, alone, "turn", "start", "--prompt", "a hook in the real folder")
	w.write("a.txt", "after\n", 0o644)
	e.reload(linked)
	run(w.root, alone, "turn", "end")
	if m, _ := c.waitNotification("rewind/didChange", mark, 5*time.Second, nil); m == nil {
		t.Fatal("the editor on the link heard nothing of the hook's turn")
	}
	turns := e.waitTurns(1)
	if turns[0].Prompt != "a hook in the real folder" || turns[0].Source != "cli" {
		t.Fatalf("turns seen through the link: %+v", turns)
	}
	var hist commands.FileHistoryResult
	e.mustCmd(commands.NameFileHistory, map[string]any{"uri": uriFromPath(linked)}, &hist)
	if len(hist.History) != 1 || hist.History[0].Turn != 1 {
		t.Fatalf("fileHistory of %s: %+v", linked, hist)
	}
	for _, root := range []string{link, w.root, uriFromPath(link)} {
		var st commands.StatusResult
		e.mustCmd(commands.NameStatus, map[string]any{"root": root}, &st)
		if st.Turns != 1 {
			t.Fatalf("status for root %s: %+v", root, st)
		}
	}

	var rr commands.RewindResult
	e.mustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	if !rr.Applied {
		t.Fatalf("rewind: %s", rr.FailureReason)
	}
	if got, _ := e.text(linked); got != "before\n" {
		t.Fatalf("the buffer opened through the link holds %q after the rewind", got)
	}
	if _, other := e.text(w.abs("a.txt")); other {
		t.Fatal("the rewind edited a second buffer named by the real path")
	}
	e.saveAll()

	// The command line in the link folder finds the same store, so the
	// same server.
	run(link, nil, "checkpoint", "from-the-link")
	if l := e.list(); len(l.Checkpoints) != 1 || l.Checkpoints[0].Label != "from-the-link" {
		t.Fatalf("checkpoints: %+v", l.Checkpoints)
	}
	if stores, _ := os.ReadDir(w.home); countPrefix(stores, "work-") != 1 || countPrefix(stores, "link-") != 0 {
		t.Fatalf("stores in %s: %v; want one for the root", w.home, stores)
	}
}

func countPrefix(ents []os.DirEntry, prefix string) int {
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			n++
		}
	}
	return n
}

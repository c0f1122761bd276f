package lsp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestSymlinkedFolderIsOneRoot: an editor opens a workspace folder through
// a symbolic link, a hook works in the real folder; they share one store
// (one root, one store). The editor hears of and lists the hook's turn, names files
// under the link, and a rewind edits the buffers it has open by that name;
// the command line on the link reaches the same server.
func TestSymlinkedFolderIsOneRoot(t *testing.T) {
	w := testkit.NewSandbox(t)
	link := filepath.Join(w.Home, "link")
	if err := os.Symlink(w.Root, link); err != nil {
		t.Fatal(err)
	}
	w.Write("a.txt", "before\n")
	linked := filepath.Join(link, "a.txt")
	// run runs the command line in dir without --root or --store: the
	// root and the default store are found from the folder.
	run := func(dir string, env []string, args ...string) string {
		t.Helper()
		cmd := w.Command(args, append(env, "PWD="+dir)...)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("rewind-lsp %s in %s: %v\n%s%s", strings.Join(args, " "), dir, err, out.String(), errb.String())
		}
		return out.String()
	}
	alone := []string{"REWIND_LSP_NO_SERVER=1"}

	srv, c := testkit.StartServer(w)
	e := testkit.NewEditor(t, c, testkit.VSCodeLike)
	e.Server = srv
	e.Initialize([]string{link}, map[string]any{"autoTurnQuietMs": 400})
	e.Open(linked)
	mark := c.NotifCount()

	run(w.Root, alone, "turn", "start", "--prompt", "a hook in the real folder")
	w.Write("a.txt", "after\n")
	e.Reload(linked)
	run(w.Root, alone, "turn", "end")
	if m, _ := c.WaitNotification("rewind/didChange", mark, didChangeWait, nil); m == nil {
		t.Fatal("the editor on the link heard nothing of the hook's turn")
	}
	turns := waitTurns(e, 1)
	if turns[0].Prompt != "a hook in the real folder" || turns[0].Source != journal.SourceCLI {
		t.Fatalf("turns seen through the link: %+v", turns)
	}
	var hist commands.FileHistoryResult
	e.MustCmd(commands.NameFileHistory, map[string]any{"uri": testkit.URI(linked)}, &hist)
	if len(hist.History) != 1 || hist.History[0].Turn != 1 {
		t.Fatalf("fileHistory of %s: %+v", linked, hist)
	}
	for _, root := range []string{link, w.Root, testkit.URI(link)} {
		var st commands.StatusResult
		e.MustCmd(commands.NameStatus, map[string]any{"root": root}, &st)
		if st.Turns != 1 {
			t.Fatalf("status for root %s: %+v", root, st)
		}
	}

	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	if !rr.Applied {
		t.Fatalf("rewind: %s", rr.FailureReason)
	}
	if got, _ := e.Text(linked); got != "before\n" {
		t.Fatalf("the buffer opened through the link holds %q after the rewind", got)
	}
	if _, other := e.Text(w.Abs("a.txt")); other {
		t.Fatal("the rewind edited a second buffer named by the real path")
	}
	e.SaveAll()

	// The command line in the link folder finds the same store, so the
	// same server.
	run(link, nil, "checkpoint", "from-the-link")
	if l := list(e); len(l.Checkpoints) != 1 || l.Checkpoints[0].Label != "from-the-link" {
		t.Fatalf("checkpoints: %+v", l.Checkpoints)
	}
	if stores, _ := os.ReadDir(w.Home); countPrefix(stores, "work-") != 1 || countPrefix(stores, "link-") != 0 {
		t.Fatalf("stores in %s: %v; want one for the root", w.Home, stores)
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

package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGCAndFsckGoToTheRunningServer: while a language server runs for the
// root, gc and fsck run in the server like every other command, not on
// the store behind its back. Two things only the server would do show it:
// it sweeps fresh objects (it runs with no grace period, the command line
// with the default ten minutes), and it names the store by its own
// spelling (the command line reaches it through a symbolic link).
func TestGCAndFsckGoToTheRunningServer(t *testing.T) {
	w := newWS(t)
	w.Write("f", "0\n")
	for _, p := range []string{"one", "two", "three"} {
		w.turn(p, func() { w.Write("f", p+"\n"+strings.Repeat(p, 4000)+"\n") })
	}
	t.Setenv("REWIND_LSP_GC_GRACE", "0") // the server's environment
	w.startServer()
	w.served()
	link := filepath.Join(t.TempDir(), "store-link")
	if err := os.Symlink(w.Store, link); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string) {
		t.Helper()
		c := w.Command(append([]string{"--root", w.Root, "--store", link}, args...), "REWIND_LSP_GC_GRACE=600")
		var out, errb strings.Builder
		c.Stdout, c.Stderr = &out, &errb
		if err := c.Run(); err != nil {
			t.Fatalf("rewind-lsp %v: %v\n%s%s", args, err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}

	out, _ := run("fsck")
	if want := "fsck: store " + w.Store + " is intact"; !strings.Contains(out, want) {
		t.Fatalf("fsck printed %q; want the server's answer %q (the command line names the store %s)", out, want, link)
	}
	out, _ = run("--json", "gc", "--max-snapshots", "1")
	var rep struct {
		SnapshotsDropped []string
		ObjectsRemoved   int
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("gc --json: %v\n%s", err, out)
	}
	if len(rep.SnapshotsDropped) == 0 || rep.ObjectsRemoved == 0 {
		t.Fatalf("gc dropped %d snapshots and swept %d objects: it did not run in the server (which sweeps fresh objects)",
			len(rep.SnapshotsDropped), rep.ObjectsRemoved)
	}
	if out, _ := run("fsck"); !strings.Contains(out, "is intact") {
		t.Fatalf("fsck after the server's gc: %q", out)
	}
}

package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/fileop"
)

func openW(t *testing.T, root string) *Writer {
	t.Helper()
	w, err := OpenWriter(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func TestWriterFiles(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	w := openW(t, root)
	if err := w.Write("a/b/c.sh", []byte("#!/bin/sh\n"), KindExec); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(root, "a/b/c.sh")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("exec mode %v", fi.Mode())
	}
	os.Chmod(filepath.Join(root, "a/b/c.sh"), 0o700)
	if err := w.Write("a/b/c.sh", []byte("#!/bin/sh\necho\n"), KindFile); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(root, "a/b/c.sh")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("clearing the exec bit must keep the other bits: %v", fi.Mode())
	}
	if err := w.Write("link", []byte("../../etc/passwd"), KindSymlink); err != nil {
		t.Fatal(err)
	}
	if target, _ := os.Readlink(filepath.Join(root, "link")); target != "../../etc/passwd" {
		t.Fatalf("symlink target %q", target)
	}
	// A symlinked folder is never written through, nor deleted through.
	os.Symlink(outside, filepath.Join(root, "out"))
	os.WriteFile(filepath.Join(outside, "victim"), []byte("keep"), 0o644)
	for name, err := range map[string]error{
		"write through a link":  w.Write("out/victim", []byte("pwned"), KindFile),
		"remove through a link": w.Remove("out/victim"),
		"..":                    w.Write("../escape", []byte("x"), KindFile),
		"absolute":              w.Write("/abs", []byte("x"), KindFile),
		"dot":                   w.Write("a/./b", []byte("x"), KindFile),
		".git":                  w.Write(".git/config", []byte("x"), KindFile),
		"folders through link":  w.MakeParents("out/new/file"),
		"chmod through a link":  w.Chmod("out/victim", KindExec),
	} {
		if err == nil {
			t.Errorf("%s: allowed", name)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "victim")); string(data) != "keep" {
		t.Fatal("a file outside the root was changed")
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Fatal("a folder was created outside the root")
	}
	// Removing a symlink removes the link, not its target.
	os.WriteFile(filepath.Join(root, "target"), []byte("t"), 0o644)
	os.Symlink("target", filepath.Join(root, "l2"))
	if err := w.Remove("l2"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "target")); err != nil {
		t.Fatal("the symlink's target was deleted")
	}
	if err := w.Remove("missing/file"); err != nil {
		t.Fatalf("removing a missing file: %v", err)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	assertNoTemps(t, root)
}

func assertNoTemps(t *testing.T, root string) {
	t.Helper()
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if info != nil && IsTempName(info.Name()) {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// TestWriterKeepsIdentical: a file that already holds the content keeps
// its modification time (no rewrite).
func TestWriterKeepsIdentical(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "f")
	os.WriteFile(p, []byte("same\n"), 0o644)
	before, _ := os.Stat(p)
	w := openW(t, root)
	if err := w.Write("f", []byte("same\n"), KindFile); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(p)
	if !after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, after) {
		t.Fatal("an identical file was rewritten")
	}
}

// TestWriterFolderBecomesLink: a rewind that turns a folder back into a
// symbolic link (its files deleted, the link created) works; a folder that
// still holds files (ignored ones, say) is never removed.
func TestWriterFolderBecomesLink(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "lnk/sub"), 0o755)
	os.WriteFile(filepath.Join(root, "lnk/sub/new.txt"), []byte("agent"), 0o644)
	w := openW(t, root)
	err := w.Apply([]FileOp{
		{Path: "lnk", Change: fileop.Create, After: []byte("target-dir"), AfterKind: KindSymlink},
		{Path: "lnk/sub/new.txt", Change: fileop.Delete, Before: []byte("agent"), BeforeKind: KindFile},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.Readlink(filepath.Join(root, "lnk")); err != nil || got != "target-dir" {
		t.Fatalf("lnk: %q %v", got, err)
	}
	os.MkdirAll(filepath.Join(root, "busy"), 0o755)
	os.WriteFile(filepath.Join(root, "busy/ignored.log"), []byte("x"), 0o644)
	if err := w.Write("busy", []byte("t"), KindSymlink); err == nil {
		t.Fatal("a folder holding files was replaced")
	}
	if _, err := os.Stat(filepath.Join(root, "busy/ignored.log")); err != nil {
		t.Fatal("a file in a folder in the way was lost")
	}
}

// TestWriterPrunesEmptiedFolders: deletes remove the folders they empty
// (as the target had no such folder), never a folder that still holds
// something, nor the root.
func TestWriterPrunesEmptiedFolders(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "src/util"), 0o755)
	os.MkdirAll(filepath.Join(root, "keep"), 0o755)
	os.WriteFile(filepath.Join(root, "src/util/x.go"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "keep/a"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(root, "keep/b"), []byte("b"), 0o644)
	w := openW(t, root)
	if err := w.Apply([]FileOp{
		{Path: "src/util/x.go", Change: fileop.Delete},
		{Path: "keep/a", Change: fileop.Delete},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "src")); err == nil {
		t.Fatal("src/ (emptied) is still there")
	}
	if _, err := os.Stat(filepath.Join(root, "keep/b")); err != nil {
		t.Fatal("keep/ lost a file")
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatal("the root was removed")
	}
}

// TestWriterRaceWithSymlinkSwap: a folder swapped for a link to the outside while a rewind writes into it.
// Nothing may land outside the root.
func TestWriterRaceWithSymlinkSwap(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the attacker: dir is a folder, then a link, then a folder…
		defer wg.Done()
		d := filepath.Join(root, "dir")
		for !stop.Load() {
			os.RemoveAll(d)
			os.Mkdir(d, 0o755)
			os.RemoveAll(d)
			os.Symlink(outside, d)
		}
	}()
	for try := 0; try < 150; try++ {
		w, err := OpenWriter(root, fmt.Sprint(try))
		if err != nil {
			t.Fatal(err)
		}
		var ops []FileOp
		for i := 0; i < 5; i++ {
			ops = append(ops, FileOp{Path: fmt.Sprintf("dir/f%d", i), Change: fileop.Create, After: []byte("data"), AfterKind: KindFile})
		}
		w.Apply(ops) // errors are expected; escapes are not
		w.Close()
	}
	stop.Store(true)
	wg.Wait()
	ents, _ := os.ReadDir(outside)
	if len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("%d files written outside the root: %s", len(ents), strings.Join(names, ", "))
	}
}

// TestRemoveTemps: the temporary files an interrupted operation left are
// removed, and only those.
func TestRemoveTemps(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "a"), 0o755)
	os.WriteFile(filepath.Join(root, "a", TempPrefix+"x-1"+TempSuffix), []byte("half"), 0o600)
	os.WriteFile(filepath.Join(root, TempPrefix+"y-2"+TempSuffix), []byte("half"), 0o600)
	os.WriteFile(filepath.Join(root, "a/keep.tmp"), []byte("user"), 0o644)
	w := openW(t, root)
	if err := w.RemoveTemps([]string{"a/f", "g"}); err != nil {
		t.Fatal(err)
	}
	assertNoTemps(t, root)
	if _, err := os.Stat(filepath.Join(root, "a/keep.tmp")); err != nil {
		t.Fatal("a user's file was removed")
	}
}

// TestPruneAfterInterruptedPrune: a prune cut off after removing the
// deepest folder (a killed rewind) is finished by the next prune.
func TestPruneAfterInterruptedPrune(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "created"), 0o755) // created/by/ already gone
	w := openW(t, root)
	if err := w.Prune("created/by/agent.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "created")); err == nil {
		t.Fatal("created/ is left behind")
	}
}

package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestStoreFromBeforePacks: a store written by the release before pack
// files (testdata/store-v1, one file per object, tree deltas as files)
// keeps working: fsck is clean, the log, diffs, undo and rewinds read its
// objects, and gc moves everything it keeps into a pack, after which all
// of it still reads back exactly.
func TestStoreFromBeforePacks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fixture holds a symbolic link and is copied with cp -a")
	}
	w := newWS(t)
	for _, d := range []string{"root", "store"} {
		dst := w.Root
		if d == "store" {
			dst = w.Store
		}
		if out, err := exec.Command("cp", "-a", filepath.Join("testdata", "store-v1", d)+"/.", dst).CombinedOutput(); err != nil {
			t.Fatalf("copy the fixture: %v %s", err, out)
		}
	}
	orig := func(i int) string {
		return fmt.Sprintf("package src\n\n// file %02d of the fixture, with a comment long enough\nfunc F%02d() int { return %d }\n", i, i, i)
	}
	mode := func(rel string) os.FileMode {
		fi, err := os.Lstat(filepath.Join(w.Root, rel))
		if err != nil {
			return 0
		}
		return fi.Mode()
	}
	looseShards := func() int {
		n := 0
		ents, _ := os.ReadDir(filepath.Join(w.Store, "objects"))
		for _, e := range ents {
			if e.IsDir() && len(e.Name()) == 2 {
				n++
			}
		}
		return n
	}
	// The store is from an earlier release: its files are old (git gave
	// them today's time), older than gc's grace for captures in progress.
	old := time.Now().Add(-24 * time.Hour)
	filepath.Walk(w.Store, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	if looseShards() == 0 {
		t.Fatal("the fixture has no loose objects")
	}
	if r := w.run("fsck"); r.code != 0 {
		t.Fatalf("fsck of a store from before packs: exit %d\n%s", r.code, r.stderr)
	}
	var list struct{ Turns []struct{ Prompt string } }
	w.okJSON(&list, "log")
	if len(list.Turns) != 2 || list.Turns[0].Prompt != "first turn" || list.Turns[1].Prompt != "second turn" {
		t.Fatalf("log: %+v", list)
	}
	d := w.ok("diff", "turn:2:end").stdout
	if !strings.Contains(d, "edited in turn 2") || !strings.Contains(d, "f20.go") {
		t.Fatalf("diff to the end of turn 2:\n%s", d)
	}
	// The rewind the old release recorded is undone from its snapshot.
	w.ok("undo")
	if !strings.Contains(w.Read("src/f10.go"), "edited in turn 2") || w.Read("src/f20.go") != "<missing>" || mode("run.sh")&0o111 != 0 {
		t.Fatalf("undo of the old rewind: f10 %q, f20 %q, run.sh %v", w.Read("src/f10.go"), w.Read("src/f20.go"), mode("run.sh"))
	}
	checkStart := func(when string) {
		t.Helper()
		if w.Read("src/f03.go") != orig(3) || w.Read("src/f20.go") != orig(20) || w.Read("new.txt") != "<missing>" ||
			mode("run.sh")&0o111 == 0 || mode("link")&os.ModeSymlink == 0 || w.Read("link") != "# fixture\n" {
			t.Fatalf("%s: the state before turn 1 is not restored exactly", when)
		}
	}
	w.ok("rewind", "1")
	checkStart("rewind 1")
	// gc repacks: no loose object is left, and everything reads back.
	w.ok("gc")
	if n := looseShards(); n != 0 {
		t.Fatalf("%d loose shard folders after gc", n)
	}
	packs, _ := filepath.Glob(filepath.Join(w.Store, "objects", "packs", "pack-*.pack"))
	if len(packs) == 0 {
		t.Fatal("no pack after gc")
	}
	if r := w.run("fsck"); r.code != 0 {
		t.Fatalf("fsck after gc: exit %d\n%s", r.code, r.stderr)
	}
	w.ok("rewind", "turn:2:end", "--force")
	if !strings.Contains(w.Read("src/f03.go"), "edited in turn 1") || w.Read("new.txt") != "new in turn 1\n" ||
		!strings.Contains(w.Read("src/f10.go"), "edited in turn 2") || w.Read("src/f20.go") != "<missing>" {
		t.Fatal("rewind to the end of turn 2 after gc is not exact")
	}
	w.ok("rewind", "1")
	checkStart("rewind 1 after gc")
}

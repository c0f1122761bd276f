package snapshot

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// TestCachedCaptureEqualsFresh: after every kind of change (files written,
// removed, renamed, made executable, turned into links or folders and
// back, folders added and removed, ignore rules changed), a capture that
// trusts its stat cache — in the same process and in a new one reading the
// cache file — gives the snapshot a capture with no cache gives.
func TestCachedCaptureEqualsFresh(t *testing.T) {
	ctx := context.Background()
	root, store := t.TempDir(), t.TempDir()
	r := rand.New(rand.NewSource(3))
	paths := func() string {
		return fmt.Sprintf("d%d/e%d/f%d.txt", r.Intn(4), r.Intn(3), r.Intn(6))
	}
	for i := 0; i < 60; i++ {
		p := filepath.Join(root, paths())
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprint("initial ", i, "\n")), 0o644)
	}
	objs, _ := OpenObjects(filepath.Join(store, "objects"))
	cachePath := filepath.Join(store, "statcache")
	kept := NewCapturer(root, objs, cachePath, 0)
	if _, err := kept.Capture(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 40; round++ {
		for j := 0; j < 1+r.Intn(4); j++ {
			p := filepath.Join(root, paths())
			switch r.Intn(9) {
			case 0, 1:
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(fmt.Sprint("round ", round, " ", j, "\n")), 0o644)
			case 2:
				os.Remove(p)
			case 3:
				os.Chmod(p, 0o755)
			case 4:
				os.RemoveAll(filepath.Dir(p))
			case 5:
				os.Remove(p)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.Symlink("../target", p)
			case 6:
				os.RemoveAll(p)
				os.MkdirAll(filepath.Join(p, "inside"), 0o755)
				os.WriteFile(filepath.Join(p, "inside", "x"), []byte("x"), 0o644)
			case 7:
				os.WriteFile(filepath.Join(root, ".gitignore"), []byte(fmt.Sprintf("f%d.txt\ne%d/\n", r.Intn(6), r.Intn(3))), 0o644)
			case 8:
				// Same size, same mtime: only the ctime and the content differ.
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
					data, _ := os.ReadFile(p)
					if len(data) > 0 {
						data[0] ^= 1
						os.WriteFile(p, data, fi.Mode())
						os.Chtimes(p, fi.ModTime(), fi.ModTime())
					}
				}
			}
		}
		a, err := kept.Capture(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewCapturer(root, objs, cachePath, 0).Capture(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := NewCapturer(root, objs, filepath.Join(t.TempDir(), "statcache"), 0).Capture(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.ID != fresh.ID || b.ID != fresh.ID {
			ma, _ := ReadTree(objs, a.ID)
			mf, _ := ReadTree(objs, fresh.ID)
			for p, e := range mf {
				if ma[p] != e {
					t.Errorf("%s: cached %+v, fresh %+v", p, ma[p], e)
				}
			}
			for p := range ma {
				if _, ok := mf[p]; !ok {
					t.Errorf("%s only in the cached capture", p)
				}
			}
			t.Fatalf("round %d: cached capture %s / new process %s, fresh %s", round, a.ID, b.ID, fresh.ID)
		}
		if a.FileCount != fresh.FileCount {
			t.Fatalf("round %d: %d files counted, fresh %d", round, a.FileCount, fresh.FileCount)
		}
	}
}

// TestUnchangedCaptureReadsNothing: a second capture of an unchanged tree
// reads no file and does not rewrite the stat cache.
func TestUnchangedCaptureReadsNothing(t *testing.T) {
	ctx := context.Background()
	root, store := t.TempDir(), t.TempDir()
	for i := 0; i < 50; i++ {
		p := filepath.Join(root, fmt.Sprintf("d%d/f%d", i%5, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprint(i)), 0o644)
	}
	objs, _ := OpenObjects(filepath.Join(store, "objects"))
	cachePath := filepath.Join(store, "statcache")
	first, err := NewCapturer(root, objs, cachePath, 0).Capture(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.Read != 50 || first.FileCount != 50 {
		t.Fatalf("first capture read %d, counted %d", first.Read, first.FileCount)
	}
	// Past the racy window: files older than the cache are trusted.
	old, _ := os.Stat(cachePath)
	for i := 0; i < 50; i++ {
		p := filepath.Join(root, fmt.Sprintf("d%d/f%d", i%5, i))
		os.Chtimes(p, old.ModTime().Add(-1e9), old.ModTime().Add(-1e9))
	}
	NewCapturer(root, objs, cachePath, 0).Capture(ctx, nil) // re-reads the touched files once
	before, _ := os.Stat(cachePath)
	again, err := NewCapturer(root, objs, cachePath, 0).Capture(ctx, nil)
	if err != nil || again.ID != first.ID {
		t.Fatalf("%v %v", err, again)
	}
	if again.Read != 0 {
		t.Fatalf("an unchanged tree: %d files read", again.Read)
	}
	after, _ := os.Stat(cachePath)
	if !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("the stat cache was rewritten although nothing changed")
	}
}

package snapshot

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// TestCaptureChangedEqualsFullWalk applies random changes, tells
// CaptureChanged only the changed paths (as a watcher would), and checks
// that its snapshot equals a full walk's by a fresh capturer.
func TestCaptureChangedEqualsFullWalk(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "ignored/\n*.tmp\n")
	outside := t.TempDir()
	for _, f := range []string{"f1.txt", "f2.txt", "inner.txt"} {
		os.WriteFile(filepath.Join(outside, f), []byte("outside the root"), 0o644)
	}
	for i := 0; i < 50; i++ {
		write(fmt.Sprintf("d%d/e%d/f%d.txt", i%5, i%3, i), fmt.Sprint("content ", i))
	}
	store := t.TempDir()
	objs, err := OpenObjects(filepath.Join(store, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	c := NewCapturer(root, objs, filepath.Join(store, "statcache"), 0)
	c.KeepLive()
	if _, err := c.Capture(ctx, nil); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(7))
	for round := 0; round < 40; round++ {
		var changed []string
		for k := 0; k < 1+r.Intn(5); k++ {
			rel := fmt.Sprintf("d%d/e%d/f%d.txt", r.Intn(6), r.Intn(4), r.Intn(60))
			switch r.Intn(8) {
			case 0, 1:
				write(rel, fmt.Sprint("edit ", round, k))
			case 2:
				os.Remove(filepath.Join(root, rel))
			case 3: // a new folder, filled
				dir := fmt.Sprintf("new%d/sub", round)
				write(dir+"/a.txt", "a")
				write(dir+"/deeper/b.txt", "b")
				rel = fmt.Sprintf("new%d", round)
			case 4: // a folder removed
				rel = fmt.Sprintf("d%d", r.Intn(5))
				os.RemoveAll(filepath.Join(root, rel))
			case 5: // ignored changes
				write("ignored/x.txt", fmt.Sprint(round))
				write("d1/junk.tmp", fmt.Sprint(round))
				rel = "ignored/x.txt"
			case 6: // a file replaced by a folder
				os.RemoveAll(filepath.Join(root, rel))
				write(rel+"/inner.txt", "inner")
			case 7: // a folder replaced by a link to a folder outside the root
				// holding files of the same names: the watcher reports the
				// folder and each file that went.
				dir := fmt.Sprintf("d%d/e%d", r.Intn(5), r.Intn(3))
				olds, _ := os.ReadDir(filepath.Join(root, dir))
				os.RemoveAll(filepath.Join(root, dir))
				os.Symlink(outside, filepath.Join(root, dir))
				for _, e := range olds {
					changed = append(changed, dir+"/"+e.Name())
				}
				for _, f := range []string{"f1.txt", "f2.txt", "inner.txt"} {
					changed = append(changed, dir+"/"+f)
				}
				rel = dir
			}
			changed = append(changed, rel)
		}
		got, err := c.CaptureChanged(ctx, changed)
		if err != nil {
			t.Fatal(err)
		}
		if got.Manifest != nil {
			t.Fatalf("round %d: CaptureChanged walked the whole tree", round)
		}
		fresh := NewCapturer(root, objs, filepath.Join(t.TempDir(), "statcache"), 0)
		want, err := fresh.Capture(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != want.ID || got.Files() != want.Files() {
			t.Fatalf("round %d (changed %v): incremental %s (%d files), full walk %s (%d files)",
				round, changed, got.ID, got.Files(), want.ID, want.Files())
		}
	}
}

// BenchmarkCaptureChanged10 measures a capture after 10 changed files in a
// 10,000-file tree, given the changed paths.
func BenchmarkCaptureChanged10(b *testing.B) {
	ctx := context.Background()
	root := b.TempDir()
	for i := 0; i < 10000; i++ {
		p := filepath.Join(root, fmt.Sprintf("d%d/e%d/f%d.txt", i%40, i%7, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprint("content ", i)), 0o644)
	}
	store := b.TempDir()
	objs, _ := OpenObjects(filepath.Join(store, "objects"))
	c := NewCapturer(root, objs, filepath.Join(store, "statcache"), 0)
	c.KeepLive()
	if _, err := c.Capture(ctx, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		var changed []string
		for k := 0; k < 10; k++ {
			i := (n*10 + k) % 10000
			rel := fmt.Sprintf("d%d/e%d/f%d.txt", i%40, i%7, i)
			os.WriteFile(filepath.Join(root, rel), []byte(fmt.Sprint("edit ", n, k)), 0o644)
			changed = append(changed, rel)
		}
		if _, err := c.CaptureChanged(ctx, changed); err != nil {
			b.Fatal(err)
		}
	}
}

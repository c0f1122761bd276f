package snapshot

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// flipStored flips a byte of every stored copy of content (small content
// is kept as it is inside a pack record).
func flipStored(t *testing.T, objects, content string) {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(objects, "packs", "pack-*.pack"))
	n := 0
	for _, p := range packs {
		data, _ := os.ReadFile(p)
		if i := bytes.Index(data, []byte(content)); i >= 0 {
			data[i] ^= 0x20
			os.WriteFile(p, data, 0o600)
			n++
		}
	}
	if n == 0 {
		t.Fatalf("no stored copy of %q", content)
	}
}

// TestDamagedObjectFallsBackToFile: reading a damaged object whose file
// still holds its content gives the file's bytes and heals the object;
// one whose file changed stays an error naming the damage.
func TestDamagedObjectFallsBackToFile(t *testing.T) {
	root, store := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("content of a\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("content of b\n"), 0o644)
	objs, _ := OpenObjects(filepath.Join(store, "objects"))
	c := NewCapturer(root, objs, filepath.Join(store, "statcache"), 0)
	res, err := c.Capture(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	flipStored(t, filepath.Join(store, "objects"), "content of a\n")
	flipStored(t, filepath.Join(store, "objects"), "content of b\n")
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("b changed\n"), 0o644)
	objs.Forget()
	a, _, _ := Lookup(objs, res.ID, "a.txt")
	b, _, _ := Lookup(objs, res.ID, "b.txt")
	got, err := objs.Get(a.ID)
	if err != nil || string(got) != "content of a\n" {
		t.Fatalf("a.txt: %q %v", got, err)
	}
	if _, err := objs.Get(b.ID); err == nil {
		t.Fatal("b.txt's damaged object read without error although its file changed")
	}
	objs.Sync()
	fresh, _ := OpenObjects(filepath.Join(store, "objects"))
	if got, err := fresh.Get(a.ID); err != nil || string(got) != "content of a\n" {
		t.Fatalf("a.txt not healed: %q %v", got, err)
	}
	if d := fresh.Damaged(); len(d) != 1 || d[0] != b.ID {
		t.Fatalf("damaged list %v, want b.txt's object", d)
	}
	// b.txt's old content comes back: the next capture that has it heals it.
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("content of b\n"), 0o644)
	c2 := NewCapturer(root, fresh, filepath.Join(store, "statcache"), 0)
	if _, err := c2.Capture(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	fresh.Sync()
	if got, err := fresh.Get(b.ID); err != nil || string(got) != "content of b\n" {
		t.Fatalf("b.txt not healed by the capture: %q %v", got, err)
	}
	if d := fresh.Damaged(); len(d) != 0 {
		t.Fatalf("damaged list after healing: %v", d)
	}
}

// TestCaptureNeverPointsAtKnownDamage: a file the stat cache trusts whose
// stored content is on the damaged list is read again, so the new
// snapshot's object is a good copy (command line and running server).
func TestCaptureNeverPointsAtKnownDamage(t *testing.T) {
	for _, live := range []bool{false, true} {
		root, store := t.TempDir(), t.TempDir()
		os.MkdirAll(filepath.Join(root, "d"), 0o755)
		os.WriteFile(filepath.Join(root, "d", "k.txt"), []byte("kept and damaged\n"), 0o644)
		objs, _ := OpenObjects(filepath.Join(store, "objects"))
		c := NewCapturer(root, objs, filepath.Join(store, "statcache"), 0)
		if live {
			c.KeepLive()
		}
		res, err := c.Capture(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		objs.Sync()
		e, _, _ := Lookup(objs, res.ID, "d/k.txt")
		flipStored(t, filepath.Join(store, "objects"), "kept and damaged\n")
		objs.MarkDamaged(e.ID) // as fsck does
		os.WriteFile(filepath.Join(root, "other.txt"), []byte("x"), 0o644)
		var next *Result
		if live {
			next, err = c.CaptureChanged(context.Background(), []string{"other.txt"})
		} else {
			next, err = c.Capture(context.Background(), nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		objs.Sync()
		fresh, _ := OpenObjects(filepath.Join(store, "objects"))
		m, err := ReadTree(fresh, next.ID)
		if err != nil {
			t.Fatalf("live=%v: %v", live, err)
		}
		if got, err := fresh.Get(m["d/k.txt"].ID); err != nil || string(got) != "kept and damaged\n" {
			t.Fatalf("live=%v: the new snapshot's k.txt: %q %v", live, got, err)
		}
	}
}

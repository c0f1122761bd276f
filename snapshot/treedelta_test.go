package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// TestLargeFolderTreesStoredAsDeltas: a one-file change in a folder of 400
// files stores a small delta, not the whole folder's tree again, and every
// reader still sees the whole, verified tree — in the command line's full
// captures and in the server's incremental ones.
func TestLargeFolderTreesStoredAsDeltas(t *testing.T) {
	for _, live := range []bool{false, true} {
		t.Run(fmt.Sprint("live=", live), func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			for i := 0; i < 400; i++ {
				p := filepath.Join(root, "big", fmt.Sprintf("file-with-a-long-name-%04d.go", i))
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(fmt.Sprint("package big // ", i, "\n")), 0o644)
			}
			store := t.TempDir()
			objs, _ := OpenObjects(filepath.Join(store, "objects"))
			c := NewCapturer(root, objs, filepath.Join(store, "statcache"), 0)
			if live {
				c.KeepLive()
			}
			first, err := c.Capture(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			ids := []ID{first.ID}
			whole := 0
			for turn := 0; turn < 20; turn++ { // past the chain limit
				rel := fmt.Sprintf("big/file-with-a-long-name-%04d.go", turn*7)
				os.WriteFile(filepath.Join(root, rel), []byte(fmt.Sprint("changed ", turn, "\n")), 0o644)
				objs.Sync() // a pack sealed (and merged) in the background counts now
				before := dirBytes(t, store)
				var res *Result
				if live {
					res, err = c.CaptureChanged(ctx, []string{rel})
				} else {
					res, err = c.Capture(ctx, nil)
				}
				if err != nil {
					t.Fatal(err)
				}
				objs.Sync()
				grown := dirBytes(t, store) - before
				if grown > 3000 {
					whole++ // the tree stored whole, to cut a delta chain
				}
				ids = append(ids, res.ID)
			}
			if whole > 20/deltaMaxDepth {
				t.Errorf("%d of 20 one-line changes stored the folder's tree whole", whole)
			}
			// Every snapshot reads back whole and verified, through a fresh
			// object store (no cached trees).
			fresh, _ := OpenObjects(filepath.Join(store, "objects"))
			for i, id := range ids {
				m, err := ReadTree(fresh, id)
				if err != nil {
					t.Fatalf("snapshot %d: %v", i, err)
				}
				if len(m) != 400 {
					t.Fatalf("snapshot %d: %d files", i, len(m))
				}
			}
			again := NewCapturer(root, fresh, filepath.Join(t.TempDir(), "statcache"), 0)
			full, err := again.Capture(ctx, nil)
			if err != nil || full.ID != ids[len(ids)-1] {
				t.Fatalf("a full walk gives %v (%v), the last capture %v", full.ID, err, ids[len(ids)-1])
			}
		})
	}
}

// TestPatchTreeEqualsWriteTree: patching a snapshot gives the same ID as
// writing the patched manifest whole.
func TestPatchTreeEqualsWriteTree(t *testing.T) {
	o, _ := OpenObjects(filepath.Join(t.TempDir(), "objects"))
	m := Manifest{}
	put := func(s string) Entry {
		id, _ := o.Put([]byte(s))
		return Entry{Kind: KindFile, ID: id, Size: int64(len(s))}
	}
	for i := 0; i < 200; i++ {
		m[fmt.Sprintf("d%d/e%d/f%d", i%5, i%3, i)] = put(fmt.Sprint(i))
	}
	root, _ := WriteTree(o, m, nil)
	cases := []map[string]*Entry{
		{"d1/e1/f1": nil},
		{"d0/e0/new": ptr(put("x")), "top": ptr(put("y"))},
		{"d2/e2/f2": ptr(put("changed"))},
		{"brand/new/deep/file": ptr(put("z")), "d3/e0/f3": nil},
		// A file becomes a folder, and a folder a file.
		{"d1/e1/f1": nil, "d1/e1/f1/inside": ptr(put("in"))},
	}
	dirToFile := map[string]*Entry{"d0/e0": ptr(put("now a file"))}
	for p := range m {
		if strings.HasPrefix(p, "d0/e0/") {
			dirToFile[p] = nil
		}
	}
	cases = append(cases, dirToFile)
	// Remove a whole folder's files.
	all := map[string]*Entry{}
	for p := range m {
		if strings.HasPrefix(p, "d4/") {
			all[p] = nil
		}
	}
	cases = append(cases, all)
	for i, ch := range cases {
		got, err := PatchTree(o, root, ch)
		if err != nil {
			t.Fatal(err)
		}
		want := Manifest{}
		for p, e := range m {
			want[p] = e
		}
		for p, e := range ch {
			if e == nil {
				delete(want, p)
			} else {
				want[p] = *e
			}
		}
		wid, _ := WriteTree(o, want, nil)
		if got != wid {
			t.Errorf("case %d: PatchTree %s, WriteTree %s", i, got, wid)
		}
	}
}

func ptr(e Entry) *Entry { return &e }

package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

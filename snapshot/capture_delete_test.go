package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestCaptureSeesAFolderEmptiedOfFiles: a folder whose every file is
// deleted (it keeps its subfolders) is captured without them, by a fresh
// process (the stat cache file) and by a long-lived one (a server, the MCP
// adapter). A capture once took the stat cache's old file list for "no
// files left" and kept the deleted files.
func TestCaptureSeesAFolderEmptiedOfFiles(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprint("fresh=", fresh), func(t *testing.T) {
			root, store := t.TempDir(), t.TempDir()
			os.MkdirAll(filepath.Join(root, "src"), 0o755)
			os.WriteFile(filepath.Join(root, "src/main.go"), []byte("package main\n"), 0o644)
			os.WriteFile(filepath.Join(root, "keep.txt"), []byte("mine\n"), 0o644)
			os.WriteFile(filepath.Join(root, "also.txt"), []byte("also\n"), 0o644)
			objs, err := OpenObjects(filepath.Join(store, "objects"))
			if err != nil {
				t.Fatal(err)
			}
			c := NewCapturer(root, objs, filepath.Join(store, "statcache"), 0)
			if _, err := c.Capture(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(root, "keep.txt"))
			os.Remove(filepath.Join(root, "also.txt"))
			if fresh {
				c = NewCapturer(root, objs, filepath.Join(store, "statcache"), 0)
			}
			res, err := c.Capture(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"keep.txt", "also.txt"} {
				if _, ok, _ := Lookup(objs, res.ID, p); ok {
					t.Errorf("%s is deleted but still in the capture", p)
				}
			}
			if _, ok, _ := Lookup(objs, res.ID, "src/main.go"); !ok {
				t.Error("src/main.go is missing")
			}
		})
	}
}

//go:build !windows

package osfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMkdirPrivate: a store folder is for its owner alone.
func TestMkdirPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home", "store")
	if err := MkdirPrivate(dir); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("store folder mode %v, %v", fi.Mode().Perm(), err)
	}
}

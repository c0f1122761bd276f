//go:build !windows

package osfile

import (
	"io/fs"
	"os"
)

// OpenFile opens path like os.OpenFile. Another process may rename or remove
// the file while it is open (as unix always allows).
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}

// Open opens path for reading; another process may rename or remove it
// meanwhile.
func Open(path string) (*os.File, error) { return os.Open(path) }

func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

func remove(path string) error { return os.Remove(path) }

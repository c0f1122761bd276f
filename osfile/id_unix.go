//go:build unix

package osfile

import (
	"fmt"
	"os"
	"syscall"
)

// Identity returns the ID of open file f.
func Identity(f *os.File) (ID, error) {
	fi, err := f.Stat()
	if err != nil {
		return ID{}, fmt.Errorf("identify %s: %w", f.Name(), err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ID{}, fmt.Errorf("identify %s: no inode", f.Name())
	}
	return ID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, nil
}

//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package osfile

import (
	"errors"
	"fmt"
	"os"
)

// Lock reports that this system has no file locks rewind-lsp can use.
func Lock(f *os.File, how How) error {
	return fmt.Errorf("lock %s: %w", f.Name(), errors.ErrUnsupported)
}

// TryLock reports that this system has no file locks rewind-lsp can use.
func TryLock(f *os.File, how How) (bool, error) {
	return false, fmt.Errorf("lock %s: %w", f.Name(), errors.ErrUnsupported)
}

// Unlock reports that this system has no file locks rewind-lsp can use.
func Unlock(f *os.File) error {
	return fmt.Errorf("unlock %s: %w", f.Name(), errors.ErrUnsupported)
}

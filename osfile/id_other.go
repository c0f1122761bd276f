//go:build !unix && !windows

package osfile

import (
	"errors"
	"fmt"
	"os"
)

// Identity reports that this system gives files no identity rewind-lsp can use.
func Identity(f *os.File) (ID, error) {
	return ID{}, fmt.Errorf("identify %s: %w", f.Name(), errors.ErrUnsupported)
}

//go:build !linux

package conv

import (
	"os"
)

// createUnnamed is Linux's alone: elsewhere a fork is written to a hidden
// temporary file (createTemp).
func createUnnamed(dir string, perm os.FileMode) (*os.File, error) { return nil, errNoUnnamed }

func linkUnnamed(f *os.File, dst string) error { return errNoUnnamed }

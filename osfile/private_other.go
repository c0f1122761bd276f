//go:build !windows

package osfile

import "os"

// MkdirPrivate makes folder dir and its missing parents; dir is for its
// owner alone (0700). An existing dir keeps its mode.
func MkdirPrivate(dir string) error { return os.MkdirAll(dir, 0o700) }

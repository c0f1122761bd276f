//go:build !linux

package osfile

import "os"

// StartWriteback asks the system to start writing n bytes of f from off to
// the disk, where it can be asked (Linux); elsewhere it does nothing. It
// promises nothing about durability (only an fsync does).
func StartWriteback(f *os.File, off, n int64) {}

package snapshot

import "golang.org/x/sys/unix"

// syncRoot makes every change on the root's file system durable: one
// syncfs for a whole operation instead of an fsync per file.
func syncRoot(fd int) error { return unix.Syncfs(fd) }

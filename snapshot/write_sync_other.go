//go:build !linux

package snapshot

import "golang.org/x/sys/unix"

// syncRoot makes the changes durable where syncfs is missing: sync(2).
func syncRoot(fd int) error {
	unix.Sync()
	return nil
}

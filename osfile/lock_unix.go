//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package osfile

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

func flockHow(how How) int {
	if how == Exclusive {
		return unix.LOCK_EX
	}
	return unix.LOCK_SH
}

// Lock takes the lock of f's open file, waiting while another open file holds
// a conflicting one. Locks belong to the open file, not the process: two opens
// of one path in one process conflict. Closing f releases it.
func Lock(f *os.File, how How) error {
	for {
		err := unix.Flock(int(f.Fd()), flockHow(how))
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("lock %s (%s): %w", f.Name(), how, err)
		}
	}
}

// TryLock takes the lock of f's open file if no other open file holds a
// conflicting one; false when one does.
func TryLock(f *os.File, how How) (bool, error) {
	for {
		err := unix.Flock(int(f.Fd()), flockHow(how)|unix.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, unix.EWOULDBLOCK):
			return false, nil
		case !errors.Is(err, unix.EINTR):
			return false, fmt.Errorf("lock %s (%s): %w", f.Name(), how, err)
		}
	}
}

// Unlock releases the lock of f's open file.
func Unlock(f *os.File) error {
	if err := unix.Flock(int(f.Fd()), unix.LOCK_UN); err != nil {
		return fmt.Errorf("unlock %s: %w", f.Name(), err)
	}
	return nil
}

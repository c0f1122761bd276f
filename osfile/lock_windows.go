package osfile

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset is where the locked byte lies: Windows locks are mandatory, so a
// lock on the data would make reads of a pack or of a lock file's holder
// fail. Nothing is ever written this far.
const lockOffset = 1 << 62

func lockRange() *windows.Overlapped {
	return &windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
}

func lockFlags(how How) uint32 {
	if how == Exclusive {
		return windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	return 0
}

// Lock takes the lock of f's open file, waiting while another open file holds
// a conflicting one. Locks belong to the open file, not the process: two opens
// of one path in one process conflict. Closing f releases it.
func Lock(f *os.File, how How) error {
	err := windows.LockFileEx(windows.Handle(f.Fd()), lockFlags(how), 0, 1, 0, lockRange())
	if err != nil {
		return fmt.Errorf("lock %s (%s): %w", f.Name(), how, err)
	}
	return nil
}

// TryLock takes the lock of f's open file if no other open file holds a
// conflicting one; false when one does.
func TryLock(f *os.File, how How) (bool, error) {
	err := windows.LockFileEx(windows.Handle(f.Fd()), lockFlags(how)|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, lockRange())
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return false, nil
	}
	return false, fmt.Errorf("lock %s (%s): %w", f.Name(), how, err)
}

// Unlock releases the lock of f's open file.
func Unlock(f *os.File) error {
	if err := windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockRange()); err != nil {
		return fmt.Errorf("unlock %s: %w", f.Name(), err)
	}
	return nil
}

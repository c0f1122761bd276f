package osfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// StartWriteback asks the system to start writing n bytes of f from off to
// the disk, without waiting: a later fsync of a large file then waits for
// less. It promises nothing about durability (only an fsync does).
func StartWriteback(f *os.File, off, n int64) {
	unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

package osfile

import "fmt"

// ID names a file on its machine: two open files with equal IDs are the same
// file, and a path whose ID changed was replaced (renamed over, or removed and
// made again). It is the device and inode on unix, the volume serial number
// and file index on Windows.
type ID struct {
	Dev uint64
	Ino uint64
}

func (id ID) String() string { return fmt.Sprintf("%x:%x", id.Dev, id.Ino) }

//go:build !windows

package osfile

import "os"

// SyncDir makes the entries of folder dir durable (a rename or creation in
// it); errors are not reported, since some file systems cannot.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

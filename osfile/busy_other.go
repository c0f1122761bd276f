//go:build !windows

package osfile

// IsBusy reports whether err says another program holds the file: never
// outside Windows, where holding a file open does not stop a rename.
func IsBusy(err error) bool { return false }

// Retry runs op: outside Windows, a file held open elsewhere never makes
// it fail.
func Retry(op func() error) error { return op() }

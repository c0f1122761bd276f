//go:build unix && (!linux || portable)

package commands

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// userTag names this user in the temporary folder's shared namespace.
func userTag() string { return strconv.Itoa(os.Getuid()) }

// ownerOnly checks that folder dir (fi, its Lstat) belongs to this user and
// that nobody else may enter it: another user could otherwise put a socket
// of their own where the command line looks for the server.
func ownerOnly(dir string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to another user", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s may be entered by other users (mode %v)", dir, fi.Mode().Perm())
	}
	return nil
}

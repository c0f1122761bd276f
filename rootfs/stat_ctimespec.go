//go:build darwin || freebsd || netbsd

package rootfs

import (
	"io/fs"
	"syscall"
)

// sysStat is the change time and inode of fi.
func sysStat(fi fs.FileInfo) (ctime int64, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctimespec.Nano(), uint64(st.Ino)
	}
	return 0, 0
}

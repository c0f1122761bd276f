package conv

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// createUnnamed opens an unnamed file in dir (O_TMPFILE): it has no name
// until linkUnnamed gives it one, and a crash before that leaves nothing.
func createUnnamed(dir string, perm os.FileMode) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, uint32(perm.Perm()))
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
		return nil, errNoUnnamed // a file system (or kernel) without O_TMPFILE
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	// O_TMPFILE applies the umask like any create; the mode is the fork's.
	if err := unix.Fchmod(fd, uint32(perm.Perm())); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), dir+"/(unnamed)"), nil
}

// linkUnnamed names the unnamed file f dst (never replacing a file).
func linkUnnamed(f *os.File, dst string) error {
	err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), unix.AT_FDCWD, dst, unix.AT_SYMLINK_FOLLOW)
	if err != nil {
		return &os.LinkError{Op: "link", Old: f.Name(), New: dst, Err: err}
	}
	return nil
}

//go:build linux && !portable

package rootfs

import (
	"errors"
	"io/fs"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Mkdir makes subfolder name (mode 0o755 less the umask); fs.ErrExist when
// something of that name is there.
func (d *Dir) Mkdir(name string) error {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return pathErr("mkdir", p, err)
	}
	if err := unix.Mkdirat(d.fd, name, 0o755); err != nil {
		return pathErr("mkdir", p, mapErr(err))
	}
	return nil
}

// CreateExcl makes file name, which must not exist (not even as a link),
// holding data with permissions perm. On error nothing of it is left.
// The file is durable once Root.Sync returns.
func (d *Dir) CreateExcl(name string, data []byte, perm fs.FileMode) error {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return pathErr("create", p, err)
	}
	fd, err := unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return pathErr("create", p, mapErr(err))
	}
	err = writeAll(fd, data)
	if err == nil {
		err = unix.Fchmod(fd, uint32(perm.Perm())) // the umask applied to O_CREAT
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		unix.Unlinkat(d.fd, name, 0)
		return pathErr("create", p, err)
	}
	return nil
}

func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return err
		}
		data = data[n:]
	}
	return nil
}

// Symlink makes link name pointing at target, which is not interpreted.
func (d *Dir) Symlink(target, name string) error {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return pathErr("symlink", p, err)
	}
	if err := unix.Symlinkat(target, d.fd, name); err != nil {
		return pathErr("symlink", p, mapErr(err))
	}
	return nil
}

// Rename renames entry from to to within the folder, replacing a file or
// link (or empty folder, for a folder) named to.
func (d *Dir) Rename(from, to string) error {
	p := join(d.rel, to)
	if err := checkName(to); err != nil {
		return pathErr("rename", p, err)
	}
	if err := checkName(from); err != nil {
		return pathErr("rename", join(d.rel, from), err)
	}
	if err := unix.Renameat(d.fd, from, d.fd, to); err != nil {
		return pathErr("rename", p, mapErr(err))
	}
	return nil
}

var noExchange atomic.Bool // the file system refuses RENAME_EXCHANGE

// Replace puts file or link from in the place of file or link to, in one
// step (to names the old entry or the new one, never nothing), and removes
// the old one. Here the two names are exchanged (renameat2
// RENAME_EXCHANGE), then from, now the old entry, is removed: a rename
// over an existing file makes ext4 (auto_da_alloc) and btrfs start writing
// the new file out at once, one small write per file that Root.Sync would
// have written together with the others; a thousand files' writes took
// three times as long so. Where an exchange is refused it is a rename.
// If the process stops between the two steps, from is left holding the
// old entry.
func (d *Dir) Replace(from, to string) error {
	p := join(d.rel, to)
	if err := checkName(to); err != nil {
		return pathErr("rename", p, err)
	}
	if err := checkName(from); err != nil {
		return pathErr("rename", join(d.rel, from), err)
	}
	if !noExchange.Load() {
		err := unix.Renameat2(d.fd, from, d.fd, to, unix.RENAME_EXCHANGE)
		switch {
		case err == nil:
			err := unix.Unlinkat(d.fd, from, 0)
			if errors.Is(err, unix.EISDIR) {
				// to became a folder since the caller looked: put it back.
				unix.Renameat2(d.fd, from, d.fd, to, unix.RENAME_EXCHANGE)
			}
			if err != nil {
				return pathErr("rename", p, mapErr(err))
			}
			return nil
		case errors.Is(err, unix.ENOENT):
			// to is gone since the caller looked: a rename makes it.
		default:
			// Refused (EINVAL, ENOSYS, EXDEV on some file systems, a
			// sandbox's EPERM), and nothing changed: renames from now on,
			// which say what is wrong if anything is.
			noExchange.Store(true)
		}
	}
	return d.Rename(from, to)
}

// Remove removes file or link name (never what a link points to); a folder
// is ErrIsDir.
func (d *Dir) Remove(name string) error {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return pathErr("remove", p, err)
	}
	if err := unix.Unlinkat(d.fd, name, 0); err != nil {
		return pathErr("remove", p, mapErr(err))
	}
	return nil
}

// RemoveDir removes empty folder name: ErrNotEmpty when it holds something,
// ErrLink for a link, ErrNotDir for a file.
func (d *Dir) RemoveDir(name string) error {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return pathErr("remove", p, err)
	}
	if err := unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR); err != nil {
		if errors.Is(err, unix.EEXIST) {
			err = unix.ENOTEMPTY
		}
		return pathErr("remove", p, d.whyNot(name, err))
	}
	return nil
}

// Chmod sets the permissions of regular file name (a link is ErrLink, never
// followed; anything else ErrNotFile). It is a no-op when they are perm.
func (d *Dir) Chmod(name string, perm fs.FileMode) error {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return pathErr("chmod", p, err)
	}
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return pathErr("chmod", p, mapErr(err))
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return pathErr("chmod", p, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return pathErr("chmod", p, ErrNotFile)
	}
	if st.Mode&0o777 == uint32(perm.Perm()) {
		return nil
	}
	if err := unix.Fchmod(fd, uint32(perm.Perm())); err != nil {
		return pathErr("chmod", p, err)
	}
	return nil
}

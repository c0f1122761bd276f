//go:build linux && !portable

package rootfs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The fast implementation: every folder is a descriptor, every name is
// resolved relative to one with O_NOFOLLOW, a path below the root is opened
// in one openat2 call that refuses any link (or, on kernels before 5.6, one
// folder at a time), and an operation is made durable with one syncfs.

// Root is a workspace folder tree opened for reading and writing. Its
// methods may be called from several goroutines.
type Root struct {
	path string
	fd   int
}

// Dir is one folder of a Root, opened without following links. It is used
// by one goroutine at a time.
type Dir struct {
	root *Root
	rel  string
	fd   int
}

// Open opens the folder tree at path (a link at path itself is followed:
// it is where the user put the workspace).
func Open(path string) (*Root, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, pathErr("open", path, err)
	}
	return &Root{path: path, fd: fd}, nil
}

// Path is the path Root was opened at.
func (r *Root) Path() string { return r.path }

// Close releases the root. Dirs opened from it stay usable until closed.
func (r *Root) Close() error {
	if r.fd < 0 {
		return nil
	}
	err := unix.Close(r.fd)
	r.fd = -1
	return err
}

// Sync makes every change made below the root durable: one call for a
// whole operation (here one syncfs of the root's file system).
func (r *Root) Sync() error {
	if err := unix.Syncfs(r.fd); err != nil {
		return pathErr("sync", r.path, err)
	}
	return nil
}

var noOpenat2 atomic.Bool // the kernel or a sandbox refuses openat2

// OpenDir opens folder rel ("" for the root itself, else a clean slash
// path) without following a link anywhere below the root: a link on the
// way is ErrLink, a file ErrNotDir.
func (r *Root) OpenDir(rel string) (*Dir, error) {
	if err := checkPath(rel); err != nil {
		return nil, pathErr("open", rel, err)
	}
	if rel == "" {
		// A new open, not a dup: a dup shares the listing offset.
		fd, err := unix.Openat(r.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, pathErr("open", r.path, err)
		}
		return &Dir{root: r, fd: fd}, nil
	}
	if !noOpenat2.Load() {
		how := unix.OpenHow{
			Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		}
		for try := 0; ; try++ {
			fd, err := unix.Openat2(r.fd, rel, &how)
			switch {
			case err == nil:
				return &Dir{root: r, rel: rel, fd: fd}, nil
			case errors.Is(err, unix.ENOENT):
				return nil, pathErr("open", rel, err)
			case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
				noOpenat2.Store(true)
			case errors.Is(err, unix.EAGAIN) && try < 3:
				continue // a rename elsewhere on the file system: try again
			}
			break // a link, a file, or no openat2: the walk below says which
		}
	}
	d, err := r.OpenDir("")
	if err != nil {
		return nil, err
	}
	for _, el := range strings.Split(rel, "/") {
		next, err := d.OpenDir(el)
		d.Close()
		if err != nil {
			return nil, err
		}
		d = next
	}
	return d, nil
}

// Rel is the folder's path below the root ("" for the root).
func (d *Dir) Rel() string { return d.rel }

// Close releases the folder.
func (d *Dir) Close() error {
	if d.fd < 0 {
		return nil
	}
	err := unix.Close(d.fd)
	d.fd = -1
	return err
}

// OpenDir opens subfolder name without following a link.
func (d *Dir) OpenDir(name string) (*Dir, error) {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return nil, pathErr("open", p, err)
	}
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, pathErr("open", p, d.whyNot(name, err))
	}
	return &Dir{root: d.root, rel: p, fd: fd}, nil
}

// whyNot turns ENOTDIR from an open with O_NOFOLLOW into ErrLink when name
// is a link (Linux says ENOTDIR for both).
func (d *Dir) whyNot(name string, err error) error {
	if errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
		var st unix.Stat_t
		if unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return ErrLink
		}
	}
	return mapErr(err)
}

// mapErr gives the errors rootfs promises their names.
func mapErr(err error) error {
	switch {
	case errors.Is(err, unix.ELOOP):
		return ErrLink
	case errors.Is(err, unix.ENOTDIR):
		return ErrNotDir
	case errors.Is(err, unix.EISDIR):
		return ErrIsDir
	case errors.Is(err, unix.ENOTEMPTY):
		return ErrNotEmpty
	}
	return err
}

// List reads the folder's entries into l.
func (d *Dir) List(l *Listing) error {
	l.reset()
	if l.buf == nil {
		l.buf = make([]byte, 32<<10)
	}
	for {
		n, err := unix.Getdents(d.fd, l.buf)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return pathErr("list", d.rel, err)
		}
		if n <= 0 {
			break
		}
		// linux_dirent64: ino u64, off i64, reclen u16, type u8, name.
		b := l.buf[:n]
		for len(b) >= 19 {
			reclen := int(binary.LittleEndian.Uint16(b[16:]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			l.add(name, typeOfDT(b[18]), nil)
			b = b[reclen:]
		}
	}
	l.finish()
	return nil
}

func typeOfDT(t uint8) Type {
	switch t {
	case unix.DT_REG:
		return TypeFile
	case unix.DT_DIR:
		return TypeDir
	case unix.DT_LNK:
		return TypeLink
	case unix.DT_UNKNOWN:
		return TypeUnknown
	}
	return TypeOther
}

// Lstat describes entry name without following a link.
func (d *Dir) Lstat(name string) (Stat, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return Stat{}, pathErr("lstat", join(d.rel, name), mapErr(err))
	}
	return Stat{Mode: st.Mode, Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino}, nil
}

// ReadFile reads regular file name (a link is ErrLink, never followed).
// sizeHint, the size Lstat gave, saves reallocations.
func (d *Dir) ReadFile(name string, sizeHint int64) ([]byte, error) {
	return d.ReadFileInto(nil, name, sizeHint)
}

// ReadFileInto is ReadFile reading into buf's memory when it is large
// enough (a walk reading many files reuses one buffer).
func (d *Dir) ReadFileInto(buf []byte, name string, sizeHint int64) ([]byte, error) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, pathErr("read", join(d.rel, name), mapErr(err))
	}
	defer unix.Close(fd)
	if sizeHint < 0 {
		sizeHint = 0
	}
	data := buf[:0]
	if int64(cap(data)) < sizeHint+1 {
		data = make([]byte, 0, sizeHint+1)
	}
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		want := cap(data) - len(data)
		n, err := unix.Read(fd, data[len(data):cap(data)])
		if n > 0 {
			data = data[:len(data)+n]
		}
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return nil, pathErr("read", join(d.rel, name), mapErr(err))
		}
		if n == 0 || shortAtSize(n, want, len(data), sizeHint) {
			return data, nil
		}
	}
}

// Readlink returns the target of link name.
func (d *Dir) Readlink(name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(d.fd, name, buf)
		if err != nil {
			return "", pathErr("readlink", join(d.rel, name), mapErr(err))
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

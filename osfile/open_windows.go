package osfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"
)

// OpenFile opens path like os.OpenFile, but shares delete access: another
// process may rename or remove the file while it is open, as on unix (os.Open
// does not share it, so a pack or journal being read could not be replaced).
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if path == "" {
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ERROR_FILE_NOT_FOUND}
	}
	p, err := windows.UTF16PtrFromString(fixLongPath(path))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var access uint32
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		access = windows.GENERIC_READ
	case os.O_WRONLY:
		access = windows.GENERIC_WRITE
	case os.O_RDWR:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	if flag&os.O_APPEND != 0 {
		// Appends only: every write lands at the end, whatever the offset.
		access &^= windows.GENERIC_WRITE
		access |= windows.FILE_APPEND_DATA
	}
	var create uint32
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		create = windows.CREATE_NEW
	case flag&(os.O_CREATE|os.O_TRUNC) == os.O_CREATE|os.O_TRUNC:
		create = windows.CREATE_ALWAYS
	case flag&os.O_CREATE != 0:
		create = windows.OPEN_ALWAYS
	case flag&os.O_TRUNC != 0:
		create = windows.TRUNCATE_EXISTING
	default:
		create = windows.OPEN_EXISTING
	}
	attrs := uint32(windows.FILE_ATTRIBUTE_NORMAL)
	if flag&os.O_CREATE != 0 && perm&0o200 == 0 {
		attrs = windows.FILE_ATTRIBUTE_READONLY
	}
	share := uint32(windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE)
	h, err := windows.CreateFile(p, access, share, nil, create, attrs, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// Open opens path for reading; another process may rename or remove it
// meanwhile.
func Open(path string) (*os.File, error) { return OpenFile(path, os.O_RDONLY, 0) }

// fixLongPath gives a long absolute path the \\?\ prefix that lifts the
// 260 character limit (such a path is not cleaned by Windows, so it is cleaned
// here); other paths are kept as they are.
func fixLongPath(path string) string {
	if len(path) < 248 || strings.HasPrefix(path, `\\`) || !filepath.IsAbs(path) {
		return path // short, UNC or already prefixed, or relative: left to Windows
	}
	return `\\?\` + filepath.Clean(path)
}

// rename renames within one folder through os.Root, which asks for POSIX
// semantics (Windows 10 1607 and later, NTFS): the file replaced may be
// open elsewhere, as on unix. MoveFileEx, which os.Rename uses, refuses
// that.
func rename(oldpath, newpath string) error {
	dir := filepath.Dir(oldpath)
	if filepath.Dir(newpath) != dir {
		return os.Rename(oldpath, newpath)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Rename(filepath.Base(oldpath), filepath.Base(newpath))
}

// remove removes through os.Root, which asks for POSIX semantics (Windows
// 10 1607 and later, NTFS): the name goes at once, even while the file is
// open elsewhere. DeleteFile, which os.Remove uses, may leave it until the
// last open closes.
func remove(path string) error {
	r, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Remove(filepath.Base(path))
}

//go:build !linux || portable

package rootfs

import (
	"errors"
	"io/fs"
	"os"
)

// Mkdir makes subfolder name (mode 0o755 less the umask); fs.ErrExist when
// something of that name is there.
func (d *Dir) Mkdir(name string) error {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return pathErr("mkdir", p, err)
	}
	if err := d.os.Mkdir(name, 0o755); err != nil {
		return pathErr("mkdir", p, mapErr(err))
	}
	d.root.changed(d.rel)
	return nil
}

// CreateExcl makes file name, which must not exist (not even as a link),
// holding data with permissions perm. On error nothing of it is left.
// The file is synced before CreateExcl returns.
func (d *Dir) CreateExcl(name string, data []byte, perm fs.FileMode) error {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return pathErr("create", p, err)
	}
	f, err := d.os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm.Perm())
	if err != nil {
		return pathErr("create", p, mapErr(err))
	}
	d.root.changed(d.rel)
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm.Perm()) // the umask applied to the creation
	}
	if err == nil {
		err = f.Sync() // F_FULLFSYNC on macOS, FlushFileBuffers on Windows
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		d.os.Remove(name)
		return pathErr("create", p, err)
	}
	return nil
}

// Symlink makes link name pointing at target, which is not interpreted.
// Where the system refuses links to this process (Windows without
// Developer Mode), it is ErrLinksRefused and nothing is made.
func (d *Dir) Symlink(target, name string) error {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return pathErr("symlink", p, err)
	}
	if err := d.os.Symlink(toSystemTarget(target), name); err != nil {
		if linksRefused(err) {
			err = ErrLinksRefused
		}
		return pathErr("symlink", p, mapErr(err))
	}
	d.root.changed(d.rel)
	// Some systems (wine) report success and make nothing.
	if fi, err := d.os.Lstat(name); err != nil || typeOfMode(fi.Mode()) != TypeLink {
		return pathErr("symlink", p, ErrLinksRefused)
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
	if err := retryBusy(func() error { return d.os.Rename(from, to) }); err != nil {
		return pathErr("rename", p, mapErr(err))
	}
	d.root.changed(d.rel)
	return nil
}

// Replace puts file or link from in the place of file or link to, in one
// step (to names the old entry or the new one, never nothing), and removes
// the old one: here a rename.
func (d *Dir) Replace(from, to string) error {
	return d.Rename(from, to)
}

// Remove removes file or link name (never what a link points to); a folder
// is ErrIsDir.
func (d *Dir) Remove(name string) error {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return pathErr("remove", p, err)
	}
	fi, err := d.lstat(name)
	if err != nil {
		return pathErr("remove", p, mapErr(err))
	}
	if typeOfMode(fi.Mode()) == TypeDir {
		return pathErr("remove", p, ErrIsDir)
	}
	if err := retryBusy(func() error { return d.os.Remove(name) }); err != nil {
		return pathErr("remove", p, mapErr(err))
	}
	d.root.changed(d.rel)
	return nil
}

// RemoveDir removes empty folder name: ErrNotEmpty when it holds something,
// ErrLink for a link, ErrNotDir for a file.
func (d *Dir) RemoveDir(name string) error {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return pathErr("remove", p, err)
	}
	fi, err := d.lstat(name)
	if err != nil {
		return pathErr("remove", p, mapErr(err))
	}
	switch typeOfMode(fi.Mode()) {
	case TypeDir:
	case TypeLink:
		return pathErr("remove", p, ErrLink)
	default:
		return pathErr("remove", p, ErrNotDir)
	}
	if err := retryBusy(func() error { return d.os.Remove(name) }); err != nil {
		if notEmpty(err) {
			err = ErrNotEmpty
		}
		return pathErr("remove", p, mapErr(err))
	}
	d.root.changed(d.rel)
	return nil
}

// Chmod sets the permissions of regular file name (a link is ErrLink, never
// followed; anything else ErrNotFile). It is a no-op when they are perm.
// Windows keeps only whether the file is read-only.
func (d *Dir) Chmod(name string, perm fs.FileMode) error {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return pathErr("chmod", p, err)
	}
	f, err := d.openFile("chmod", name)
	if errors.Is(err, ErrIsDir) {
		return pathErr("chmod", p, ErrNotFile)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return pathErr("chmod", p, err)
	}
	if fi.Mode().Perm() == perm.Perm() {
		return nil
	}
	if err := f.Chmod(perm.Perm()); err != nil {
		return pathErr("chmod", p, err)
	}
	d.root.changed(d.rel)
	return nil
}

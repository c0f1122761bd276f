//go:build !linux || portable

package rootfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
)

// The generic implementation, on os.Root. os.Root never leaves the root
// but follows links inside it, so every folder is entered by name: Lstat
// says it is a folder, OpenRoot opens it, and os.SameFile of the opened
// folder against the Lstat proves no link was swapped in between. Files are
// opened the same way (Lstat, open, SameFile). Each file written is synced
// on its own; the folders changed are synced at Root.Sync.

// testHookChecked, set by tests, runs between the Lstat of an entry and its
// open: the window in which a link can be swapped in.
var testHookChecked func(d *Dir, name string)

// Root is a workspace folder tree opened for reading and writing. Its
// methods may be called from several goroutines.
type Root struct {
	path string
	os   *os.Root

	mu    sync.Mutex
	dirty map[string]bool // folders changed since the last Sync
}

// Dir is one folder of a Root, opened without following links. It is used
// by one goroutine at a time.
type Dir struct {
	root *Root
	rel  string
	os   *os.Root
	own  bool // os is this Dir's to close (not the Root's)
}

// Open opens the folder tree at path (a link at path itself is followed:
// it is where the user put the workspace).
func Open(path string) (*Root, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &Root{path: path, os: r}, nil
}

// Path is the path Root was opened at.
func (r *Root) Path() string { return r.path }

// Close releases the root. Dirs opened from it stay usable until closed.
func (r *Root) Close() error { return r.os.Close() }

// changed notes that folder rel changed, for Sync.
func (r *Root) changed(rel string) {
	r.mu.Lock()
	if r.dirty == nil {
		r.dirty = map[string]bool{}
	}
	r.dirty[rel] = true
	r.mu.Unlock()
}

// Sync makes every change made below the root durable: the files are
// already synced one by one; the folders whose entries changed are synced
// now (on systems that allow it: not Windows, whose file systems journal
// their folders).
func (r *Root) Sync() error {
	r.mu.Lock()
	dirs := r.dirty
	r.dirty = nil
	r.mu.Unlock()
	if !syncFolders {
		return nil
	}
	for rel := range dirs {
		d, err := r.OpenDir(rel)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotDir) || errors.Is(err, ErrLink) {
			continue // no longer a folder (its parent, in dirs, holds the change)
		}
		if err != nil {
			return pathErr("sync", rel, err)
		}
		f, err := d.os.Open(".")
		if err == nil {
			err = f.Sync()
			f.Close()
		}
		d.Close()
		if err != nil {
			return pathErr("sync", rel, err)
		}
	}
	return nil
}

// OpenDir opens folder rel ("" for the root itself, else a clean slash
// path) without following a link anywhere below the root: a link on the
// way is ErrLink, a file ErrNotDir.
func (r *Root) OpenDir(rel string) (*Dir, error) {
	if err := checkPath(rel); err != nil {
		return nil, pathErr("open", rel, err)
	}
	d := &Dir{root: r, os: r.os}
	if rel == "" {
		return d, nil
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
	if !d.own || d.os == nil {
		return nil
	}
	err := d.os.Close()
	d.os = nil
	return err
}

// OpenDir opens subfolder name without following a link.
func (d *Dir) OpenDir(name string) (*Dir, error) {
	p := join(d.rel, name)
	if err := checkName(name); err != nil {
		return nil, pathErr("open", p, err)
	}
	before, err := d.os.Lstat(name)
	if err != nil {
		return nil, pathErr("open", p, mapErr(err))
	}
	if t := typeOfMode(before.Mode()); t != TypeDir {
		if t == TypeLink {
			return nil, pathErr("open", p, ErrLink)
		}
		return nil, pathErr("open", p, ErrNotDir)
	}
	if testHookChecked != nil {
		testHookChecked(d, name)
	}
	sub, err := d.os.OpenRoot(name)
	if err != nil {
		return nil, pathErr("open", p, mapErr(err))
	}
	after, err := sub.Stat(".")
	if err != nil || !os.SameFile(before, after) {
		sub.Close()
		return nil, pathErr("open", p, ErrLink) // swapped for a link meanwhile
	}
	return &Dir{root: d.root, rel: p, os: sub, own: true}, nil
}

func typeOfMode(m fs.FileMode) Type {
	switch {
	case m&fs.ModeSymlink != 0:
		return TypeLink
	case m.IsDir():
		return TypeDir
	case m.IsRegular():
		return TypeFile
	}
	return TypeOther // sockets, pipes, devices; Windows junctions
}

// List reads the folder's entries into l.
func (d *Dir) List(l *Listing) error {
	l.reset()
	f, err := d.os.Open(".")
	if err != nil {
		return pathErr("list", d.rel, err)
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return pathErr("list", d.rel, err)
	}
	for _, e := range ents {
		// os.Root's listing has each entry's Lstat already (an lstatat on
		// unix, the listing's own data on Windows): no second one.
		if fi, err := e.Info(); err == nil {
			st := statOf(fi)
			l.add([]byte(e.Name()), st.Type(), &st)
		} else {
			l.add([]byte(e.Name()), typeOfMode(e.Type()), nil)
		}
	}
	l.finish()
	return nil
}

// Lstat describes entry name without following a link.
func (d *Dir) Lstat(name string) (Stat, error) {
	fi, err := d.lstat(name)
	if err != nil {
		return Stat{}, pathErr("lstat", join(d.rel, name), mapErr(err))
	}
	return statOf(fi), nil
}

// lstat is os.Root.Lstat, retried while another program holds the file
// (on Windows it opens the file, which a program sharing nothing blocks).
func (d *Dir) lstat(name string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	err := retryBusy(func() error {
		var err error
		fi, err = d.os.Lstat(name)
		return err
	})
	return fi, err
}

// statOf is Stat of what os says of a file.
func statOf(fi fs.FileInfo) Stat {
	m := fi.Mode()
	s := Stat{Mode: uint32(m.Perm()), Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	switch typeOfMode(m) {
	case TypeFile:
		s.Mode |= ModeFile
	case TypeDir:
		s.Mode |= ModeDir
	case TypeLink:
		s.Mode |= ModeLink
	default:
		s.Mode |= 0o010000 // a pipe, socket or device: "other"
	}
	s.Ctime, s.Ino = sysStat(fi)
	return s
}

// openFile opens regular file name for reading, never through a link
// (Lstat, open, os.SameFile).
func (d *Dir) openFile(op, name string) (*os.File, error) {
	p := join(d.rel, name)
	for try := 0; ; try++ {
		before, err := d.lstat(name)
		if err != nil {
			return nil, pathErr(op, p, mapErr(err))
		}
		switch typeOfMode(before.Mode()) {
		case TypeLink:
			return nil, pathErr(op, p, ErrLink)
		case TypeDir:
			return nil, pathErr(op, p, ErrIsDir)
		case TypeFile:
		default:
			return nil, pathErr(op, p, ErrNotFile)
		}
		if testHookChecked != nil {
			testHookChecked(d, name)
		}
		var f *os.File
		err = retryBusy(func() error {
			var err error
			f, err = d.os.OpenFile(name, os.O_RDONLY|openNonblock, 0)
			return err
		})
		if err != nil {
			return nil, pathErr(op, p, mapErr(err))
		}
		after, err := f.Stat()
		if err == nil && os.SameFile(before, after) {
			return f, nil
		}
		f.Close()
		if try == 2 {
			return nil, pathErr(op, p, ErrLink) // replaced over and over: a link race
		}
	}
}

// ReadFile reads regular file name (a link is ErrLink, never followed).
// sizeHint, the size Lstat gave, saves reallocations.
func (d *Dir) ReadFile(name string, sizeHint int64) ([]byte, error) {
	return d.ReadFileInto(nil, name, sizeHint)
}

// ReadFileInto is ReadFile reading into buf's memory when it is large
// enough (a walk reading many files reuses one buffer).
func (d *Dir) ReadFileInto(buf []byte, name string, sizeHint int64) ([]byte, error) {
	f, err := d.openFile("read", name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
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
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF || err == nil && shortAtSize(n, want, len(data), sizeHint) {
			return data, nil
		}
		if err != nil {
			return nil, pathErr("read", join(d.rel, name), err)
		}
	}
}

// Readlink returns the target of link name, with / separators.
func (d *Dir) Readlink(name string) (string, error) {
	t, err := d.os.Readlink(name)
	if err != nil {
		return "", pathErr("readlink", join(d.rel, name), mapErr(err))
	}
	return fromSystemTarget(t), nil
}

package rootfs

import (
	"bytes"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// Errors the operations return inside an *fs.PathError (besides
// fs.ErrNotExist, fs.ErrExist and fs.ErrPermission, which errors.Is
// recognizes in the system's own errors).
var (
	// ErrLink: a symbolic link where a folder or a file was to be opened
	// (also a folder swapped for a link while it was being opened).
	ErrLink = errors.New("it is a symbolic link")
	// ErrNotDir: a file where a folder was expected.
	ErrNotDir = errors.New("not a folder")
	// ErrIsDir: a folder where a file or link was expected.
	ErrIsDir = errors.New("it is a folder")
	// ErrNotFile: not a regular file (a folder, link, socket or device).
	ErrNotFile = errors.New("not a regular file")
	// ErrNotEmpty: a folder to remove still holds something.
	ErrNotEmpty = errors.New("the folder is not empty")
	// ErrGitName: a name a file system may take for ".git".
	ErrGitName = errors.New("a file system may take this name for .git")
	// ErrBadName: not one plain name (empty, ".", "..", or holding a
	// separator or NUL), or a path that is not clean and relative.
	ErrBadName = errors.New("not a plain name inside the root")
	// ErrBusy: another program holds the file open (Windows), still after
	// retries.
	ErrBusy = osfile.ErrBusy
	// ErrLinksRefused: this system does not let this process make symbolic
	// links (Windows without Developer Mode or administrator rights).
	ErrLinksRefused = errors.New("this system does not let rewind-lsp make symbolic links")
)

// Type is the kind of a folder entry.
type Type uint8

const (
	// TypeUnknown: the listing did not say; Lstat tells.
	TypeUnknown Type = iota
	TypeFile
	TypeDir
	TypeLink
	// TypeOther is a socket, pipe or device: never captured or written.
	TypeOther
)

// Unix mode type bits, as Stat.Mode holds them on every system.
const (
	ModeType = 0o170000
	ModeDir  = 0o040000
	ModeFile = 0o100000
	ModeLink = 0o120000
)

// Stat is what Lstat tells of an entry.
type Stat struct {
	// Mode is a unix mode: type bits (ModeFile, ModeDir, ModeLink, others)
	// and permissions. Windows has no executable bit: its files read back
	// 0o666, or 0o444 when read-only.
	Mode  uint32
	Size  int64
	Mtime int64 // ns since 1970
	// Ctime is the inode's change time in ns; 0 where the system keeps
	// none (Windows).
	Ctime int64
	// Ino is the inode number; 0 where it would cost an open (Windows).
	Ino uint64
}

// Type is the kind of entry s describes.
func (s Stat) Type() Type {
	switch s.Mode & ModeType {
	case ModeFile:
		return TypeFile
	case ModeDir:
		return TypeDir
	case ModeLink:
		return TypeLink
	}
	return TypeOther
}

// Perm is the permission bits of s.
func (s Stat) Perm() fs.FileMode { return fs.FileMode(s.Mode & 0o777) }

// Entry is one name of a folder listing.
type Entry struct {
	Name []byte // valid until the next List into the same Listing
	Type Type
	// Stat is what Lstat would say, when the listing already had it
	// (Statted): the generic path reads it with the names (os.Root's
	// listing does on unix, Windows' listing always does), so a walk needs
	// no Lstat per entry there.
	Stat    Stat
	Statted bool
}

// Listing is a folder's entries, sorted by name, "." and ".." left out.
// One Listing is reused from folder to folder, so a walk allocates little.
type Listing struct {
	Entries []Entry
	arena   []byte
	spans   []span
	buf     []byte // system-specific scratch (getdents records)
}

type span struct {
	off, n  int
	t       Type
	st      Stat
	statted bool
}

// reset empties l for the next folder.
func (l *Listing) reset() {
	l.Entries = l.Entries[:0]
	l.arena = l.arena[:0]
	l.spans = l.spans[:0]
}

// add appends one name, copied ("." and ".." are left out), with its
// Stat when st is not nil.
func (l *Listing) add(name []byte, t Type, st *Stat) {
	if len(name) == 0 || name[0] == '.' && (len(name) == 1 || len(name) == 2 && name[1] == '.') {
		return
	}
	sp := span{off: len(l.arena), n: len(name), t: t}
	if st != nil {
		sp.st, sp.statted = *st, true
	}
	l.spans = append(l.spans, sp)
	l.arena = append(l.arena, name...)
}

// finish makes Entries from the names added, sorted.
func (l *Listing) finish() {
	for _, sp := range l.spans {
		l.Entries = append(l.Entries, Entry{Name: l.arena[sp.off : sp.off+sp.n : sp.off+sp.n], Type: sp.t, Stat: sp.st, Statted: sp.statted})
	}
	slices.SortFunc(l.Entries, func(a, b Entry) int { return bytes.Compare(a.Name, b.Name) })
}

// shortAtSize reports whether a read that asked for want bytes and got n
// ended the file: it stopped short exactly at the size Lstat gave
// (total bytes read so far). A short read of a regular file is its end at
// that moment, so the read that would only say "end of file" is saved (one
// system call per file: a first capture reads every file). A file that grew
// meanwhile is read on (a full read), and one whose content changed after
// its Lstat has a newer mtime: the next capture reads it again.
func shortAtSize(n, want, total int, size int64) bool {
	return n > 0 && n < want && int64(total) == size
}

// checkName reports whether name is one plain name this system can hold
// and that may be written: nil, or ErrBadName or ErrGitName.
func checkName(name string) error {
	if IsGitName(name) {
		return ErrGitName
	}
	if name == "" || name == "." || name == ".." || !systemName(name) {
		return ErrBadName
	}
	return nil
}

// checkPath reports whether rel is a clean slash path of plain names below
// the root ("" is the root itself).
func checkPath(rel string) error {
	if rel == "" {
		return nil
	}
	for _, el := range strings.Split(rel, "/") {
		if err := checkName(el); err != nil {
			return err
		}
	}
	return nil
}

// join is rel/name, or name at the root.
func join(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

func pathErr(op, path string, err error) error {
	return &fs.PathError{Op: op, Path: path, Err: err}
}

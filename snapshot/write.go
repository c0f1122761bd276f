package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// This file is the only code that changes a workspace: the command line's
// rewinds and undos, the files a language server writes itself (`via:
// disk`) and the folders it prunes after an editor's deletes all go through
// Writer.
//
// Every path is walked from an open descriptor of the root, one folder at a
// time, with O_NOFOLLOW: a folder swapped for a symbolic link (even while a
// rewind runs) stops the walk with an error instead of leading outside the
// root, and nothing is ever written through a link. Contents land through a
// temporary file beside the target (named ".rewind-<tag>-<n>.tmp", which
// capture ignores and recovery removes) and a rename. Writer does not fsync
// each file: Sync makes everything durable at once, before the caller
// records the operation as complete (an interrupted operation is finished
// from its intent record, so per-file durability buys nothing).

// UnsafePathError reports a path a write refuses: outside the root, into
// .git, through a symbolic link, or onto a folder that is not empty.
type UnsafePathError struct {
	Path   string
	Reason string
}

func (e *UnsafePathError) Error() string {
	return fmt.Sprintf("refusing to write %s: %s", e.Path, e.Reason)
}

// TempPrefix starts the name of every temporary file Writer makes in a
// workspace; TempSuffix ends it. Capture ignores such names.
const (
	TempPrefix = ".rewind-"
	TempSuffix = ".tmp"
)

// IsTempName reports whether a file name is one of Writer's temporary files.
func IsTempName(name string) bool {
	return strings.HasPrefix(name, TempPrefix) && strings.HasSuffix(name, TempSuffix)
}

var tempSeq atomic.Uint64

// Writer changes files under one workspace root. It is not safe for
// concurrent use; callers serialize operations (the journal lock).
type Writer struct {
	root   string
	rootFD int
	tag    string
	dirty  atomic.Bool // something changed since the last Sync
}

// OpenWriter opens root for writing. tag names this operation's temporary
// files (a short id; "" is allowed).
func OpenWriter(root, tag string) (*Writer, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open workspace root %s: %w", root, err)
	}
	if len(tag) > 12 {
		tag = tag[:12]
	}
	return &Writer{root: root, rootFD: fd, tag: tag}, nil
}

// Close releases the root. It does not sync.
func (w *Writer) Close() error {
	if w.rootFD < 0 {
		return nil
	}
	err := unix.Close(w.rootFD)
	w.rootFD = -1
	return err
}

// Sync makes every change made through w durable (one call for all of
// them). It is a no-op when nothing changed.
func (w *Writer) Sync() error {
	if !w.dirty.Load() {
		return nil
	}
	if err := syncRoot(w.rootFD); err != nil {
		return fmt.Errorf("sync %s: %w", w.root, err)
	}
	w.dirty.Store(false)
	return nil
}

// parent opens the folder holding rel, walking from the root without
// following links; with mkdir, missing folders are created. It returns the
// folder's descriptor (the caller closes it) and rel's last element. ok is
// false when a folder is missing and mkdir is not set.
func (w *Writer) parent(rel string, mkdir bool) (fd int, name string, ok bool, err error) {
	if !ValidPath(rel) {
		return -1, "", false, &UnsafePathError{Path: rel, Reason: "not a clean path inside the root (or inside .git)"}
	}
	els := strings.Split(rel, "/")
	fd, err = unix.Dup(w.rootFD)
	if err != nil {
		return -1, "", false, fmt.Errorf("%s: %w", rel, err)
	}
	for i, el := range els[:len(els)-1] {
		next, err := unix.Openat(fd, el, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) && mkdir {
			if err = unix.Mkdirat(fd, el, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				w.dirty.Store(true)
				next, err = unix.Openat(fd, el, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		unix.Close(fd)
		dir := strings.Join(els[:i+1], "/")
		switch {
		case err == nil:
			fd = next
			continue
		case errors.Is(err, unix.ENOENT) && !mkdir:
			return -1, "", false, nil
		case errors.Is(err, unix.ELOOP):
			return -1, "", false, &UnsafePathError{Path: rel, Reason: "its folder " + dir + " is a symbolic link"}
		case errors.Is(err, unix.ENOTDIR):
			return -1, "", false, &UnsafePathError{Path: rel, Reason: dir + " is a file, not a folder"}
		}
		return -1, "", false, fmt.Errorf("%s: folder %s: %w", rel, dir, err)
	}
	return fd, els[len(els)-1], true, nil
}

// lstatAt stats name in folder fd without following a link; ok is false
// when it does not exist.
func lstatAt(fd int, name string) (st unix.Stat_t, ok bool, err error) {
	err = unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return st, false, nil
	}
	return st, err == nil, err
}

func (w *Writer) tempName() string {
	return fmt.Sprintf("%s%s-%d-%d%s", TempPrefix, w.tag, os.Getpid(), tempSeq.Add(1), TempSuffix)
}

// Write makes rel hold data: a regular file (kind KindFile or KindExec,
// keeping the other permission bits of the file it replaces) or a symbolic
// link to data (KindSymlink). Missing folders are created; an empty folder
// in the way is removed (a folder becoming a file or a link), a non-empty
// one is refused. A file already holding data with the right mode is left
// alone, so its modification time stays.
func (w *Writer) Write(rel string, data []byte, kind Kind) error {
	dfd, name, _, err := w.parent(rel, true)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	st, exists, err := lstatAt(dfd, name)
	if err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	mode := fs.FileMode(st.Mode & 0o777)
	switch {
	case !exists:
	case st.Mode&unix.S_IFMT == unix.S_IFDIR:
		if err := unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR); err != nil {
			return &UnsafePathError{Path: rel, Reason: "a folder that is not empty is in the way"}
		}
		w.dirty.Store(true)
		exists = false
	case kind == KindSymlink && st.Mode&unix.S_IFMT == unix.S_IFLNK:
		if cur, err := readlinkAt(dfd, name); err == nil && cur == string(data) {
			return nil
		}
	case kind != KindSymlink && st.Mode&unix.S_IFMT == unix.S_IFREG:
		want := withExec(mode, kind == KindExec)
		if mode == want && st.Size == int64(len(data)) && sameContent(dfd, name, data) {
			return nil
		}
	}
	tmp := w.tempName()
	if kind == KindSymlink {
		if err := unix.Symlinkat(string(data), dfd, tmp); err != nil {
			return fmt.Errorf("write link %s: %w", rel, err)
		}
	} else {
		perm := fs.FileMode(0o644)
		if exists && st.Mode&unix.S_IFMT == unix.S_IFREG {
			perm = mode
		}
		if err := writeTemp(dfd, tmp, data, withExec(perm, kind == KindExec)); err != nil {
			return fmt.Errorf("write %s: %w", rel, err)
		}
	}
	if err := unix.Renameat(dfd, tmp, dfd, name); err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", rel, err)
	}
	w.dirty.Store(true)
	return nil
}

// writeTemp creates name in folder dfd (it must not exist) holding data
// with mode perm.
func writeTemp(dfd int, name string, data []byte, perm fs.FileMode) error {
	fd, err := unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm))
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			unix.Close(fd)
			unix.Unlinkat(dfd, name, 0)
		}
	}()
	for rest := data; len(rest) > 0; {
		n, err := unix.Write(fd, rest)
		if err != nil {
			return err
		}
		rest = rest[n:]
	}
	if err := unix.Fchmod(fd, uint32(perm)); err != nil { // the umask applied to O_CREAT
		return err
	}
	ok = true
	return unix.Close(fd)
}

func readlinkAt(dfd int, name string) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dfd, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// sameContent reports whether regular file name in dfd holds exactly data.
func sameContent(dfd int, name string, data []byte) bool {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	buf := make([]byte, len(data)+1)
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err != nil || m == 0 {
			break
		}
		n += m
	}
	return n == len(data) && bytes.Equal(buf[:n], data)
}

// MakeParents creates the missing folders above rel (for an editor's
// CreateFile, which fails on a missing folder in some editors).
func (w *Writer) MakeParents(rel string) error {
	fd, _, _, err := w.parent(rel, true)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// Chmod sets or clears the executable bits of regular file rel to match
// kind. A missing file is not an error.
func (w *Writer) Chmod(rel string, kind Kind) error {
	dfd, name, ok, err := w.parent(rel, false)
	if err != nil || !ok {
		return err
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if errors.Is(err, unix.ELOOP) {
		return &UnsafePathError{Path: rel, Reason: "it is a symbolic link"}
	}
	if err != nil {
		return fmt.Errorf("chmod %s: %w", rel, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("chmod %s: %w", rel, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return &UnsafePathError{Path: rel, Reason: "not a regular file"}
	}
	mode := fs.FileMode(st.Mode & 0o777)
	if want := withExec(mode, kind == KindExec); want != mode {
		if err := unix.Fchmod(fd, uint32(want)); err != nil {
			return fmt.Errorf("chmod %s: %w", rel, err)
		}
		w.dirty.Store(true)
	}
	return nil
}

// Remove deletes file or link rel (never what a link points to), then the
// folders its removal left empty. A missing file is not an error; a folder
// is refused.
func (w *Writer) Remove(rel string) error {
	dfd, name, ok, err := w.parent(rel, false)
	if err != nil || !ok {
		return err
	}
	st, exists, err := lstatAt(dfd, name)
	if err == nil && exists && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		err = &UnsafePathError{Path: rel, Reason: "it is a folder"}
	} else if err == nil && exists {
		if err = unix.Unlinkat(dfd, name, 0); errors.Is(err, unix.ENOENT) {
			err = nil
		} else if err == nil {
			w.dirty.Store(true)
		}
	}
	unix.Close(dfd)
	if err != nil {
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	return w.Prune(rel)
}

// Prune removes the folders above rel that are empty, deepest first,
// stopping at the first that is not (or at the root). A language server
// calls it after the editor deleted rel, so a rewind leaves the tree as
// the target had it.
func (w *Writer) Prune(rel string) error {
	if !ValidPath(rel) {
		return &UnsafePathError{Path: rel, Reason: "not a clean path inside the root"}
	}
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		dfd, name, ok, err := w.parent(dir, false)
		if err != nil || !ok {
			return err
		}
		err = unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR)
		unix.Close(dfd)
		switch {
		case err == nil:
			w.dirty.Store(true)
		case errors.Is(err, unix.ENOENT):
			// Already gone (an interrupted prune): go on upward.
		default:
			return nil // not empty: stop here
		}
	}
	return nil
}

// RemoveTemps removes Writer's temporary files (of any operation) from the
// folders holding rels: what an interrupted operation may have left.
func (w *Writer) RemoveTemps(rels []string) error {
	seen := map[string]bool{}
	for _, rel := range rels {
		dir := path.Dir(rel)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		var dfd int
		if dir == "." {
			var err error
			if dfd, err = unix.Dup(w.rootFD); err != nil {
				return err
			}
		} else {
			fd, name, ok, err := w.parent(dir, false)
			if err != nil || !ok {
				continue
			}
			dfd, err = unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			unix.Close(fd)
			if err != nil {
				continue
			}
		}
		names, err := readDirNames(dfd)
		for _, n := range names {
			if IsTempName(n) {
				if unix.Unlinkat(dfd, n, 0) == nil {
					w.dirty.Store(true)
				}
			}
		}
		unix.Close(dfd)
		if err != nil {
			return err
		}
	}
	return nil
}

// Apply carries out ops: deletes first (pruning the folders they empty),
// then creates and modifications (mode-only changes just change the mode).
// Each phase runs on several goroutines: writing a file is mostly waiting
// for the file system (a rename over a file makes ext4 start writing the
// new one out), so a thousand files go several times faster side by side.
// It reports the first failure; the caller syncs.
func (w *Writer) Apply(ops []FileOp) error {
	var dels, writes []FileOp
	for _, op := range ops {
		if op.Change == "delete" {
			dels = append(dels, op)
		} else {
			writes = append(writes, op)
		}
	}
	if err := w.each(dels, func(op FileOp) error { return w.Remove(op.Path) }); err != nil {
		return err
	}
	return w.each(writes, func(op FileOp) error {
		if op.Change == "modify" && op.BeforeKind != KindSymlink && op.AfterKind != KindSymlink &&
			bytes.Equal(op.Before, op.After) {
			return w.Chmod(op.Path, op.AfterKind)
		}
		return w.Write(op.Path, op.After, op.AfterKind)
	})
}

// applyWorkers is how many files Apply changes at once.
const applyWorkers = 8

// each runs fn for every op on up to applyWorkers goroutines and returns
// the first error (in ops order); after an error no new op starts.
func (w *Writer) each(ops []FileOp, fn func(FileOp) error) error {
	if len(ops) < 2*applyWorkers {
		for _, op := range ops {
			if err := fn(op); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, len(ops))
	var failed atomic.Bool
	var next atomic.Int64
	var wg sync.WaitGroup
	for range applyWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1)) - 1
				if i >= len(ops) {
					return
				}
				if errs[i] = fn(ops[i]); errs[i] != nil {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// withExec sets or clears the executable bits of perm (where read is set),
// as git does.
func withExec(perm fs.FileMode, exec bool) fs.FileMode {
	if !exec {
		return perm &^ 0o111
	}
	if perm&0o111 != 0 {
		return perm
	}
	return perm | (perm&0o444)>>2
}

// readDirNames lists the names in folder fd (which stays open).
func readDirNames(fd int) ([]string, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), "dir")
	defer f.Close()
	return f.Readdirnames(-1)
}

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

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/rootfs"
)

// This file is the only code that changes a workspace: the command line's
// rewinds and undos, the files a language server writes itself (`via:
// disk`) and the folders it prunes after an editor's deletes all go through
// Writer, on rootfs.
//
// Every path is resolved from the root without following a symbolic link
// (one openat2 on Linux, else one folder at a time): a folder swapped for
// a link (even while a rewind runs) stops the write with an error instead
// of leading outside the root, and nothing is ever written through a link,
// nor into a folder any file system may take for .git. Contents land
// through a temporary file beside the target (named ".rewind-<tag>-<n>.tmp",
// which capture ignores and recovery removes) put in the target's place in
// one step (rootfs.Dir.Replace: on Linux an exchange of the two names, then
// the old file removed; else a rename). Sync makes everything durable
// before the caller records the operation as complete (an interrupted
// operation is finished from its intent record): on Linux one syncfs for
// all files, which also writes their contents out (nothing is written out
// file by file before); elsewhere each file is synced as it is written and
// the folders at Sync. On Windows a file another program holds open is
// retried briefly, then the write fails with nothing half-written (the
// target keeps its old content).

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

var (
	tempSeq atomic.Uint64
	tempPid = os.Getpid()
)

// Writer changes files under one workspace root. It is not safe for
// concurrent use; callers serialize operations (the journal lock).
type Writer struct {
	root  string
	fs    *rootfs.Root
	tag   string
	dirty atomic.Bool // something changed since the last Sync
}

// OpenWriter opens root for writing. tag names this operation's temporary
// files (a short id; "" is allowed).
func OpenWriter(root, tag string) (*Writer, error) {
	r, err := rootfs.Open(root)
	if err != nil {
		return nil, fmt.Errorf("open workspace root %s: %w", root, err)
	}
	if len(tag) > 12 {
		tag = tag[:12]
	}
	return &Writer{root: root, fs: r, tag: tag}, nil
}

// Close releases the root. It does not sync.
func (w *Writer) Close() error {
	if w.fs == nil {
		return nil
	}
	err := w.fs.Close()
	w.fs = nil
	return err
}

// Sync makes every change made through w durable (one call for all of
// them). It is a no-op when nothing changed.
func (w *Writer) Sync() error {
	if !w.dirty.Load() {
		return nil
	}
	if err := w.fs.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", w.root, err)
	}
	w.dirty.Store(false)
	return nil
}

// parent opens the folder holding rel, walking from the root without
// following links; with mkdir, missing folders are created. It returns the
// folder (the caller closes it) and rel's last element. ok is false when a
// folder is missing and mkdir is not set.
func (w *Writer) parent(rel string, mkdir bool) (d *rootfs.Dir, name string, ok bool, err error) {
	if !ValidPath(rel) {
		return nil, "", false, &UnsafePathError{Path: rel, Reason: "not a clean path inside the root (or inside .git)"}
	}
	els := strings.Split(rel, "/")
	name = els[len(els)-1]
	if rootfs.IsGitName(name) {
		return nil, "", false, &UnsafePathError{Path: rel, Reason: "a file system may take " + name + " for .git"}
	}
	// Most folders exist: Root.OpenDir opens one in a single call that
	// refuses any link on the way (openat2 on Linux). Anything else (a
	// missing folder, a link, a file) is found by the walk below, one
	// folder at a time, which also says which folder is in the way.
	dir := ""
	if len(els) > 1 {
		dir = rel[:len(rel)-len(name)-1]
	}
	if d, err = w.fs.OpenDir(dir); err == nil {
		return d, name, true, nil
	}
	d, err = w.fs.OpenDir("")
	if err != nil {
		return nil, "", false, fmt.Errorf("%s: %w", rel, err)
	}
	for i, el := range els[:len(els)-1] {
		next, err := d.OpenDir(el)
		if errors.Is(err, fs.ErrNotExist) && mkdir {
			if err = d.Mkdir(el); err == nil || errors.Is(err, fs.ErrExist) {
				w.dirty.Store(true)
				next, err = d.OpenDir(el)
			}
		}
		d.Close()
		dir := strings.Join(els[:i+1], "/")
		switch {
		case err == nil:
			d = next
			continue
		case errors.Is(err, fs.ErrNotExist) && !mkdir:
			return nil, "", false, nil
		case errors.Is(err, rootfs.ErrLink):
			return nil, "", false, &UnsafePathError{Path: rel, Reason: "its folder " + dir + " is a symbolic link"}
		case errors.Is(err, rootfs.ErrNotDir):
			return nil, "", false, &UnsafePathError{Path: rel, Reason: dir + " is a file, not a folder"}
		case errors.Is(err, rootfs.ErrGitName), errors.Is(err, rootfs.ErrBadName):
			return nil, "", false, &UnsafePathError{Path: rel, Reason: fmt.Sprintf("folder %s: %v", dir, err)}
		}
		return nil, "", false, fmt.Errorf("%s: folder %s: %w", rel, dir, err)
	}
	return d, name, true, nil
}

// lstat stats name in folder d without following a link; ok is false when
// it does not exist.
func lstat(d *rootfs.Dir, name string) (st rootfs.Stat, ok bool, err error) {
	st, err = d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return st, false, nil
	}
	return st, err == nil, err
}

func (w *Writer) tempName() string {
	return fmt.Sprintf("%s%s-%d-%d%s", TempPrefix, w.tag, tempPid, tempSeq.Add(1), TempSuffix)
}

// Write makes rel hold data: a regular file (kind KindFile or KindExec,
// keeping the other permission bits of the file it replaces) or a symbolic
// link to data (KindSymlink). Missing folders are created; an empty folder
// in the way is removed (a folder becoming a file or a link), a non-empty
// one is refused. A file already holding data with the right mode is left
// alone, so its modification time stays. Where the system refuses to make
// links, a link is an error wrapping rootfs.ErrLinksRefused and nothing
// changes.
func (w *Writer) Write(rel string, data []byte, kind Kind) error {
	d, name, _, err := w.parent(rel, true)
	if err != nil {
		return err
	}
	defer d.Close()
	st, exists, err := lstat(d, name)
	if err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	mode := st.Perm()
	switch {
	case !exists:
	case st.Type() == rootfs.TypeDir:
		if err := d.RemoveDir(name); err != nil {
			return &UnsafePathError{Path: rel, Reason: "a folder that is not empty is in the way"}
		}
		w.dirty.Store(true)
		exists = false
	case kind == KindSymlink && st.Type() == rootfs.TypeLink:
		if cur, err := d.Readlink(name); err == nil && cur == string(data) {
			return nil
		}
	case kind != KindSymlink && st.Type() == rootfs.TypeFile:
		want := withExec(mode, kind == KindExec)
		if (mode == want || noExecBit) && st.Size == int64(len(data)) && sameContent(d, name, data) {
			return nil
		}
	}
	tmp := w.tempName()
	if kind == KindSymlink {
		if err := d.Symlink(string(data), tmp); err != nil {
			return fmt.Errorf("write link %s: %w", rel, err)
		}
	} else {
		perm := fs.FileMode(0o644)
		if exists && st.Type() == rootfs.TypeFile {
			perm = mode
		}
		if err := d.CreateExcl(tmp, data, withExec(perm, kind == KindExec)); err != nil {
			return fmt.Errorf("write %s: %w", rel, err)
		}
	}
	w.dirty.Store(true)
	put := d.Rename
	if exists {
		put = d.Replace // see rootfs: no write-out of each file on its own
	}
	if err := put(tmp, name); err != nil {
		d.Remove(tmp)
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}

// sameContent reports whether regular file name in d holds exactly data.
func sameContent(d *rootfs.Dir, name string, data []byte) bool {
	cur, err := d.ReadFile(name, int64(len(data)))
	return err == nil && bytes.Equal(cur, data)
}

// MakeParents creates the missing folders above rel (for an editor's
// CreateFile, which fails on a missing folder in some editors).
func (w *Writer) MakeParents(rel string) error {
	d, _, _, err := w.parent(rel, true)
	if err != nil {
		return err
	}
	return d.Close()
}

// Chmod sets or clears the executable bits of regular file rel to match
// kind. A missing file is not an error. Where files have no executable bit
// (Windows) it does nothing: the snapshot keeps the kind.
func (w *Writer) Chmod(rel string, kind Kind) error {
	if noExecBit {
		return nil
	}
	d, name, ok, err := w.parent(rel, false)
	if err != nil || !ok {
		return err
	}
	defer d.Close()
	st, exists, err := lstat(d, name)
	switch {
	case err != nil:
		return fmt.Errorf("chmod %s: %w", rel, err)
	case !exists:
		return nil
	case st.Type() == rootfs.TypeLink:
		return &UnsafePathError{Path: rel, Reason: "it is a symbolic link"}
	case st.Type() != rootfs.TypeFile:
		return &UnsafePathError{Path: rel, Reason: "not a regular file"}
	}
	want := withExec(st.Perm(), kind == KindExec)
	if want == st.Perm() {
		return nil
	}
	err = d.Chmod(name, want)
	switch {
	case err == nil:
		w.dirty.Store(true)
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.Is(err, rootfs.ErrLink):
		return &UnsafePathError{Path: rel, Reason: "it is a symbolic link"}
	case errors.Is(err, rootfs.ErrNotFile):
		return &UnsafePathError{Path: rel, Reason: "not a regular file"}
	}
	return fmt.Errorf("chmod %s: %w", rel, err)
}

// Remove deletes file or link rel (never what a link points to), then the
// folders its removal left empty. A missing file is not an error; a folder
// is refused.
func (w *Writer) Remove(rel string) error {
	d, name, ok, err := w.parent(rel, false)
	if err != nil || !ok {
		return err
	}
	err = d.Remove(name)
	d.Close()
	switch {
	case err == nil:
		w.dirty.Store(true)
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, rootfs.ErrIsDir):
		return &UnsafePathError{Path: rel, Reason: "it is a folder"}
	default:
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
		d, name, ok, err := w.parent(dir, false)
		if err != nil || !ok {
			return err
		}
		err = d.RemoveDir(name)
		d.Close()
		switch {
		case err == nil:
			w.dirty.Store(true)
		case errors.Is(err, fs.ErrNotExist):
			// Already gone (an interrupted prune): go on upward.
		default:
			return nil // not empty (or a link, or a file): stop here
		}
	}
	return nil
}

// RemoveTemps removes Writer's temporary files (of any operation) from the
// folders holding rels: what an interrupted operation may have left.
func (w *Writer) RemoveTemps(rels []string) error {
	seen := map[string]bool{}
	var l rootfs.Listing
	for _, rel := range rels {
		dir := path.Dir(rel)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		if dir == "." {
			dir = ""
		}
		d, err := w.fs.OpenDir(dir)
		if err != nil {
			continue // gone, or no folder any more
		}
		err = d.List(&l)
		for _, e := range l.Entries {
			if n := string(e.Name); IsTempName(n) && d.Remove(n) == nil {
				w.dirty.Store(true)
			}
		}
		d.Close()
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
		if op.Change == fileop.Delete {
			dels = append(dels, op)
		} else {
			writes = append(writes, op)
		}
	}
	if err := w.each(dels, func(op FileOp) error { return w.Remove(op.Path) }); err != nil {
		return err
	}
	return w.each(writes, func(op FileOp) error {
		if op.Change == fileop.Modify && op.BeforeKind != KindSymlink && op.AfterKind != KindSymlink &&
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

package lsp

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// The server writes a file itself when a WorkspaceEdit cannot carry it
// (binary or invalid UTF-8 content, symlinks, mode bits) or when the client
// has no resource operations. Every write stays inside the workspace root:
// paths with ".." or absolute paths are refused, parent folders are never
// symlinks (os.Root additionally stops any escape, even under a race), and
// content lands atomically (temporary file, fsync, rename).

// checkRel validates a root-relative, slash-separated path.
func checkRel(rel string) error {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains(rel, "\x00") {
		return fmt.Errorf("invalid path %q", rel)
	}
	for _, part := range strings.Split(rel, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("invalid path %q: it must be relative to the root, without . or .. parts", rel)
		}
	}
	return nil
}

// ensureParents creates the missing parent folders of rel inside r and
// refuses a parent that is a symlink or not a folder.
func ensureParents(r *os.Root, rel string) error {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		fi, err := r.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := r.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("creating folder %s: %w", dir, err)
			}
		case err != nil:
			return fmt.Errorf("checking folder %s: %w", dir, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("refusing to write %s: its parent %s is a symbolic link", rel, dir)
		case !fi.IsDir():
			return fmt.Errorf("refusing to write %s: its parent %s is not a folder", rel, dir)
		}
	}
	return nil
}

// checkParents refuses rel when one of its existing parents is a symlink;
// it reports false when a parent is missing.
func checkParents(r *os.Root, rel string) (bool, error) {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		fi, err := r.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return false, fmt.Errorf("refusing to touch %s: its parent %s is a symbolic link", rel, dir)
		}
	}
	return true, nil
}

// makeParents creates the parent folders of rel inside root, so that a
// client's CreateFile does not fail on a missing folder.
func makeParents(root, rel string) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	return ensureParents(r, rel)
}

// writeFile makes rel hold data: a regular file ("file" or "exec", keeping
// the other permission bits of an existing file) or a symlink to data
// ("symlink"). A byte-identical file is left untouched.
func writeFile(root, rel string, data []byte, kind string) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := ensureParents(r, rel); err != nil {
		return err
	}
	cur, curErr := r.Lstat(rel)
	if curErr == nil && cur.IsDir() {
		return fmt.Errorf("refusing to replace folder %s with a file", rel)
	}
	tmp := path.Join(path.Dir(rel), ".rewind-"+randHex()+".tmp")
	if kind == "symlink" {
		if curErr == nil && cur.Mode()&fs.ModeSymlink != 0 {
			if t, err := r.Readlink(rel); err == nil && t == string(data) {
				return nil
			}
		}
		if err := r.Symlink(string(data), tmp); err != nil {
			return fmt.Errorf("creating symlink %s: %w", rel, err)
		}
		if err := r.Rename(tmp, rel); err != nil {
			r.Remove(tmp)
			return fmt.Errorf("placing symlink %s: %w", rel, err)
		}
		return syncDir(r, path.Dir(rel))
	}

	perm := fs.FileMode(0o644)
	if curErr == nil && cur.Mode().IsRegular() {
		perm = cur.Mode().Perm()
	}
	if kind == "exec" {
		perm |= (perm & 0o444) >> 2 // executable where readable, as git does
	} else {
		perm &^= 0o111
	}
	if curErr == nil && cur.Mode().IsRegular() && cur.Mode().Perm() == perm && cur.Size() == int64(len(data)) {
		if old, err := r.ReadFile(rel); err == nil && bytes.Equal(old, data) {
			return nil
		}
	}
	f, err := r.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("writing %s: %w", rel, err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			r.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", rel, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", rel, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", rel, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", rel, err)
	}
	if err := r.Rename(tmp, rel); err != nil {
		r.Remove(tmp)
		return fmt.Errorf("placing %s: %w", rel, err)
	}
	ok = true
	return syncDir(r, path.Dir(rel))
}

// removeFile deletes rel (a file or a symlink, never what it points to).
// A missing file is not an error.
func removeFile(root, rel string) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	exists, err := checkParents(r, rel)
	if err != nil || !exists {
		return err
	}
	fi, err := r.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("refusing to delete folder %s", rel)
	}
	if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("deleting %s: %w", rel, err)
	}
	return syncDir(r, path.Dir(rel))
}

// setExec sets or clears the executable bits of an existing regular file.
func setExec(root, rel string, exec bool) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	if ok, err := checkParents(r, rel); err != nil || !ok {
		return err
	}
	fi, err := r.Lstat(rel)
	if err != nil || !fi.Mode().IsRegular() {
		return nil // not there (yet) or not a file: nothing to do
	}
	perm := fi.Mode().Perm() &^ 0o111
	if exec {
		perm |= (perm & 0o444) >> 2
	}
	if perm == fi.Mode().Perm() {
		return nil
	}
	return r.Chmod(rel, perm)
}

func syncDir(r *os.Root, dir string) error {
	d, err := r.Open(dir)
	if err != nil {
		return nil // best effort
	}
	defer d.Close()
	d.Sync()
	return nil
}

func randHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

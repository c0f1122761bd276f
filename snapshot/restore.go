package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// UnsafePathError reports a path a restore refuses to write: outside the
// root, into .git, or through a symbolic link.
type UnsafePathError struct {
	Path   string
	Reason string
}

func (e *UnsafePathError) Error() string {
	return fmt.Sprintf("refusing to write %s: %s", e.Path, e.Reason)
}

// Restore applies ops on disk under root: deletes first (removing folders
// they empty), then creates and modifications. Only the listed files are
// touched; unchanged files keep their mtime.
func Restore(root string, ops []FileOp) error {
	for _, op := range ops {
		if op.Change == "delete" {
			if err := RemoveFile(root, op.Path); err != nil {
				return err
			}
		}
	}
	for _, op := range ops {
		if op.Change == "delete" {
			continue
		}
		if op.Change == "modify" && bytes.Equal(op.Before, op.After) &&
			op.BeforeKind != KindSymlink && op.AfterKind != KindSymlink {
			if err := Chmod(root, op.Path, op.AfterKind); err != nil {
				return err
			}
			continue
		}
		if err := WriteFile(root, op.Path, op.After, op.AfterKind); err != nil {
			return err
		}
	}
	return nil
}

// safeParent checks that every folder above rel inside root is a real
// folder (creating missing ones when mkdir is set) and returns the absolute
// path of rel.
func safeParent(root, rel string, mkdir bool) (string, error) {
	if !ValidPath(rel) {
		return "", &UnsafePathError{Path: rel, Reason: "not a clean path inside the root"}
	}
	els := strings.Split(rel, "/")
	cur := root
	for _, el := range els[:len(els)-1] {
		cur = filepath.Join(cur, el)
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !mkdir {
				return "", err
			}
			if err := os.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", fmt.Errorf("restore %s: %w", rel, err)
			}
		case err != nil:
			return "", fmt.Errorf("restore %s: %w", rel, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return "", &UnsafePathError{Path: rel, Reason: "a parent folder is a symbolic link"}
		case !fi.IsDir():
			return "", &UnsafePathError{Path: rel, Reason: "a parent is a file, not a folder"}
		}
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}

// WriteFile writes one file (or link, for KindSymlink: data is the link
// target) under root atomically, creating parent folders. It never writes
// outside root nor through a symbolic link.
func WriteFile(root, rel string, data []byte, kind Kind) error {
	abs, err := safeParent(root, rel, true)
	if err != nil {
		return err
	}
	old, lerr := os.Lstat(abs)
	if lerr == nil && old.IsDir() {
		return &UnsafePathError{Path: rel, Reason: "a folder is in the way"}
	}
	if kind == KindSymlink {
		tmp := filepath.Join(filepath.Dir(abs), fmt.Sprintf(".rewind-link-%d", os.Getpid()))
		os.Remove(tmp)
		if err := os.Symlink(string(data), tmp); err != nil {
			return fmt.Errorf("restore %s: %w", rel, err)
		}
		if err := os.Rename(tmp, abs); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("restore %s: %w", rel, err)
		}
		return nil
	}
	perm := fs.FileMode(0o644)
	if lerr == nil && old.Mode().IsRegular() {
		perm = old.Mode().Perm()
	}
	perm = withExec(perm, kind == KindExec)
	if err := writeAtomic(abs, data, perm, true); err != nil {
		return fmt.Errorf("restore %s: %w", rel, err)
	}
	return nil
}

// withExec sets or clears the executable bits of perm (where read is set).
func withExec(perm fs.FileMode, exec bool) fs.FileMode {
	if !exec {
		return perm &^ 0o111
	}
	if perm&0o111 != 0 {
		return perm
	}
	return perm | (perm&0o444)>>2
}

// Chmod sets the executable bit of an existing file to match kind.
func Chmod(root, rel string, kind Kind) error {
	abs, err := safeParent(root, rel, false)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return fmt.Errorf("restore %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return &UnsafePathError{Path: rel, Reason: "not a regular file"}
	}
	if err := os.Chmod(abs, withExec(fi.Mode().Perm(), kind == KindExec)); err != nil {
		return fmt.Errorf("restore %s: %w", rel, err)
	}
	return nil
}

// RemoveFile removes one file or link under root, then the folders its
// removal emptied. A file already gone is not an error.
func RemoveFile(root, rel string) error {
	abs, err := safeParent(root, rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	if fi.IsDir() {
		return &UnsafePathError{Path: rel, Reason: "is a folder"}
	}
	if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	// Remove the folders this emptied; os.Remove fails on non-empty ones.
	for d := filepath.Dir(abs); d != root && strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break
		}
	}
	return nil
}

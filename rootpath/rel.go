package rootpath

import (
	"path/filepath"
	"strings"
)

// Rel is p relative to root, slash-separated, when p lies below root (the
// root itself does not): the path a root-relative command, journal entry
// or store takes. Both are absolute and clean, and they are compared as
// spelled: no link is resolved (RelReal resolves them).
func Rel(root, p string) (string, bool) {
	if root == "" {
		return "", false
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// RelReal is Rel for a root and a path that may name one folder through
// symbolic links (a root opened by its real path, a path through a link to
// it, or the other way round): as spelled first, then with root's links
// resolved and the folders above p resolved (RealPath; p itself may be a
// link, or gone).
func RelReal(root, p string) (string, bool) {
	if rel, ok := Rel(root, p); ok {
		return rel, true
	}
	real := root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		real = r
	}
	for _, r := range []string{root, real} {
		for _, q := range []string{p, RealPath(p)} {
			if rel, ok := Rel(r, q); ok {
				return rel, true
			}
		}
	}
	return "", false
}

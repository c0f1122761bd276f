package rootpath

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRel: a path below the root, and the ones that are not (the root
// itself, its parent, a sibling whose name starts like the root's, a
// name that starts with two dots).
func TestRel(t *testing.T) {
	root := filepath.FromSlash("/w/project")
	for _, c := range []struct {
		p    string
		want string
		ok   bool
	}{
		{"/w/project/a/b.txt", "a/b.txt", true},
		{"/w/project/..x", "..x", true},
		{"/w/project", "", false},
		{"/w", "", false},
		{"/w/project2/a", "", false},
		{"/elsewhere/a", "", false},
	} {
		got, ok := Rel(root, filepath.FromSlash(c.p))
		if got != c.want || ok != c.ok {
			t.Errorf("Rel(%s, %s) = %q, %v; want %q, %v", root, c.p, got, ok, c.want, c.ok)
		}
	}
	if _, ok := Rel("", filepath.FromSlash("/w/a")); ok {
		t.Errorf("Rel of no root is inside")
	}
}

// TestRelReal: a root and a path that name one folder, one through a
// link and one by its real path, either way round; a path whose file is
// gone still resolves by its folder.
func TestRelReal(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	real, _ = filepath.EvalSymlinks(real)
	for _, c := range [][3]string{
		{real, filepath.Join(link, "sub", "a.txt"), "sub/a.txt"},
		{link, filepath.Join(real, "sub", "a.txt"), "sub/a.txt"},
		{link, filepath.Join(link, "sub", "gone", "a.txt"), "sub/gone/a.txt"},
	} {
		if got, ok := RelReal(c[0], c[1]); !ok || got != c[2] {
			t.Errorf("RelReal(%s, %s) = %q, %v; want %q", c[0], c[1], got, ok, c[2])
		}
	}
	if _, ok := RelReal(link, filepath.Join(dir, "other", "a.txt")); ok {
		t.Errorf("a path outside the root is inside it")
	}
}

package rootfs

import (
	"path/filepath"
	"testing"
)

// TestGitNames: no operation opens or writes a name a file system may take
// for .git, in any spelling.
func TestGitNames(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".git/config"), "[core]\n")
	write(t, filepath.Join(dir, "f"), "f")
	r := openRoot(t, dir)
	d := openDir(t, r, "")
	for _, name := range []string{".git", ".GIT", ".Git", ".git.", ".git ", "GIT~1", "git~1", ".git::$INDEX_ALLOCATION", ".g\u200cit"} {
		_, err := d.OpenDir(name)
		wantErr(t, "OpenDir "+name, err, ErrGitName)
		_, err = r.OpenDir(name + "/hooks")
		wantErr(t, "Root.OpenDir "+name, err, ErrGitName)
		wantErr(t, "Mkdir "+name, d.Mkdir(name), ErrGitName)
		wantErr(t, "CreateExcl "+name, d.CreateExcl(name, []byte("x"), 0o644), ErrGitName)
		wantErr(t, "Symlink "+name, d.Symlink("x", name), ErrGitName)
		wantErr(t, "Rename to "+name, d.Rename("f", name), ErrGitName)
		wantErr(t, "Remove "+name, d.Remove(name), ErrGitName)
		wantErr(t, "RemoveDir "+name, d.RemoveDir(name), ErrGitName)
		wantErr(t, "Chmod "+name, d.Chmod(name, 0o644), ErrGitName)
	}
	var l Listing
	d.List(&l)
	if got := names(&l); got != ".git f" {
		t.Fatalf("something was written: %q", got)
	}
}

func TestIsGitName(t *testing.T) {
	for _, n := range []string{".git", ".GIT", ".gIt", ".git.", ".git ", ".git. .", "GIT~1", "git~1", ".git::$INDEX_ALLOCATION", ".g\u200cit", "\ufeff.git", ".gi\u206at", "GiT~1. ", ".Git:stream:$DATA", ".g\u200cIT::$INDEX_ALLOCATION"} {
		if !IsGitName(n) {
			t.Errorf("%q is not taken for .git", n)
		}
	}
	for _, n := range []string{".gitignore", ".github", "git", ".git2", "x.git", ".gi", "GIT~2", "..git", "", "go.mod", "gIt~1x", "\u00e9.git"} {
		if IsGitName(n) {
			t.Errorf("%q is taken for .git", n)
		}
	}
}

// TestBadNames: names that are not one plain name are refused.
func TestBadNames(t *testing.T) {
	d := openDir(t, openRoot(t, t.TempDir()), "")
	for _, name := range []string{"", ".", "..", "a/b", "nul\x00"} {
		wantErr(t, "CreateExcl "+name, d.CreateExcl(name, nil, 0o644), ErrBadName)
	}
}

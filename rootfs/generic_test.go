//go:build !linux || portable

package rootfs

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// swapAfterCheck makes the next check of name in the tests' Dirs be
// followed by name becoming a link to target, before the open.
func swapAfterCheck(t *testing.T, root, name, target string) {
	t.Helper()
	t.Cleanup(func() { testHookChecked = nil })
	testHookChecked = func(d *Dir, n string) {
		if n != name {
			return
		}
		testHookChecked = nil
		p := filepath.Join(root, filepath.FromSlash(join(d.rel, n)))
		if err := os.RemoveAll(p); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Error(err)
		}
	}
}

// TestFolderSwappedAfterCheck: a folder that becomes a link (to another
// folder inside the root, which os.Root would follow) between its Lstat and
// its open is refused.
func TestFolderSwappedAfterCheck(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "other/keep"), "k")
	link(t, "other", filepath.Join(root, "probe"))
	os.Mkdir(filepath.Join(root, "dir"), 0o755)
	r := openRoot(t, root)
	swapAfterCheck(t, root, "dir", "other")
	_, err := r.OpenDir("dir")
	wantErr(t, "open a folder swapped for a link", err, ErrLink)
}

// TestFileSwappedAfterCheck: a file that becomes a link between its Lstat
// and its open is neither read nor chmod'ed through the link.
func TestFileSwappedAfterCheck(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "secret"), "secret")
	write(t, filepath.Join(root, "f"), "f")
	link(t, "secret", filepath.Join(root, "probe"))
	d := openDir(t, openRoot(t, root), "")
	swapAfterCheck(t, root, "f", "secret")
	_, err := d.ReadFile("f", 0)
	wantErr(t, "read a file swapped for a link", err, ErrLink)

	os.Remove(filepath.Join(root, "f"))
	write(t, filepath.Join(root, "f"), "f")
	swapAfterCheck(t, root, "f", "secret")
	wantErr(t, "chmod a file swapped for a link", d.Chmod("f", 0o755), ErrLink)
	if st, _ := d.Lstat("secret"); runtime.GOOS != "windows" && st.Perm() != 0o644 {
		t.Fatalf("chmod went through the link: %v", st.Perm())
	}
}

//go:build unix && (!linux || portable)

package commands

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSocketTempFolderIsPrivate: the short socket path of a long store lies
// in a folder only this user may enter; a folder others may enter, or a
// link planted in its place, is refused.
func TestSocketTempFolderIsPrivate(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	long := "/" + strings.Repeat("x", 150)
	addr, release, err := socketAddr(long)
	if err != nil {
		t.Fatal(err)
	}
	release()
	dir := filepath.Join(tmp, "rewind-lsp-"+strconv.Itoa(os.Getuid()))
	if filepath.Dir(addr) != dir || len(addr) >= socketPathMax {
		t.Fatalf("address %q (%d bytes), want one in %s", addr, len(addr), dir)
	}
	if fi, err := os.Lstat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the socket folder: %v %v", fi.Mode(), err)
	}
	if again, _, _ := socketAddr(long); again != addr {
		t.Fatalf("one store, two addresses: %q %q", addr, again)
	}
	os.Chmod(dir, 0o755)
	if _, _, err := socketAddr(long); err == nil || !strings.Contains(err.Error(), "other users") {
		t.Fatalf("a folder others may enter was used: %v", err)
	}
	os.Remove(dir)
	other := t.TempDir()
	os.Symlink(other, dir)
	if _, _, err := socketAddr(long); err == nil {
		t.Fatal("a link planted in the socket folder's place was followed")
	}
}

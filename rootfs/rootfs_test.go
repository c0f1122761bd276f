package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/testkit/wine"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// link makes a symbolic link for a test's setup, or skips the test (naming
// why) where this process cannot make links.
func link(t *testing.T, target, path string) {
	t.Helper()
	wine.Skip(t, "symbolic links (os.Symlink succeeds and makes nothing)")
	if err := os.Symlink(target, path); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("this Windows account may not make symbolic links (Developer Mode is off): %v", err)
		}
		t.Fatal(err)
	}
}

func openRoot(t *testing.T, path string) *Root {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func openDir(t *testing.T, r *Root, rel string) *Dir {
	t.Helper()
	d, err := r.OpenDir(rel)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got %v, want %v", what, err, want)
	}
}

func names(l *Listing) string {
	var s []string
	for _, e := range l.Entries {
		s = append(s, string(e.Name))
	}
	return strings.Join(s, " ")
}

// TestList: a folder's names come sorted with their types, without "."
// and ".."; a Listing reused for another folder holds only that one's.
func TestList(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "b.txt"), "b")
	write(t, filepath.Join(dir, "a/inner.txt"), "x")
	write(t, filepath.Join(dir, "C"), "c")
	r := openRoot(t, dir)
	var l Listing
	if err := openDir(t, r, "").List(&l); err != nil {
		t.Fatal(err)
	}
	if got := names(&l); got != "C a b.txt" {
		t.Fatalf("listing: %q", got)
	}
	for _, e := range l.Entries {
		want := TypeFile
		if string(e.Name) == "a" {
			want = TypeDir
		}
		if e.Type != want && e.Type != TypeUnknown {
			t.Errorf("%s: type %d, want %d", e.Name, e.Type, want)
		}
	}
	if err := openDir(t, r, "a").List(&l); err != nil {
		t.Fatal(err)
	}
	if got := names(&l); got != "inner.txt" {
		t.Fatalf("second listing: %q", got)
	}
	if err := openDir(t, r, "").List(&l); err != nil || names(&l) != "C a b.txt" {
		t.Fatalf("the root listed again: %q %v", names(&l), err)
	}
}

// TestListLink: a link is listed as a link.
func TestListLink(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "target"), "t")
	link(t, "target", filepath.Join(dir, "l"))
	var l Listing
	if err := openDir(t, openRoot(t, dir), "").List(&l); err != nil {
		t.Fatal(err)
	}
	if names(&l) != "l target" || l.Entries[0].Type != TypeLink && l.Entries[0].Type != TypeUnknown {
		t.Fatalf("listing: %q %v", names(&l), l.Entries)
	}
}

// TestLstat: size, type and permissions of files and folders.
func TestLstat(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "f"), "hello")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	d := openDir(t, openRoot(t, dir), "")
	st, err := d.Lstat("f")
	if err != nil {
		t.Fatal(err)
	}
	if st.Type() != TypeFile || st.Size != 5 || st.Mtime == 0 {
		t.Fatalf("file: %+v", st)
	}
	if runtime.GOOS != "windows" && st.Perm() != 0o644 {
		t.Fatalf("file permissions: %v", st.Perm())
	}
	if st, err := d.Lstat("sub"); err != nil || st.Type() != TypeDir {
		t.Fatalf("folder: %+v %v", st, err)
	}
	_, err = d.Lstat("missing")
	wantErr(t, "missing", err, fs.ErrNotExist)
}

// TestReadFile: contents of any size; a folder or a missing file is an
// error, never an empty file.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("0123456789abcdef", 10000)
	write(t, filepath.Join(dir, "big"), big)
	write(t, filepath.Join(dir, "empty"), "")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	d := openDir(t, openRoot(t, dir), "")
	// The hint is the size Lstat gave; the file may have grown or shrunk
	// since: it is read to its end either way.
	for _, hint := range []int64{0, 100, int64(len(big)) - 1, int64(len(big)), int64(len(big)) + 7, -1} {
		data, err := d.ReadFile("big", hint)
		if err != nil || string(data) != big {
			t.Fatalf("hint %d: %d bytes, %v", hint, len(data), err)
		}
	}
	if data, err := d.ReadFile("empty", 0); err != nil || len(data) != 0 {
		t.Fatalf("empty: %q %v", data, err)
	}
	// Into a buffer that held something else: too small, or large enough
	// (then its memory is used); nothing of the old bytes shows.
	for _, buf := range [][]byte{[]byte("old bytes"), make([]byte, 5, 2*len(big))} {
		copy(buf, "stale")
		data, err := d.ReadFileInto(buf, "big", int64(len(big)))
		if err != nil || string(data) != big {
			t.Fatalf("into a buffer of %d: %d bytes, %v", cap(buf), len(data), err)
		}
		if cap(buf) >= len(big)+1 && &data[0] != &buf[:1][0] {
			t.Errorf("a buffer large enough was not used")
		}
		if data, err := d.ReadFileInto(buf, "empty", 0); err != nil || len(data) != 0 {
			t.Fatalf("empty into a used buffer: %q %v", data, err)
		}
	}
	_, err := d.ReadFile("sub", 0)
	wantErr(t, "read a folder", err, ErrIsDir)
	_, err = d.ReadFile("missing", 0)
	wantErr(t, "read a missing file", err, fs.ErrNotExist)
}

// TestReadThroughLinkRefused: a link is read as a link, never followed.
func TestReadThroughLinkRefused(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "secret"), "secret")
	link(t, filepath.Join(outside, "secret"), filepath.Join(dir, "l"))
	link(t, "sub/target", filepath.Join(dir, "rel"))
	d := openDir(t, openRoot(t, dir), "")
	_, err := d.ReadFile("l", 0)
	wantErr(t, "read a link", err, ErrLink)
	if got, err := d.Readlink("rel"); err != nil || got != "sub/target" {
		t.Fatalf("readlink: %q %v", got, err)
	}
}

// TestOpenDir: folders below the root open by path; a link anywhere on the
// way, a file, a missing folder and a path that is not clean are errors.
func TestOpenDir(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a/b/c/f"), "f")
	r := openRoot(t, dir)
	d := openDir(t, r, "a/b/c")
	if d.Rel() != "a/b/c" {
		t.Fatalf("rel: %q", d.Rel())
	}
	if data, err := d.ReadFile("f", 0); err != nil || string(data) != "f" {
		t.Fatalf("read below: %q %v", data, err)
	}
	_, err := r.OpenDir("a/b/c/f")
	wantErr(t, "a file", err, ErrNotDir)
	_, err = r.OpenDir("a/missing")
	wantErr(t, "missing", err, fs.ErrNotExist)
	for _, bad := range []string{"../x", "/etc", "a//b", "a/./b", ".", "a/", "a/../a"} {
		_, err := r.OpenDir(bad)
		wantErr(t, bad, err, ErrBadName)
	}
}

// TestOpenDirThroughLink: a folder reached through a link, at the end or on
// the way, is refused (it may lead outside the root or elsewhere inside).
func TestOpenDirThroughLink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(dir, "real/sub/f"), "f")
	write(t, filepath.Join(outside, "sub/f"), "f")
	link(t, outside, filepath.Join(dir, "out"))
	link(t, "real", filepath.Join(dir, "in"))
	r := openRoot(t, dir)
	for _, rel := range []string{"out", "out/sub", "in", "in/sub"} {
		_, err := r.OpenDir(rel)
		wantErr(t, rel, err, ErrLink)
	}
	_, err := openDir(t, r, "").OpenDir("in")
	wantErr(t, "Dir.OpenDir of a link", err, ErrLink)
}

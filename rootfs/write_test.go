package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCreateExcl: a new file with its contents and permissions; never over
// an existing file, nor through a dangling link.
func TestCreateExcl(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "old"), "old")
	d := openDir(t, openRoot(t, dir), "")
	if err := d.CreateExcl("new", []byte("data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "new")); string(data) != "data" {
		t.Fatalf("contents: %q", data)
	}
	st, _ := d.Lstat("new")
	if runtime.GOOS != "windows" && st.Perm() != 0o755 {
		t.Fatalf("permissions: %v (the umask must not apply)", st.Perm())
	}
	err := d.CreateExcl("old", []byte("x"), 0o644)
	wantErr(t, "over a file", err, fs.ErrExist)
	if data, _ := os.ReadFile(filepath.Join(dir, "old")); string(data) != "old" {
		t.Fatalf("an existing file changed: %q", data)
	}
}

// TestCreateExclThroughDanglingLink: a link to a missing file outside is
// not followed to create that file.
func TestCreateExclThroughDanglingLink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	link(t, filepath.Join(outside, "planted"), filepath.Join(dir, "l"))
	err := openDir(t, openRoot(t, dir), "").CreateExcl("l", []byte("x"), 0o644)
	wantErr(t, "create over a dangling link", err, fs.ErrExist)
	if _, err := os.Lstat(filepath.Join(outside, "planted")); err == nil {
		t.Fatal("a file was written outside the root through a link")
	}
}

// TestRename: a rename replaces the file of that name.
func TestRename(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "tmp"), "new")
	write(t, filepath.Join(dir, "f"), "old")
	d := openDir(t, openRoot(t, dir), "")
	if err := d.Rename("tmp", "f"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "f")); string(data) != "new" {
		t.Fatalf("after rename: %q", data)
	}
	if _, err := os.Lstat(filepath.Join(dir, "tmp")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("the old name is still there")
	}
}

// TestReplace: a file takes the place of a file or of a link (the link's
// target untouched), the old entry is gone and so is the name it came
// from; a name that is gone by then is made; a folder in the place is
// refused and left where it is, the file too.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "f"), "old")
	write(t, filepath.Join(dir, "target"), "the link's target")
	d := openDir(t, openRoot(t, dir), "")
	read := func(name string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	gone := func(name string) {
		t.Helper()
		if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s is still there", name)
		}
	}
	write(t, filepath.Join(dir, "tmp"), "new")
	if err := d.Replace("tmp", "f"); err != nil {
		t.Fatal(err)
	}
	if got := read("f"); got != "new" {
		t.Fatalf("after replace: %q", got)
	}
	gone("tmp")

	write(t, filepath.Join(dir, "tmp"), "not a link")
	if runtime.GOOS != "windows" {
		link(t, "target", filepath.Join(dir, "l"))
		if err := d.Replace("tmp", "l"); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(filepath.Join(dir, "l")); err != nil || !fi.Mode().IsRegular() || read("l") != "not a link" {
			t.Fatalf("the link replaced: %v %v", fi, err)
		}
		if got := read("target"); got != "the link's target" {
			t.Fatalf("the link's target changed: %q", got)
		}
		gone("tmp")
	}

	write(t, filepath.Join(dir, "tmp"), "made")
	if err := d.Replace("tmp", "none"); err != nil {
		t.Fatal(err)
	}
	if got := read("none"); got != "made" {
		t.Fatalf("a missing name replaced: %q", got)
	}
	gone("tmp")

	write(t, filepath.Join(dir, "tmp"), "file")
	write(t, filepath.Join(dir, "folder", "inside"), "kept")
	if err := d.Replace("tmp", "folder"); err == nil {
		t.Fatal("a folder was replaced by a file")
	}
	if got, tmp := read("folder/inside"), read("tmp"); got != "kept" || tmp != "file" {
		t.Fatalf("after the refused replace: folder/inside %q, tmp %q", got, tmp)
	}
}

// TestSymlink: a link holds its target as given; where the system refuses
// links to this process it is ErrLinksRefused and nothing is made.
func TestSymlink(t *testing.T) {
	dir := t.TempDir()
	d := openDir(t, openRoot(t, dir), "")
	err := d.Symlink("../up/there", "l")
	if errors.Is(err, ErrLinksRefused) {
		if runtime.GOOS != "windows" {
			t.Fatalf("links refused on %s: %v", runtime.GOOS, err)
		}
		if _, err := os.Lstat(filepath.Join(dir, "l")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("a refused link left something: %v", err)
		}
		t.Logf("links refused here, as reported: %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if got, err := d.Readlink("l"); err != nil || got != "../up/there" {
		t.Fatalf("readlink: %q %v", got, err)
	}
	if st, _ := d.Lstat("l"); st.Type() != TypeLink {
		t.Fatalf("not a link: %+v", st)
	}
}

// TestRemove: files and links go (never what a link points to); a folder
// is refused.
func TestRemove(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "f"), "f")
	write(t, filepath.Join(dir, "sub/x"), "x")
	d := openDir(t, openRoot(t, dir), "")
	if err := d.Remove("f"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "f")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("f is still there")
	}
	wantErr(t, "remove a folder", d.Remove("sub"), ErrIsDir)
	wantErr(t, "remove a missing file", d.Remove("f"), fs.ErrNotExist)
}

// TestRemoveLink: removing a link leaves its target.
func TestRemoveLink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "keep"), "keep")
	link(t, filepath.Join(outside, "keep"), filepath.Join(dir, "l"))
	link(t, outside, filepath.Join(dir, "dl"))
	d := openDir(t, openRoot(t, dir), "")
	if err := d.Remove("l"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "RemoveDir of a link", d.RemoveDir("dl"), ErrLink)
	if data, _ := os.ReadFile(filepath.Join(outside, "keep")); string(data) != "keep" {
		t.Fatal("the link's target was touched")
	}
}

// TestRemoveDir: an empty folder goes; one that holds something stays,
// with what it holds.
func TestRemoveDir(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	write(t, filepath.Join(dir, "full/x"), "x")
	write(t, filepath.Join(dir, "f"), "f")
	d := openDir(t, openRoot(t, dir), "")
	if err := d.RemoveDir("empty"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "empty")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("the empty folder is still there")
	}
	wantErr(t, "a full folder", d.RemoveDir("full"), ErrNotEmpty)
	if data, _ := os.ReadFile(filepath.Join(dir, "full/x")); string(data) != "x" {
		t.Fatal("a file in a full folder was lost")
	}
	wantErr(t, "a file", d.RemoveDir("f"), ErrNotDir)
}

// TestChmod: the permissions are set exactly (Windows keeps only
// read-only); a folder is refused.
func TestChmod(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "f"), "f")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	d := openDir(t, openRoot(t, dir), "")
	for _, perm := range []fs.FileMode{0o755, 0o600, 0o644, 0o444, 0o644} {
		if err := d.Chmod("f", perm); err != nil {
			t.Fatal(err)
		}
		st, _ := d.Lstat("f")
		want := perm
		if runtime.GOOS == "windows" {
			want = 0o666 // no executable bit; read-only or not
			if perm&0o200 == 0 {
				want = 0o444
			}
		}
		if st.Perm() != want {
			t.Fatalf("chmod %v: %v, want %v", perm, st.Perm(), want)
		}
	}
	wantErr(t, "chmod a folder", d.Chmod("sub", 0o755), ErrNotFile)
}

// TestChmodLink: a link is refused, its target untouched.
func TestChmodLink(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "target"), "t")
	link(t, "target", filepath.Join(dir, "l"))
	d := openDir(t, openRoot(t, dir), "")
	wantErr(t, "chmod a link", d.Chmod("l", 0o755), ErrLink)
	if st, _ := d.Lstat("target"); runtime.GOOS != "windows" && st.Perm() != 0o644 {
		t.Fatalf("the link's target changed mode: %v", st.Perm())
	}
}

// TestSync: an operation's changes can be made durable, however many
// folders they touched (folder syncs are refused on Windows: none is made).
func TestSync(t *testing.T) {
	dir := t.TempDir()
	r := openRoot(t, dir)
	d := openDir(t, r, "")
	if err := d.Mkdir("sub"); err != nil {
		t.Fatal(err)
	}
	sub := openDir(t, r, "sub")
	if err := sub.CreateExcl("f", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateExcl("g", []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := r.Sync(); err != nil {
		t.Fatal(err)
	}
	// A folder changed, then made a file (or a link) before the Sync.
	if err := sub.Remove("f"); err != nil {
		t.Fatal(err)
	}
	sub.Close()
	if err := d.RemoveDir("sub"); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateExcl("sub", []byte("now a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.Sync(); err != nil {
		t.Fatalf("sync after a folder became a file: %v", err)
	}
}

// TestNoWriteThroughSwappedFolder: a folder swapped back and forth for a
// link (to the outside, or to another folder inside the root) while files
// are written into it: nothing lands outside the root or in the other
// folder.
func TestNoWriteThroughSwappedFolder(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	link(t, outside, filepath.Join(root, "probe"))
	os.Remove(filepath.Join(root, "probe"))
	os.Mkdir(filepath.Join(root, "other"), 0o755)
	r := openRoot(t, root)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the attacker: dir is a folder, then a link, then a folder…
		defer wg.Done()
		p := filepath.Join(root, "dir")
		for i := 0; !stop.Load(); i++ {
			os.RemoveAll(p)
			os.Mkdir(p, 0o755)
			time.Sleep(20 * time.Microsecond) // a folder for a while: writes land
			os.RemoveAll(p)
			if i%2 == 0 {
				os.Symlink(outside, p)
			} else {
				os.Symlink("other", p)
			}
		}
	}()
	wrote := 0
	for i := 0; i < 2000; i++ {
		d, err := r.OpenDir("dir")
		if err != nil {
			continue
		}
		if d.CreateExcl("tmp", []byte("data"), 0o644) == nil && d.Rename("tmp", "f") == nil {
			wrote++
		}
		d.Symlink("x", "l")
		d.Mkdir("m")
		d.Close()
	}
	stop.Store(true)
	wg.Wait()
	for _, dir := range []string{outside, filepath.Join(root, "other")} {
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("written through a link into %s: %v", dir, ents)
		}
	}
	t.Logf("%d writes landed in the folder itself", wrote)
}

// TestLinksAllowed: the answer agrees with what making a link does (under
// wine and on Windows without Developer Mode: refused), and the probe
// leaves nothing behind.
func TestLinksAllowed(t *testing.T) {
	dir := t.TempDir()
	allowed := LinksAllowed(dir)
	err := openDir(t, openRoot(t, dir), "").Symlink("target", "l")
	if errors.Is(allowed, ErrLinksRefused) != errors.Is(err, ErrLinksRefused) {
		t.Fatalf("LinksAllowed says %v, a link says %v", allowed, err)
	}
	if runtime.GOOS != "windows" && allowed != nil {
		t.Fatalf("links refused on %s: %v", runtime.GOOS, allowed)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "l" {
			t.Fatalf("the probe left %s", e.Name())
		}
	}
}

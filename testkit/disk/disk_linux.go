package disk

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// mounted holds the folders Small mounted: Fill fills nothing else, so a
// test can never fill the machine's own disk by mistake.
var (
	mu      sync.Mutex
	mounted = map[string]bool{}
)

// canMount reports why this process cannot mount, or "".
func canMount() string {
	if os.Geteuid() != 0 {
		return "mounting a small or read-only file system needs root"
	}
	return ""
}

// Small mounts a tmpfs of size bytes on a new temporary folder and returns
// the folder; it is unmounted when the test ends.
func Small(t testing.TB, size int64) string {
	t.Helper()
	if why := canMount(); why != "" {
		t.Skip(why)
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Fatalf("mount a %d-byte tmpfs on %s: %v", size, dir, err)
	}
	mu.Lock()
	mounted[dir] = true
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		delete(mounted, dir)
		mu.Unlock()
		unix.Unmount(dir, unix.MNT_DETACH)
	})
	return dir
}

// onSmall reports whether dir is inside a file system Small mounted.
func onSmall(dir string) bool {
	mu.Lock()
	defer mu.Unlock()
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if mounted[d] {
			return true
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

// ReadOnly makes dir read-only for everyone, root included (a read-only
// bind mount of it over itself), until the test ends or the returned
// function is called.
func ReadOnly(t testing.TB, dir string) (writable func()) {
	t.Helper()
	if why := canMount(); why != "" {
		t.Skip(why)
	}
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		t.Fatalf("bind-mount %s: %v", dir, err)
	}
	if err := unix.Mount("", dir, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		unix.Unmount(dir, unix.MNT_DETACH)
		t.Fatalf("remount %s read-only: %v", dir, err)
	}
	done := false
	writable = func() {
		if !done {
			done = true
			unix.Unmount(dir, unix.MNT_DETACH)
		}
	}
	t.Cleanup(writable)
	return writable
}

// Fill writes a file into dir until at most leave bytes are free on its
// file system, and returns the function that removes it. dir must be on a
// file system Small mounted (the test fails otherwise: it would fill the
// machine's disk).
func Fill(t testing.TB, dir string, leave int64) (free func()) {
	t.Helper()
	if !onSmall(dir) {
		t.Fatalf("disk.Fill: %s is not on a file system disk.Small mounted; filling it would fill the machine's disk", dir)
	}
	p := filepath.Join(dir, ".filler")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		var st unix.Statfs_t
		if err := unix.Statfs(dir, &st); err != nil {
			t.Fatal(err)
		}
		avail := int64(st.Bavail) * int64(st.Bsize)
		if avail <= leave {
			break
		}
		n := min(int64(len(chunk)), avail-leave)
		if _, err := f.Write(chunk[:n]); err != nil {
			break // full
		}
	}
	return func() { os.Remove(p) }
}

// Free is the number of bytes free on dir's file system.
func Free(t testing.TB, dir string) int64 {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

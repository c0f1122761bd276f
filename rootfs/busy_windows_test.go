package rootfs

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/osfile"

	"golang.org/x/sys/windows"
)

func shortBusyWait(t *testing.T) {
	old := osfile.BusyWait
	osfile.BusyWait = 100 * time.Millisecond
	t.Cleanup(func() { osfile.BusyWait = old })
}

// hold opens path the way an editor that shares nothing does, until the
// test ends.
func hold(t *testing.T, path string) {
	t.Helper()
	p, _ := windows.UTF16PtrFromString(path)
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { windows.CloseHandle(h) })
}

// TestHeldFile: a file another program holds open without sharing is
// reported busy on read and on replacement, and stays as it was: nothing
// half-written.
func TestHeldFile(t *testing.T) {
	shortBusyWait(t)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "f"), "old")
	d := openDir(t, openRoot(t, dir), "")
	hold(t, filepath.Join(dir, "f"))
	_, err := d.ReadFile("f", 0)
	wantErr(t, "read a held file", err, ErrBusy)
	if err := d.CreateExcl("tmp", []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = d.Rename("tmp", "f")
	wantErr(t, "replace a held file", err, ErrBusy)
	t.Log(err)
}

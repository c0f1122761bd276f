package rootfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

func shortBusyWait(t *testing.T) {
	old := busyWait
	busyWait = 100 * time.Millisecond
	t.Cleanup(func() { busyWait = old })
}

// TestRetryBusy: a sharing violation that goes away is retried until the
// operation succeeds.
func TestRetryBusy(t *testing.T) {
	calls := 0
	err := retryBusy(func() error {
		calls++
		if calls < 3 {
			return &os.PathError{Op: "rename", Path: "f", Err: windows.ERROR_SHARING_VIOLATION}
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}

// TestRetryBusyGivesUp: a file held for good is reported as busy, naming
// the system's error, after busyWait.
func TestRetryBusyGivesUp(t *testing.T) {
	shortBusyWait(t)
	start := time.Now()
	err := retryBusy(func() error { return windows.ERROR_SHARING_VIOLATION })
	if !errors.Is(err, ErrBusy) || !errors.Is(err, windows.ERROR_SHARING_VIOLATION) || !strings.Contains(err.Error(), "another program") {
		t.Fatalf("got %v", err)
	}
	if waited := time.Since(start); waited < busyWait {
		t.Fatalf("gave up after %v", waited)
	}
	calls := 0
	err = retryBusy(func() error { calls++; return windows.ERROR_FILE_NOT_FOUND })
	if calls != 1 || errors.Is(err, ErrBusy) {
		t.Fatalf("a missing file was retried (%d calls) or called busy: %v", calls, err)
	}
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

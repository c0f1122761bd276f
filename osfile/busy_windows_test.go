package osfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/testkit/wine"
	"golang.org/x/sys/windows"
)

// TestRetryBusy: a sharing violation that goes away is retried until the
// operation succeeds.
func TestRetryBusy(t *testing.T) {
	calls := 0
	err := Retry(func() error {
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
// the system's error, after BusyWait; other errors are not retried.
func TestRetryBusyGivesUp(t *testing.T) {
	old := BusyWait
	BusyWait = 100 * time.Millisecond
	defer func() { BusyWait = old }()
	start := time.Now()
	err := Retry(func() error { return windows.ERROR_SHARING_VIOLATION })
	if !errors.Is(err, ErrBusy) || !errors.Is(err, windows.ERROR_SHARING_VIOLATION) || !strings.Contains(err.Error(), "another program") {
		t.Fatalf("got %v", err)
	}
	if waited := time.Since(start); waited < BusyWait {
		t.Fatalf("gave up after %v", waited)
	}
	calls := 0
	err = Retry(func() error { calls++; return windows.ERROR_FILE_NOT_FOUND })
	if calls != 1 || errors.Is(err, ErrBusy) {
		t.Fatalf("a missing file was retried (%d calls) or called busy: %v", calls, err)
	}
}

// TestRenameWhileRead: a store file read by another open (ReadFile's, a
// pack's) can be replaced by a rename: all opens share delete.
func TestRenameWhileRead(t *testing.T) {
	wine.Skip(t, "POSIX rename semantics (a file open elsewhere cannot be replaced)")
	dir := t.TempDir()
	p := filepath.Join(dir, "index")
	os.WriteFile(p, []byte("old"), 0o600)
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.WriteFile(filepath.Join(dir, "tmp"), []byte("new"), 0o600)
	if err := Rename(filepath.Join(dir, "tmp"), p); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(p); err != nil || string(data) != "new" {
		t.Fatalf("after rename: %q %v", data, err)
	}
}

package osfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/rewind-lsp/rewind-lsp/testkit/wine" // removals work under wine
)

// TestMain is also the other process of TestLockAcrossProcesses: with
// OSFILE_HOLD set it locks that file, says so, and exits when its input ends.
func TestMain(m *testing.M) {
	if p := os.Getenv("OSFILE_HOLD"); p != "" {
		f, err := OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
		if err == nil {
			err = Lock(f, Exclusive)
		}
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func openRW(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func try(t *testing.T, f *os.File, how How) bool {
	t.Helper()
	ok, err := TryLock(f, how)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestLockExcludes: an exclusive lock keeps out every other open of the
// file, shared or exclusive, in this process too, until it is released.
func TestLockExcludes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	a, b := openRW(t, p), openRW(t, p)
	if err := Lock(a, Exclusive); err != nil {
		t.Fatal(err)
	}
	if try(t, b, Exclusive) || try(t, b, Shared) {
		t.Fatal("a second open took a lock while an exclusive one was held")
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if !try(t, b, Exclusive) {
		t.Fatal("the lock was not free after Unlock")
	}
}

// TestSharedLocks: shared locks coexist; an exclusive one waits for them.
func TestSharedLocks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	a, b, c := openRW(t, p), openRW(t, p), openRW(t, p)
	if !try(t, a, Shared) || !try(t, b, Shared) {
		t.Fatal("two shared locks did not coexist")
	}
	if try(t, c, Exclusive) {
		t.Fatal("an exclusive lock was taken beside shared ones")
	}
	Unlock(a)
	Unlock(b)
	if !try(t, c, Exclusive) {
		t.Fatal("the exclusive lock was refused once the shared ones were gone")
	}
}

// TestLockWaits: Lock returns only once the holder lets go.
func TestLockWaits(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	a, b := openRW(t, p), openRW(t, p)
	if err := Lock(a, Exclusive); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	got := make(chan error)
	go func() {
		err := Lock(b, Exclusive)
		select {
		case <-released:
			got <- err
		default:
			got <- errors.New("Lock returned while the other open held the lock")
		}
	}()
	time.Sleep(50 * time.Millisecond)
	close(released)
	Unlock(a)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}

// TestLockKeepsDataReadable: a locked file's contents can still be read
// and written through other opens (who holds the journal's lock is written
// in the lock file; packs are read while their writer holds their lock).
// Windows locks are mandatory, so this holds only because the locked byte
// lies past the data.
func TestLockKeepsDataReadable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pack")
	a := openRW(t, p)
	if _, err := a.WriteAt([]byte("pid 42\n"), 0); err != nil {
		t.Fatal(err)
	}
	if err := Lock(a, Exclusive); err != nil {
		t.Fatal(err)
	}
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil || string(data) != "pid 42\n" {
		t.Fatalf("read of a locked file: %q %v", data, err)
	}
	w := openRW(t, p)
	if _, err := w.WriteAt([]byte("pid 43\n"), 0); err != nil {
		t.Fatalf("write to a locked file through another open: %v", err)
	}
}

// TestLockAcrossProcesses: a lock held by another process keeps this one
// out, and is free once that process exits (a dead holder never wedges the
// store).
func TestLockAcrossProcesses(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "OSFILE_HOLD="+p)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper: %q %v", line, err)
	}
	f := openRW(t, p)
	if try(t, f, Shared) {
		t.Error("took a shared lock another process holds exclusively")
	}
	stdin.Close() // the helper exits without unlocking
	go io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	// Windows releases a dead process's locks shortly after it exits.
	deadline := time.Now().Add(5 * time.Second)
	for !try(t, f, Exclusive) {
		if time.Now().After(deadline) {
			t.Fatal("the lock of a process that exited was never released")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestIdentity: two opens of one file have one ID; a file renamed over the
// path has another.
func TestIdentity(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "journal")
	os.WriteFile(p, []byte("a\n"), 0o600)
	id := func() ID {
		f, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		id, err := Identity(f)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	first := id()
	if again := id(); again != first {
		t.Fatalf("one file, two IDs: %v %v", first, again)
	}
	os.WriteFile(filepath.Join(dir, "new"), []byte("b\n"), 0o600)
	if err := os.Rename(filepath.Join(dir, "new"), p); err != nil {
		t.Fatal(err)
	}
	if replaced := id(); replaced == first {
		t.Fatalf("a replaced file kept its ID %v", first)
	}
}

// TestOpenSharesDelete: a file open for reading can be renamed away, its
// path given to a new file, and then removed, while the reader goes on
// reading the old contents (a pack or journal replaced while another
// process reads it).
func TestOpenSharesDelete(t *testing.T) {
	dir := t.TempDir()
	p, old := filepath.Join(dir, "pack"), filepath.Join(dir, "pack.old")
	os.WriteFile(p, []byte("old contents"), 0o600)
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Rename(p, old); err != nil {
		t.Fatalf("rename of a file open for reading: %v", err)
	}
	if err := os.WriteFile(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(old); err != nil {
		t.Fatalf("remove of a file open for reading: %v", err)
	}
	data, err := io.ReadAll(f)
	if err != nil || string(data) != "old contents" {
		t.Fatalf("read after rename: %q %v", data, err)
	}
}

// TestOpenFileFlags: creation, exclusive creation, truncation and append
// mean what they mean for os.OpenFile.
func TestOpenFileFlags(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if _, err := OpenFile(p, os.O_RDONLY, 0); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("open of a missing file: %v", err)
	}
	f, err := OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("one\n"))
	f.Close()
	if _, err := OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, os.ErrExist) {
		t.Fatalf("exclusive create of an existing file: %v", err)
	}
	f, err = OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("two\n"))
	f.Close()
	if data, _ := os.ReadFile(p); string(data) != "one\ntwo\n" {
		t.Fatalf("after append: %q", data)
	}
	f, err = OpenFile(p, os.O_RDWR|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if data, _ := os.ReadFile(p); len(data) != 0 {
		t.Fatalf("after truncate: %q", data)
	}
}

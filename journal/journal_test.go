package journal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/rewind-lsp/rewind-lsp/testkit/wine" // removals work under wine
)

// TestMain is also the other process of TestLockHeldByAnotherProcess: with
// JOURNAL_HOLD set it takes that store's journal lock, says so, and exits
// when its input ends (without unlocking: the system releases it).
func TestMain(m *testing.M) {
	if dir := os.Getenv("JOURNAL_HOLD"); dir != "" {
		if _, err := Open(dir).Lock(); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func appendEntries(t testing.TB, j *Journal, ents ...*Entry) {
	t.Helper()
	l, err := j.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if err := l.Append(ents...); err != nil {
		t.Fatal(err)
	}
}

// labels reads j and lists its entries' labels (damaged lines left out).
func labels(t *testing.T, j *Journal) string {
	t.Helper()
	ents, _, err := j.ReadAll()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var s []string
	for _, e := range ents {
		s = append(s, e.Label)
	}
	return strings.Join(s, " ")
}

// TestAppendAndRead: entries appended under the lock are read back in
// order, by this Journal and by another one on the same store; a journal
// replaced by another file (a restored copy) is read again whole.
func TestAppendAndRead(t *testing.T) {
	dir := t.TempDir()
	j := openT(t, dir)
	appendEntries(t, j, &Entry{Kind: KindCheckpoint, Label: "a"})
	appendEntries(t, j, &Entry{Kind: KindCheckpoint, Label: "b"}, &Entry{Kind: KindCheckpoint, Label: "c"})
	if got := labels(t, j); got != "a b c" {
		t.Fatalf("read %q", got)
	}
	other := openT(t, dir)
	appendEntries(t, other, &Entry{Kind: KindCheckpoint, Label: "d"})
	if got := labels(t, j); got != "a b c d" {
		t.Fatalf("after another's append: %q", got)
	}
	// A copy of the journal with other entries, renamed over it: the
	// same size as what was read, another file.
	data, _ := os.ReadFile(j.Path())
	swapped := strings.NewReplacer(`"label":"a"`, `"label":"x"`).Replace(string(data))
	tmp := filepath.Join(dir, "journal.copy")
	os.WriteFile(tmp, []byte(swapped), 0o600)
	if ents, _, _ := parseJournal([]byte(swapped)); len(ents) != 3 { // the edited line fails its checksum
		t.Fatalf("the copy parses to %d entries", len(ents))
	}
	if err := os.Rename(tmp, j.Path()); err != nil {
		t.Fatal(err)
	}
	if got := labels(t, j); got != "b c d" {
		t.Fatalf("a replaced journal was not read again: %q", got)
	}
}

// TestLockHeldByAnotherProcess: while another process holds the journal's
// lock, a lock with a deadline gives up naming the holder, and the lock
// file stays readable; when that process dies, the lock is free.
func TestLockHeldByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	j := openT(t, dir)
	appendEntries(t, j, &Entry{Kind: KindCheckpoint, Label: "a"})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "JOURNAL_HOLD="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("holder: %q %v", line, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := j.LockContext(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) {
		t.Fatalf("lock while another process holds it: %v (holder pid %d)", err, cmd.Process.Pid)
	}
	if got := labels(t, j); got != "a" {
		t.Fatalf("read while locked elsewhere: %q", got)
	}
	stdin.Close()
	go io.Copy(io.Discard, stdout)
	cmd.Wait()
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l, err := j.LockContext(ctx)
	if err != nil {
		t.Fatalf("the lock of a dead process was not released: %v", err)
	}
	l.Unlock()
}

// TestReadAllWaitsForAppend: fsck's whole read sees a torn last line only
// when no append is running (a shared lock behind the appenders).
func TestReadAllWaitsForAppend(t *testing.T) {
	dir := t.TempDir()
	j := openT(t, dir)
	appendEntries(t, j, &Entry{Kind: KindCheckpoint, Label: "a"})
	f, _ := os.OpenFile(j.Path(), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`4f2a11c0 {"id":"torn`)
	f.Close()
	l, err := j.Lock()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []*LineError)
	go func() {
		_, bad, _ := j.ReadAll()
		done <- bad
	}()
	select {
	case <-done:
		t.Fatal("ReadAll did not wait for the append in progress")
	case <-time.After(100 * time.Millisecond):
	}
	l.Unlock()
	if bad := <-done; len(bad) != 1 || !errors.Is(bad[0].Err, ErrTornLine) {
		t.Fatalf("after the append ended: %v", bad)
	}
}

// openT opens the journal in dir for test t, and lets go of its files
// when t ends (so that t's folder can be removed on Windows too).
func openT(t testing.TB, dir string) *Journal {
	j := Open(dir)
	t.Cleanup(func() { j.Close() })
	return j
}

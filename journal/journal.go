package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal/internal/view"
	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// LineError is a damaged journal line.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("journal line %d: %v", e.Line, e.Err) }

// Journal is the append-only record of one root: one line per entry, each
// "<crc32c hex> <json>\n". Appends hold an exclusive file lock, so several
// processes can append at once. A torn last line (a crash or a full disk
// mid-write) is skipped by History, reported by ReadAll (fsck), and set aside
// by the next append: its bytes move to a file beside the journal, which
// fsck names once as repaired (Repairs). Whole lines are never rewritten
// or cut.
type Journal struct {
	path     string
	lockPath string
	sem      chan struct{} // serializes this process's lock holders

	// The view as this process holds it (package view), and the History
	// of its latest reader.
	view *view.Store[*Entry]
	hmu  sync.Mutex
	hist *History
}

// Open opens the journal in store folder dir.
func Open(dir string) *Journal {
	path := filepath.Join(dir, "journal")
	return &Journal{path: path, lockPath: filepath.Join(dir, "lock"), sem: make(chan struct{}, 1),
		view: view.New[*Entry](path, filepath.Join(dir, "view"), schema{})}
}

// History reads the journal: the view as persisted, then what was appended
// after it. It is cheap when nothing changed.
func (j *Journal) History() (*History, error) {
	r, err := j.view.Current()
	if err != nil {
		return nil, err
	}
	j.hmu.Lock()
	defer j.hmu.Unlock()
	if j.hist == nil || j.hist.v != r {
		j.hist = &History{v: r}
	}
	return j.hist, nil
}

// Persist writes what this process holds in memory to the view, when it
// is enough to be worth a segment and no other process is writing the view
// (the lock holder of the journal calls it after an append).
func (j *Journal) Persist() { j.view.Persist() }

// CheckView compares the view on disk with one built afresh from the part
// of the journal it covers (fsck). Problems are disagreements of a view
// whose files are intact: the view is then built again. Notes say what was
// no damage: view files missing or damaged, built again from the journal
// (the view is derived: nothing was lost).
func (j *Journal) CheckView() (problems, notes []string, err error) { return j.view.Check() }

// Close lets go of the files this process holds open to read the journal
// and its view. Histories read before must not be used after it; the next
// History opens the files again. A process that ends need not call it;
// one that is about to remove the store must (Windows keeps the name of a
// file open anywhere until it is closed).
func (j *Journal) Close() error { return j.view.Close() }

// Path is the journal file.
func (j *Journal) Path() string { return j.path }

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func encodeLine(e *Entry) ([]byte, error) {
	js, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(js)+10)
	line = fmt.Appendf(line, "%08x ", crc32.Checksum(js, crcTable))
	line = append(line, js...)
	return append(line, '\n'), nil
}

func decodeLine(line []byte) (*Entry, error) {
	if len(line) < 10 || line[8] != ' ' {
		return nil, errors.New("malformed record")
	}
	sum, err := strconv.ParseUint(string(line[:8]), 16, 32)
	if err != nil {
		return nil, errors.New("malformed checksum")
	}
	js := line[9:]
	if crc32.Checksum(js, crcTable) != uint32(sum) {
		return nil, errors.New("checksum mismatch")
	}
	var e Entry
	if err := json.Unmarshal(js, &e); err != nil {
		return nil, fmt.Errorf("bad JSON: %w", err)
	}
	if e.ID == "" || e.Kind == "" {
		return nil, errors.New("record without id or kind")
	}
	return &e, nil
}

// ErrTornLine is the damage of a last line without its newline: a write
// cut off by a crash or a full disk.
var ErrTornLine = errors.New("torn last line (no final newline): a write was cut off; the next append sets it aside in a file beside the journal")

// ReadAll reads the whole journal afresh (fsck: damage made in place is
// seen too). Unlike Read it reports a torn last line, once no append is in
// progress: it must not be called while holding the journal's lock.
func (j *Journal) ReadAll() ([]*Entry, []*LineError, error) {
	data, err := j.readFile()
	if err == nil && len(data) > 0 && data[len(data)-1] != '\n' {
		// The tail may be an append in progress in another process: look
		// again once the appenders let go.
		if unlock := j.shared(5 * time.Second); unlock != nil {
			data, err = j.readFile()
			unlock()
		}
	}
	if err != nil {
		return nil, nil, err
	}
	ents, bad, _ := parseJournal(data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		bad = append(bad, &LineError{Line: bytes.Count(data, []byte{'\n'}) + 1, Err: ErrTornLine})
	}
	return ents, bad, nil
}

func (j *Journal) readFile() ([]byte, error) {
	data, err := osfile.ReadFile(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	return data, nil
}

// shared takes the journal lock shared, waiting at most max, and returns
// its release (nil when it could not be had).
func (j *Journal) shared(max time.Duration) (unlock func()) {
	f, err := osfile.OpenFile(j.lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	for deadline := time.Now().Add(max); ; time.Sleep(10 * time.Millisecond) {
		ok, err := osfile.TryLock(f, osfile.Shared)
		if ok {
			return func() { osfile.Unlock(f); f.Close() }
		}
		if err != nil || time.Now().After(deadline) {
			f.Close()
			return nil
		}
	}
}

func parseJournal(data []byte) ([]*Entry, []*LineError, error) {
	ents, bad, _, _ := parseLines(data, 0)
	return ents, bad, nil
}

// parseLines parses the complete lines of data (numbered after the first
// `before` lines) and returns the bytes and lines it consumed.
func parseLines(data []byte, before int) (ents []*Entry, bad []*LineError, consumed, lines int) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // torn last record
		}
		line := data[:i]
		data = data[i+1:]
		consumed += i + 1
		lines++
		if len(line) == 0 {
			continue
		}
		e, err := decodeLine(line)
		if err != nil {
			bad = append(bad, &LineError{Line: before + lines, Err: err})
			continue
		}
		ents = append(ents, e)
	}
	return ents, bad, consumed, lines
}

// Lock holds the journal's exclusive lock until Unlock.
type Lock struct {
	j *Journal
	f *os.File
}

// Lock takes the exclusive lock of the journal (waiting for other holders).
func (j *Journal) Lock() (*Lock, error) { return j.LockContext(context.Background()) }

// LockContext takes the exclusive lock of the journal, waiting for other
// holders until ctx ends (a hook must return within its time, even when a
// stopped process holds the lock).
func (j *Journal) LockContext(ctx context.Context) (*Lock, error) {
	select {
	case j.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("lock journal: %w", ctx.Err())
	}
	f, err := osfile.OpenFile(j.lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		<-j.sem
		return nil, fmt.Errorf("lock journal: %w", err)
	}
	if ctx.Done() == nil {
		err = osfile.Lock(f, osfile.Exclusive)
	} else {
		pause := time.Millisecond
		for {
			var ok bool
			if ok, err = osfile.TryLock(f, osfile.Exclusive); ok || err != nil {
				break
			}
			select {
			case <-ctx.Done():
				holder, _ := osfile.ReadFile(j.lockPath)
				err = fmt.Errorf("the store is locked by another process (%s): %w", strings.TrimSpace(string(holder)), ctx.Err())
			case <-time.After(pause):
				pause = min(2*pause, 50*time.Millisecond)
				continue
			}
			break
		}
	}
	if err != nil {
		f.Close()
		<-j.sem
		return nil, fmt.Errorf("lock journal: %w", err)
	}
	// Who holds it, for people reading the store.
	f.Truncate(0)
	f.WriteAt([]byte(fmt.Sprintf("pid %d since %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))), 0)
	return &Lock{j: j, f: f}, nil
}

// Unlock releases the lock, then writes what this process read of the
// journal to its view when that is due (Persist).
func (l *Lock) Unlock() {
	osfile.Unlock(l.f)
	l.f.Close()
	<-l.j.sem
	l.j.Persist()
}

// Append writes entries durably; the caller holds the lock. IDs and times
// are filled in when empty. A torn last line left by an earlier crash is
// set aside first: its bytes are kept in a file beside the journal, which
// is cut back to its last whole line (torn.go).
func (l *Lock) Append(ents ...*Entry) error {
	j := l.j
	f, err := osfile.OpenFile(j.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	if torn, err := endsTorn(f, size); err != nil {
		return fmt.Errorf("append journal: %w", err)
	} else if torn {
		// Under the lock no append is in progress: the tail is what a
		// crash left. It goes beside the journal (torn.go).
		if size, err = j.setAside(f, size); err != nil {
			return fmt.Errorf("append journal: %w", err)
		}
		if _, err := f.Seek(size, io.SeekStart); err != nil {
			return fmt.Errorf("append journal: %w", err)
		}
	}
	var buf []byte
	for _, e := range ents {
		if e.ID == "" {
			e.ID = NewID()
		}
		if e.Time.IsZero() {
			e.Time = time.Now().UTC()
		}
		line, err := encodeLine(e)
		if err != nil {
			return fmt.Errorf("append journal: %w", err)
		}
		buf = append(buf, line...)
	}
	if _, err := f.Write(buf); err != nil {
		// A short write (a full disk) is taken back: only this append's
		// own bytes, so no torn line of ours is left behind.
		f.Truncate(size)
		return fmt.Errorf("append journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	return nil
}

// endsTorn reports whether a journal of size bytes ends inside a line.
func endsTorn(f *os.File, size int64) (bool, error) {
	if size == 0 {
		return false, nil
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}

package journal

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// A journal line torn by a crash (the bytes after the last newline: an
// append cut off mid-write) is set aside by the next append, under the
// lock: its bytes go to a file beside the journal, then the journal is cut
// back to its last whole line, then the append writes. Each step can be
// interrupted: the file is named by the tail's offset and checksum, so
// setting the same tail aside again writes the same file, and a cut
// journal with its file already written is simply whole. fsck names each
// set-aside file once as repaired (Repairs), then marks it told by a
// rename; the bytes stay.

// tornPrefix starts the names of set-aside tails: journal.torn-<offset>-<crc>.
const tornPrefix = "journal.torn-"

// toldSuffix marks a set-aside tail that fsck has reported.
const toldSuffix = ".reported"

// Repair is a torn tail set aside by an append: where its bytes are now.
type Repair struct {
	File   string // the file holding the tail's bytes
	Offset int64  // where the tail started in the journal
	Bytes  int64  // its length
}

// setAside moves a torn tail of journal f (size bytes) into a file beside
// it and cuts f back to its last whole line; it returns the new size.
func (j *Journal) setAside(f *os.File, size int64) (int64, error) {
	start, err := lastLineEnd(f, size)
	if err != nil {
		return 0, err
	}
	tail := make([]byte, size-start)
	if _, err := f.ReadAt(tail, start); err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	name := fmt.Sprintf("%s%d-%08x", tornPrefix, start, crc32.Checksum(tail, crcTable))
	path := filepath.Join(filepath.Dir(j.path), name)
	if err := osfile.WriteFileAtomic(path, tail, 0o600, true); err != nil {
		return 0, fmt.Errorf("set aside the torn last line in %s: %w", path, err)
	}
	if err := f.Truncate(start); err != nil {
		return 0, fmt.Errorf("cut the torn last line (set aside in %s): %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	return start, nil
}

// lastLineEnd is the offset just after the last newline in the first size
// bytes of f (0 when there is none).
func lastLineEnd(f *os.File, size int64) (int64, error) {
	const chunk = 64 << 10
	buf := make([]byte, chunk)
	for end := size; end > 0; {
		n := min(int64(chunk), end)
		off := end - n
		if _, err := f.ReadAt(buf[:n], off); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i) + 1, nil
		}
		end = off
	}
	return 0, nil
}

// Repairs lists the torn tails appends have set aside that fsck has not
// reported yet, and marks them reported (the files stay, renamed), so each
// is named once.
func (j *Journal) Repairs() ([]Repair, error) {
	dir := filepath.Dir(j.path)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal repairs: %w", err)
	}
	var out []Repair
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, tornPrefix) || strings.HasSuffix(name, toldSuffix) || !e.Type().IsRegular() {
			continue
		}
		var off int64
		var sum uint32
		if _, err := fmt.Sscanf(name[len(tornPrefix):], "%d-%08x", &off, &sum); err != nil {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		file := filepath.Join(dir, name+toldSuffix)
		if err := os.Rename(filepath.Join(dir, name), file); errors.Is(err, fs.ErrNotExist) {
			continue // another fsck told it meanwhile
		} else if err != nil {
			file = filepath.Join(dir, name) // a read-only store: told again next time
		}
		out = append(out, Repair{File: file, Offset: off, Bytes: fi.Size()})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Offset < out[b].Offset })
	return out, nil
}

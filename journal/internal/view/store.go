package view

// Loading and extending the view, and healing a damaged one
// (docs/HISTORY.md).
//
// The view lives in the store's view/ folder: segment files, each covering
// a run of positions, and a manifest naming them, with the state at their
// end and the journal they cover (its identity, the bytes and lines read,
// the checksum of the last line). A process loads the manifest, opens the
// segments, and reads only the journal's lines after the covered bytes. A
// manifest that is missing, damaged, from another format or not about this
// journal (replaced, cut, rewritten under it) is not trusted: the view is
// built again from the journal. Once a process holds enough entries in
// memory, it writes them (persist.go).

import (
	"bytes"
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

	"github.com/rewind-lsp/rewind-lsp/journal/internal/segfile"
	"github.com/rewind-lsp/rewind-lsp/osfile"
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// viewFormat is the format of the view's files; a view of another format
// is built again.
const viewFormat = 2

// persistEvery is how many entries a process holds in memory before it
// writes them to the view (every process reads at most about this many
// lines of the journal's tail); rebuildChunk is the size of the segments a
// view built from the whole journal is written in (a few megabytes in
// memory at most).
var (
	persistEvery Pos = 128
	rebuildChunk Pos = 16384
)

// REWIND_LSP_VIEW_EVERY (entries) makes every process write the view that
// often, and build it in chunks of a few times that: for tests and
// benchmarks that want many segments and merges from a short history.
func init() {
	if n, err := strconv.Atoi(os.Getenv("REWIND_LSP_VIEW_EVERY")); err == nil && n > 0 {
		persistEvery, rebuildChunk = Pos(n), Pos(4*n)
	}
}

// SetThresholds makes this process write the view every `every` entries
// and build it in chunks of `chunk`, as REWIND_LSP_VIEW_EVERY does, until
// the returned function puts them back: for tests that want many segments
// and merges from a short history.
func SetThresholds(every, chunk int) (restore func()) {
	pe, rc := persistEvery, rebuildChunk
	persistEvery, rebuildChunk = Pos(every), Pos(chunk)
	return func() { persistEvery, rebuildChunk = pe, rc }
}

// Segments lists the segment files the manifest in folder dir names, in
// order.
func Segments(dir string) ([]string, error) {
	data, err := osfile.ReadFile(filepath.Join(dir, "manifest"))
	if err != nil {
		return nil, err
	}
	m, err := parseManifest(data)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range m.Segments {
		out = append(out, s.File)
	}
	return out, nil
}

// manifest is the view's index file.
type manifest struct {
	Format   int           `json:"format"`
	Gen      string        `json:"gen"` // changes at every write
	Journal  string        `json:"journal"`
	LastOff  int64         `json:"lastOff"` // the last line read: offset, length, checksum
	LastLen  int           `json:"lastLen"`
	LastCRC  uint32        `json:"lastCrc"`
	Segments []segmentInfo `json:"segments"`
	State    State         `json:"state"`
}

type segmentInfo struct {
	File string `json:"file"`
	Lo   Pos    `json:"lo"`
	Hi   Pos    `json:"hi"`
}

// segmentMeta is what a segment file says of itself.
type segmentMeta struct {
	Format int `json:"format"`
	Lo     Pos `json:"lo"`
	Hi     Pos `json:"hi"`
}

func (v *Store[E]) manifestPath() string    { return filepath.Join(v.dir, "manifest") }
func (v *Store[E]) viewLockPath() string    { return filepath.Join(v.dir, "lock") }
func (v *Store[E]) segPath(n string) string { return filepath.Join(v.dir, n) }

// Store is the view of one journal as a process holds it: loaded from the
// view's folder, extended with the journal's lines written after it, and
// written back when it holds enough in memory (Persist).
type Store[E any] struct {
	path   string // the journal
	dir    string // the view's folder
	schema Schema[E]

	mu            sync.Mutex // guards what follows
	st            *storage[E]
	cur           *Reader[E]
	jid           osfile.ID
	manifestStamp string // size and time of the manifest last read or written
	gen           string

	open openFiles // the segment files this process holds open
}

// New is the view, in folder dir, of the journal at path, whose entries
// schema reads. Nothing is read before Current.
func New[E any](path, dir string, schema Schema[E]) *Store[E] {
	return &Store[E]{path: path, dir: dir, schema: schema}
}

// Current reads the journal: the view as persisted, then what was appended
// after it. It is cheap when nothing changed: the same Reader.
func (v *Store[E]) Current() (*Reader[E], error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	h, err := v.refresh()
	if err != nil {
		return nil, err
	}
	return h, nil
}

// refresh brings v.cur up to the journal on disk (v.mu held).
func (v *Store[E]) refresh() (*Reader[E], error) {
	f, err := osfile.Open(v.path)
	if errors.Is(err, fs.ErrNotExist) {
		if v.cur == nil || v.cur.State.N > 0 {
			v.st = &storage[E]{v: v, mem: newMemtable(0), cache: newEntryCache[E](), recent: &recentIDs{}}
			v.cur = &Reader[E]{st: v.st, State: newState()}
		}
		return v.cur, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read journal: %w", err)
	}
	id, _ := osfile.Identity(f)
	if v.st == nil || v.st.jf == nil || id != v.jid || fi.Size() < v.cur.State.Offset {
		// First use, or a journal replaced or cut: from the view on disk.
		v.load(f, id, fi.Size())
	} else {
		f.Close()
		if v.manifestChanged() && v.cur.State.N > v.st.memLo()+persistEvery {
			// Another process wrote the view: take it, rather than keep
			// ever more in memory.
			if nf, err := osfile.Open(v.path); err == nil {
				v.load(nf, id, fi.Size())
			}
		}
	}
	if fi.Size() > v.cur.State.Offset {
		if err := v.extend(fi.Size()); err != nil {
			return nil, err
		}
	}
	return v.cur, nil
}

// manifestChanged reports whether the manifest on disk is not the one this
// process last read or wrote.
func (v *Store[E]) manifestChanged() bool {
	fi, err := os.Stat(v.manifestPath())
	if err != nil {
		return v.manifestStamp != ""
	}
	return stamp(fi) != v.manifestStamp
}

func stamp(fi fs.FileInfo) string {
	return fmt.Sprintf("%d-%d", fi.Size(), fi.ModTime().UnixNano())
}

// load sets v.st and v.cur from the persisted view of journal f (size
// bytes), or to an empty view when it cannot be trusted; f stays open as
// the storage's journal.
func (v *Store[E]) load(f *os.File, id osfile.ID, size int64) {
	if v.st != nil && v.st.jf != nil {
		if id == v.jid {
			f.Close() // the same file: keep reading it through the open one
			f = v.st.jf
		}
		// A replaced journal's old file stays open for the readers made
		// of it (a restored store: rare).
	}
	v.jid = id
	for try := 0; try < 3; try++ {
		m, segs, st := v.readView(f, size)
		if m == nil {
			break
		}
		if segs != nil {
			v.st = &storage[E]{v: v, jf: f, segs: segs, mem: newMemtable(m.State.N), cache: newEntryCache[E](), recent: &recentIDs{}, top: m.State.Offset}
			m.State.lastOff, m.State.lastLen, m.State.lastCRC = m.LastOff, m.LastLen, m.LastCRC
			v.cur = &Reader[E]{st: v.st, State: m.State}
			v.manifestStamp = st
			v.gen = m.Gen
			return
		}
		// A segment went between reading the manifest and opening it:
		// another process merged it; read the new manifest.
	}
	v.st = &storage[E]{v: v, jf: f, mem: newMemtable(0), cache: newEntryCache[E](), recent: &recentIDs{}}
	v.cur = &Reader[E]{st: v.st, State: newState()}
	v.manifestStamp, v.gen = "", ""
}

// readView reads the manifest and opens its segments. It returns nil when
// there is no view to trust; segs nil (with m) when a segment is missing.
func (v *Store[E]) readView(f *os.File, size int64) (*manifest, []*segment, string) {
	fi, err := os.Stat(v.manifestPath())
	if err != nil {
		return nil, nil, ""
	}
	data, err := osfile.ReadFile(v.manifestPath())
	if err != nil {
		return nil, nil, ""
	}
	m, err := parseManifest(data)
	if err != nil || m.Format != viewFormat || m.State.Offset > size {
		return nil, nil, ""
	}
	if m.State.Offset > 0 {
		line := make([]byte, m.LastLen)
		if m.LastLen <= 0 || m.LastOff+int64(m.LastLen) != m.State.Offset {
			return nil, nil, ""
		}
		if _, err := f.ReadAt(line, m.LastOff); err != nil || crc32.Checksum(line, crcTable) != m.LastCRC {
			return nil, nil, "" // not the journal the view was made of
		}
	}
	var segs []*segment
	next := Pos(0)
	for _, si := range m.Segments {
		if si.Lo != next || si.Hi <= si.Lo || strings.ContainsAny(si.File, `/\`) {
			closeSegs(segs)
			return nil, nil, ""
		}
		sf, err := segfile.Open(v.segPath(si.File))
		if errors.Is(err, fs.ErrNotExist) {
			closeSegs(segs)
			return m, nil, ""
		}
		var meta segmentMeta
		if err == nil {
			err = json.Unmarshal(sf.Meta(), &meta)
		}
		if err != nil || meta.Format != viewFormat || meta.Lo != si.Lo || meta.Hi != si.Hi || sf.Count("rec") != int(si.Hi-si.Lo) {
			if sf != nil {
				sf.Close()
			}
			closeSegs(segs)
			return nil, nil, ""
		}
		segs = append(segs, newSegment(&v.open, sf, si.File, si.Lo, si.Hi))
		next = si.Hi
	}
	if next != m.State.N {
		closeSegs(segs)
		return nil, nil, ""
	}
	if segs == nil {
		segs = []*segment{}
	}
	return m, segs, stamp(fi)
}

// Close lets go of the files this process holds open to read the journal
// and its view. Readers made before must not be used after it; the next
// Current opens the files again. A process that ends need not call it;
// one that is about to remove the store must (Windows keeps the name of a
// file open anywhere until it is closed).
func (v *Store[E]) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.open.closeAll()
	var err error
	if v.st != nil && v.st.jf != nil {
		err = v.st.jf.Close()
	}
	v.st, v.cur = nil, nil
	return err
}

func closeSegs(segs []*segment) {
	for _, s := range segs {
		s.f.Close()
	}
}

func parseManifest(data []byte) (*manifest, error) {
	data = bytes.TrimSuffix(data, []byte("\n"))
	if len(data) < 10 || data[8] != ' ' {
		return nil, errors.New("malformed manifest")
	}
	var sum uint32
	if _, err := fmt.Sscanf(string(data[:8]), "%08x", &sum); err != nil || crc32.Checksum(data[9:], crcTable) != sum {
		return nil, errors.New("manifest checksum mismatch")
	}
	var m manifest
	if err := json.Unmarshal(data[9:], &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// extend reads the journal's lines from what v.cur covers to size and
// adds them to the view (v.mu held). A long stretch to read (the view
// built from the whole journal, or one far behind) is written out as it
// goes, when this process can hold the view's lock: no process keeps the
// whole history in memory. Should the view on disk turn out damaged on
// the way, it is built again from the whole journal.
func (v *Store[E]) extend(size int64) error {
	err := v.extendOnce(size)
	var de *damagedView
	if !errors.As(err, &de) {
		return err
	}
	fmt.Fprintf(os.Stderr, "rewind-lsp: the journal's view in %s is damaged (%v); building it again from the journal\n", v.dir, de.err)
	os.Remove(v.manifestPath())
	v.st = &storage[E]{v: v, jf: v.st.jf, mem: newMemtable(0), cache: newEntryCache[E](), recent: &recentIDs{}}
	v.cur = &Reader[E]{st: v.st, State: newState()}
	v.manifestStamp, v.gen = "", ""
	if err := v.extendOnce(size); err != nil {
		if errors.As(err, &de) {
			return fmt.Errorf("the journal's view cannot be built: %w", de.err)
		}
		return err
	}
	return nil
}

// damagedView is a view file found damaged while the view was extended.
type damagedView struct{ err error }

func (e *damagedView) Error() string { return e.err.Error() }

func (v *Store[E]) extendOnce(size int64) error {
	s := v.cur.State.clone()
	st := v.st
	b := &builder[E]{st: st}
	var unlock func()
	if size-s.Offset > 1<<20 {
		if unlock = v.lockView(10 * time.Second); unlock != nil {
			defer func() {
				if unlock != nil {
					unlock()
				}
			}()
		}
	}
	const chunk = 4 << 20
	buf := make([]byte, 0, min(size-s.Offset, chunk))
	for s.Offset < size {
		base := s.Offset
		buf = buf[:min(size-base, chunk)]
		k, err := st.jf.ReadAt(buf, base)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read journal: %w", err)
		}
		buf = buf[:k]
		consumed := 0
		for {
			i := bytes.IndexByte(buf[consumed:], '\n')
			if i < 0 {
				break
			}
			line := buf[consumed : consumed+i+1]
			off := base + int64(consumed)
			consumed += i + 1
			s.Lines++
			s.Offset = base + int64(consumed)
			if i == 0 {
				continue
			}
			e, err := v.schema.Decode(line[:i])
			if err != nil {
				continue // a damaged line: no entry (fsck names it)
			}
			facts := v.schema.Facts(e)
			b.apply(&s, &facts, off, i+1)
			if b.err != nil {
				return &damagedView{b.err}
			}
			v.schema.Placed(e, s.N-1)
			st.cache.put(s.N-1, e)
			s.lastOff, s.lastLen, s.lastCRC = off, i+1, crc32.Checksum(line, crcTable)
			if unlock != nil && s.N-st.memLo() >= rebuildChunk {
				st.top = s.Offset
				v.cur = &Reader[E]{st: st, State: s}
				if err := v.persistLocked(); err != nil {
					unlock() // go on in memory
					unlock = nil
					continue
				}
				st, s = v.st, v.cur.State.clone()
				b = &builder[E]{st: st}
			}
		}
		if consumed == 0 {
			break // a torn last line: not read until it is whole
		}
	}
	st.top = max(st.top, s.Offset)
	v.cur = &Reader[E]{st: st, State: s}
	if unlock != nil && s.N > st.memLo() {
		v.persistLocked()
	}
	return nil
}

// heal rebuilds a view found damaged while a reader read it (cause):
// the storage takes the positions as the journal gives them again, kept in
// memory, and the view on disk is written anew by the next process that
// writes it. It reports whether the caller should try again.
func (st *storage[E]) heal(cause error) bool {
	v := st.v
	v.mu.Lock() // no extend meanwhile: it appends to the storage's memtable
	defer v.mu.Unlock()
	st.mu.Lock()
	if st.healed || st.jf == nil {
		st.mu.Unlock()
		return false
	}
	st.healed = true
	top := st.top
	st.mu.Unlock()
	os.Remove(v.manifestPath()) // not to be trusted again
	fresh := &storage[E]{v: v, jf: st.jf, mem: newMemtable(0), cache: newEntryCache[E](), recent: &recentIDs{}}
	b := &builder[E]{st: fresh}
	s := newState()
	data := make([]byte, top)
	if _, err := st.jf.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	for off := 0; off < len(data); {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		if i > 0 {
			if e, err := v.schema.Decode(data[off : off+i]); err == nil {
				facts := v.schema.Facts(e)
				b.apply(&s, &facts, int64(off), i+1)
				v.schema.Placed(e, s.N-1)
				fresh.cache.put(s.N-1, e)
			}
		}
		off += i + 1
	}
	if b.err != nil {
		return false
	}
	st.mu.Lock()
	st.segs, st.mem, st.recent = nil, fresh.mem, fresh.recent
	st.mu.Unlock()
	st.cache.clear()
	if v.st == st {
		v.manifestStamp, v.gen = "", ""
	}
	fmt.Fprintf(os.Stderr, "rewind-lsp: the journal's view in %s was damaged (%v); built again from the journal\n", v.dir, cause)
	return true
}

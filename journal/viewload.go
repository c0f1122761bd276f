package journal

// Loading, extending and persisting the view (docs/HISTORY.md).
//
// The view lives in the store's view/ folder: segment files, each covering
// a run of positions, and a manifest naming them, with the state at their
// end and the journal they cover (its identity, the bytes and lines read,
// the checksum of the last line). A process loads the manifest, opens the
// segments, and reads only the journal's lines after the covered bytes. A
// manifest that is missing, damaged, from another format or not about this
// journal (replaced, cut, rewritten under it) is not trusted: the view is
// built again from the journal. Once a process holds enough entries in
// memory, it writes them as a new segment, merges the newest segments
// while the older of the last two is no larger than the newer (so there
// are a logarithmic number of them, and each entry is rewritten a
// logarithmic number of times), and writes the manifest: each file whole,
// under a temporary name, then renamed; the view's own lock keeps two
// writers apart, and no command waits for it.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal/internal/segfile"
	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// viewFormat is the format of the view's files; a view of another format
// is built again.
const viewFormat = 2

// persistEvery is how many entries a process holds in memory before it
// writes them to the view (every process reads at most about this many
// lines of the journal's tail); rebuildChunk is the size of the segments a
// view built from the whole journal is written in (a few megabytes in
// memory at most).
var (
	persistEvery pos = 128
	rebuildChunk pos = 16384
)

// REWIND_LSP_VIEW_EVERY (entries) makes every process write the view that
// often, and build it in chunks of a few times that: for tests and
// benchmarks that want many segments and merges from a short history.
func init() {
	if n, err := strconv.Atoi(os.Getenv("REWIND_LSP_VIEW_EVERY")); err == nil && n > 0 {
		persistEvery, rebuildChunk = pos(n), pos(4*n)
	}
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
	State    viewState     `json:"state"`
}

type segmentInfo struct {
	File string `json:"file"`
	Lo   pos    `json:"lo"`
	Hi   pos    `json:"hi"`
}

// segmentMeta is what a segment file says of itself.
type segmentMeta struct {
	Format int `json:"format"`
	Lo     pos `json:"lo"`
	Hi     pos `json:"hi"`
}

func (j *Journal) viewDir() string {
	if j.viewPath != "" {
		return j.viewPath
	}
	return filepath.Join(filepath.Dir(j.path), "view")
}
func (j *Journal) manifestPath() string    { return filepath.Join(j.viewDir(), "manifest") }
func (j *Journal) viewLockPath() string    { return filepath.Join(j.viewDir(), "lock") }
func (j *Journal) segPath(n string) string { return filepath.Join(j.viewDir(), n) }

// History reads the journal: the view as persisted, then what was appended
// after it. It is cheap when nothing changed.
func (j *Journal) History() (*History, error) {
	j.vmu.Lock()
	defer j.vmu.Unlock()
	h, err := j.refresh()
	if err != nil {
		return nil, err
	}
	return h, nil
}

// refresh brings j.hist up to the journal on disk (j.vmu held).
func (j *Journal) refresh() (*History, error) {
	f, err := osfile.Open(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		if j.hist == nil || j.hist.s.N > 0 {
			j.st = &storage{j: j, mem: newMemtable(0), cache: newEntryCache(), recent: &recentIDs{}}
			j.hist = &History{st: j.st, s: newState()}
		}
		return j.hist, nil
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
	if j.st == nil || j.st.jf == nil || id != j.jid || fi.Size() < j.hist.s.Offset {
		// First use, or a journal replaced or cut: from the view on disk.
		j.load(f, id, fi.Size())
	} else {
		f.Close()
		if j.manifestChanged() && j.hist.s.N > j.st.memLo()+persistEvery {
			// Another process wrote the view: take it, rather than keep
			// ever more in memory.
			if nf, err := osfile.Open(j.path); err == nil {
				j.load(nf, id, fi.Size())
			}
		}
	}
	if fi.Size() > j.hist.s.Offset {
		if err := j.extend(fi.Size()); err != nil {
			return nil, err
		}
	}
	return j.hist, nil
}

// manifestChanged reports whether the manifest on disk is not the one this
// process last read or wrote.
func (j *Journal) manifestChanged() bool {
	fi, err := os.Stat(j.manifestPath())
	if err != nil {
		return j.manifestStamp != ""
	}
	return stamp(fi) != j.manifestStamp
}

func stamp(fi fs.FileInfo) string {
	return fmt.Sprintf("%d-%d", fi.Size(), fi.ModTime().UnixNano())
}

// load sets j.st and j.hist from the persisted view of journal f (size
// bytes), or to an empty view when it cannot be trusted; f stays open as
// the storage's journal.
func (j *Journal) load(f *os.File, id osfile.ID, size int64) {
	if j.st != nil && j.st.jf != nil {
		if id == j.jid {
			f.Close() // the same file: keep reading it through the open one
			f = j.st.jf
		}
		// A replaced journal's old file stays open for the histories made
		// of it (a restored store: rare).
	}
	j.jid = id
	for try := 0; try < 3; try++ {
		m, segs, st := j.readView(f, size)
		if m == nil {
			break
		}
		if segs != nil {
			j.st = &storage{j: j, jf: f, segs: segs, mem: newMemtable(m.State.N), cache: newEntryCache(), recent: &recentIDs{}, top: m.State.Offset}
			m.State.lastOff, m.State.lastLen, m.State.lastCRC = m.LastOff, m.LastLen, m.LastCRC
			j.hist = &History{st: j.st, s: m.State}
			j.manifestStamp = st
			j.gen = m.Gen
			return
		}
		// A segment went between reading the manifest and opening it:
		// another process merged it; read the new manifest.
	}
	j.st = &storage{j: j, jf: f, mem: newMemtable(0), cache: newEntryCache(), recent: &recentIDs{}}
	j.hist = &History{st: j.st, s: newState()}
	j.manifestStamp, j.gen = "", ""
}

// readView reads the manifest and opens its segments. It returns nil when
// there is no view to trust; segs nil (with m) when a segment is missing.
func (j *Journal) readView(f *os.File, size int64) (*manifest, []*segment, string) {
	fi, err := os.Stat(j.manifestPath())
	if err != nil {
		return nil, nil, ""
	}
	data, err := osfile.ReadFile(j.manifestPath())
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
	next := pos(0)
	for _, si := range m.Segments {
		if si.Lo != next || si.Hi <= si.Lo || strings.ContainsAny(si.File, `/\`) {
			closeSegs(segs)
			return nil, nil, ""
		}
		sf, err := segfile.Open(j.segPath(si.File))
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
		segs = append(segs, newSegment(j, sf, si.File, si.Lo, si.Hi))
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
// and its view. Histories read before must not be used after it; the next
// History opens the files again. A process that ends need not call it;
// one that is about to remove the store must (Windows keeps the name of a
// file open anywhere until it is closed).
func (j *Journal) Close() error {
	j.vmu.Lock()
	defer j.vmu.Unlock()
	j.segMu.Lock()
	for f := range j.segOpen {
		f.Close()
	}
	j.segOpen = nil
	j.segMu.Unlock()
	var err error
	if j.st != nil && j.st.jf != nil {
		err = j.st.jf.Close()
	}
	j.st, j.hist = nil, nil
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

// extend reads the journal's lines from what j.hist covers to size and
// adds them to the view (j.vmu held). A long stretch to read (the view
// built from the whole journal, or one far behind) is written out as it
// goes, when this process can hold the view's lock: no process keeps the
// whole history in memory. Should the view on disk turn out damaged on
// the way, it is built again from the whole journal.
func (j *Journal) extend(size int64) error {
	err := j.extendOnce(size)
	var de *damagedView
	if !errors.As(err, &de) {
		return err
	}
	fmt.Fprintf(os.Stderr, "rewind-lsp: the journal's view in %s is damaged (%v); building it again from the journal\n", j.viewDir(), de.err)
	os.Remove(j.manifestPath())
	j.st = &storage{j: j, jf: j.st.jf, mem: newMemtable(0), cache: newEntryCache(), recent: &recentIDs{}}
	j.hist = &History{st: j.st, s: newState()}
	j.manifestStamp, j.gen = "", ""
	if err := j.extendOnce(size); err != nil {
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

func (j *Journal) extendOnce(size int64) error {
	s := j.hist.s.clone()
	st := j.st
	b := &builder{st: st}
	var unlock func()
	if size-s.Offset > 1<<20 {
		if unlock = j.lockView(10 * time.Second); unlock != nil {
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
			e, err := decodeLine(line[:i])
			if err != nil {
				continue // a damaged line: no entry (fsck names it)
			}
			b.apply(&s, e, off, i+1)
			if b.err != nil {
				return &damagedView{b.err}
			}
			e.pos = s.N
			st.cache.put(s.N-1, e)
			s.lastOff, s.lastLen, s.lastCRC = off, i+1, crc32.Checksum(line, crcTable)
			if unlock != nil && s.N-st.memLo() >= rebuildChunk {
				st.top = s.Offset
				j.hist = &History{st: st, s: s}
				if err := j.persistLocked(); err != nil {
					unlock() // go on in memory
					unlock = nil
					continue
				}
				st, s = j.st, j.hist.s.clone()
				b = &builder{st: st}
			}
		}
		if consumed == 0 {
			break // a torn last line: not read until it is whole
		}
	}
	st.top = max(st.top, s.Offset)
	j.hist = &History{st: st, s: s}
	if unlock != nil && s.N > st.memLo() {
		j.persistLocked()
	}
	return nil
}

// lockView takes the view's lock, waiting at most max; nil when it could
// not be had.
func (j *Journal) lockView(max time.Duration) (unlock func()) {
	if err := osfile.MkdirPrivate(j.viewDir()); err != nil {
		return nil
	}
	f, err := osfile.OpenFile(j.viewLockPath(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	for deadline := time.Now().Add(max); ; time.Sleep(20 * time.Millisecond) {
		ok, err := osfile.TryLock(f, osfile.Exclusive)
		if ok {
			return func() { osfile.Unlock(f); f.Close() }
		}
		if err != nil || time.Now().After(deadline) {
			f.Close()
			return nil
		}
	}
}

// Persist writes what this process holds in memory to the view, when it
// is enough to be worth a segment and no other process is writing the view
// (the lock holder of the journal calls it after an append).
func (j *Journal) Persist() {
	j.vmu.Lock()
	defer j.vmu.Unlock()
	if j.hist == nil || j.st == nil || j.st.jf == nil || j.hist.s.N-j.st.memLo() < persistEvery {
		return
	}
	unlock := j.lockView(0)
	if unlock == nil {
		return
	}
	defer unlock()
	if j.manifestChanged() {
		// Another process wrote the view meanwhile: take it and read the
		// rest of the journal on top.
		if _, err := j.refreshFrom(); err != nil || j.hist.s.N-j.st.memLo() < persistEvery {
			return
		}
	}
	j.persistLocked()
}

// refreshFrom loads the view on disk again, then the journal after it.
func (j *Journal) refreshFrom() (*History, error) {
	f, err := osfile.Open(j.path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	id, _ := osfile.Identity(f)
	j.load(f, id, fi.Size())
	if fi.Size() > j.hist.s.Offset {
		if err := j.extend(fi.Size()); err != nil {
			return nil, err
		}
	}
	return j.hist, nil
}

// persistLocked writes the memtable as a segment, merges, and writes the
// manifest (j.vmu and the view's lock held).
func (j *Journal) persistLocked() error {
	st, s := j.st, j.hist.s
	if err := osfile.MkdirPrivate(j.viewDir()); err != nil {
		return err
	}
	lo := st.memLo()
	if s.N == lo {
		return nil
	}
	seg, err := j.writeMem(st.mem, lo, s.N)
	if err != nil {
		return err
	}
	segs := append(append([]*segment(nil), st.segs...), seg)
	var gone []*segment
	for len(segs) >= 2 {
		a, b := segs[len(segs)-2], segs[len(segs)-1]
		if a.hi-a.lo > b.hi-b.lo {
			break
		}
		m, err := j.merge(a, b)
		if err != nil {
			break // the segments stay as they are; the view is still whole
		}
		gone = append(gone, a, b)
		segs = append(segs[:len(segs)-2], m)
	}
	m := manifest{Format: viewFormat, Gen: randomName(), Journal: j.jid.String(), State: s,
		LastOff: s.lastOff, LastLen: s.lastLen, LastCRC: s.lastCRC}
	for _, sg := range segs {
		m.Segments = append(m.Segments, segmentInfo{File: sg.name, Lo: sg.lo, Hi: sg.hi})
	}
	js, err := json.Marshal(m)
	if err != nil {
		return err
	}
	line := fmt.Appendf(nil, "%08x ", crc32.Checksum(js, crcTable))
	line = append(append(line, js...), '\n')
	if err := osfile.WriteFileAtomic(j.manifestPath(), line, 0o600, true); err != nil {
		return err
	}
	if fi, err := os.Stat(j.manifestPath()); err == nil {
		j.manifestStamp = stamp(fi)
	}
	j.gen = m.Gen
	nst := &storage{j: j, jf: st.jf, segs: segs, mem: newMemtable(s.N), cache: st.cache, recent: st.recent, top: s.Offset}
	j.st = nst
	j.hist = &History{st: nst, s: s}
	// Files merged away stay readable to those that hold them open; the
	// names go.
	for _, g := range gone {
		osfile.Remove(j.segPath(g.name))
	}
	j.sweepView(segs)
	return nil
}

// sweepView removes files of the view folder that no manifest names: a
// merge's inputs left by a process that stopped, temporary files of an
// interrupted write. Only files older than a minute go (a writer may be
// about to name a new one).
func (j *Journal) sweepView(keep []*segment) {
	names := map[string]bool{"manifest": true, "lock": true}
	for _, s := range keep {
		names[s.name] = true
	}
	ents, err := os.ReadDir(j.viewDir())
	if err != nil {
		return
	}
	for _, e := range ents {
		if names[e.Name()] {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
			osfile.Remove(j.segPath(e.Name()))
		}
	}
}

func randomName() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// writeMem writes the memtable's positions [lo, hi) as a segment file.
func (j *Journal) writeMem(m *memtable, lo, hi pos) (*segment, error) {
	name := fmt.Sprintf("seg-%d-%d-%s", lo, hi, randomName())
	w, err := segfile.Create(j.segPath(name))
	if err != nil {
		return nil, err
	}
	m.mu.RLock()
	w.Begin("rec", recordSize, 0)
	buf := make([]byte, recordSize)
	for _, r := range m.recs[:hi-lo] {
		r.encode(buf)
		w.Add(buf)
	}
	w.End()
	for t := 0; t < numTables; t++ {
		kw := tableInfo[t].kw
		var keys []string
		for k := range m.tabs[t] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.Begin(tableInfo[t].name, kw+4, kw)
		rec := make([]byte, kw+4)
		for _, k := range keys {
			copy(rec, k)
			for _, p := range m.tabs[t][k] {
				if p >= hi {
					continue
				}
				rec[kw], rec[kw+1], rec[kw+2], rec[kw+3] = byte(p>>24), byte(p>>16), byte(p>>8), byte(p)
				w.Add(rec)
			}
		}
		w.End()
	}
	m.mu.RUnlock()
	if err := w.Close(segmentMeta{Format: viewFormat, Lo: lo, Hi: hi}); err != nil {
		return nil, err
	}
	return j.openSegment(j.segPath(name), name, lo, hi)
}

func (j *Journal) openSegment(path, name string, lo, hi pos) (*segment, error) {
	f, err := segfile.Open(path)
	if err != nil {
		return nil, err
	}
	return newSegment(j, f, name, lo, hi), nil
}

// merge writes segments a and b (a just before b) as one.
func (j *Journal) merge(a, b *segment) (*segment, error) {
	name := fmt.Sprintf("seg-%d-%d-%s", a.lo, b.hi, randomName())
	w, err := segfile.Create(j.segPath(name))
	if err != nil {
		return nil, err
	}
	var rerr error
	copyAll := func(s *segment, section string) {
		if err := s.f.Each(section, func(rec []byte) bool { w.Add(rec); return true }); err != nil && rerr == nil {
			rerr = err
		}
	}
	w.Begin("rec", recordSize, 0)
	copyAll(a, "rec")
	copyAll(b, "rec")
	w.End()
	for t := 0; t < numTables; t++ {
		name, kw := tableInfo[t].name, tableInfo[t].kw
		w.Begin(name, kw+4, kw)
		// Both sides of one table in memory (fixed-width records), then
		// merged: a's positions come before b's for equal keys.
		ra, rb := sectionBytes(a.f, name, &rerr), sectionBytes(b.f, name, &rerr)
		width := kw + 4
		for len(ra) > 0 || len(rb) > 0 {
			if len(ra) > 0 && (len(rb) == 0 || bytes.Compare(ra[:width], rb[:width]) <= 0) {
				w.Add(ra[:width])
				ra = ra[width:]
			} else {
				w.Add(rb[:width])
				rb = rb[width:]
			}
		}
		w.End()
	}
	if rerr != nil {
		w.Abort()
		return nil, rerr
	}
	if err := w.Close(segmentMeta{Format: viewFormat, Lo: a.lo, Hi: b.hi}); err != nil {
		return nil, err
	}
	return j.openSegment(j.segPath(name), name, a.lo, b.hi)
}

// sectionBytes is every record of a section, one after another.
func sectionBytes(f *segfile.File, section string, rerr *error) []byte {
	var out []byte
	if err := f.Each(section, func(r []byte) bool { out = append(out, r...); return true }); err != nil && *rerr == nil {
		*rerr = err
	}
	return out
}

// heal rebuilds a view found damaged while a history was read (cause):
// the storage takes the positions as the journal gives them again, kept in
// memory, and the view on disk is written anew by the next process that
// writes it. It reports whether the caller should try again.
func (st *storage) heal(cause error) bool {
	j := st.j
	j.vmu.Lock() // no extend meanwhile: it appends to the storage's memtable
	defer j.vmu.Unlock()
	st.mu.Lock()
	if st.healed || st.jf == nil {
		st.mu.Unlock()
		return false
	}
	st.healed = true
	top := st.top
	st.mu.Unlock()
	os.Remove(j.manifestPath()) // not to be trusted again
	fresh := &storage{j: j, jf: st.jf, mem: newMemtable(0), cache: newEntryCache(), recent: &recentIDs{}}
	b := &builder{st: fresh}
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
			if e, err := decodeLine(data[off : off+i]); err == nil {
				b.apply(&s, e, int64(off), i+1)
				e.pos = s.N
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
	if j.st == st {
		j.manifestStamp, j.gen = "", ""
	}
	fmt.Fprintf(os.Stderr, "rewind-lsp: the journal's view in %s was damaged (%v); built again from the journal\n", j.viewDir(), cause)
	return true
}

package view

// Writing the view: a new segment of what this process holds in memory,
// the newest segments merged while the older of the last two is no larger
// than the newer (a binary counter: a logarithmic number of segments, each
// entry rewritten a logarithmic number of times), then the manifest. Each
// file is written whole under a temporary name, then renamed; the view's
// own lock keeps two writers apart, and no command waits for it.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"sort"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal/internal/segfile"
	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// lockView takes the view's lock, waiting at most max; nil when it could
// not be had.
func (v *Store[E]) lockView(max time.Duration) (unlock func()) {
	if err := osfile.MkdirPrivate(v.dir); err != nil {
		return nil
	}
	f, err := osfile.OpenFile(v.viewLockPath(), os.O_RDWR|os.O_CREATE, 0o600)
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
func (v *Store[E]) Persist() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cur == nil || v.st == nil || v.st.jf == nil || v.cur.State.N-v.st.memLo() < persistEvery {
		return
	}
	unlock := v.lockView(0)
	if unlock == nil {
		return
	}
	defer unlock()
	if v.manifestChanged() {
		// Another process wrote the view meanwhile: take it and read the
		// rest of the journal on top.
		if _, err := v.refreshFrom(); err != nil || v.cur.State.N-v.st.memLo() < persistEvery {
			return
		}
	}
	v.persistLocked()
}

// refreshFrom loads the view on disk again, then the journal after it.
func (v *Store[E]) refreshFrom() (*Reader[E], error) {
	f, err := osfile.Open(v.path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	id, _ := osfile.Identity(f)
	v.load(f, id, fi.Size())
	if fi.Size() > v.cur.State.Offset {
		if err := v.extend(fi.Size()); err != nil {
			return nil, err
		}
	}
	return v.cur, nil
}

// persistLocked writes the memtable as a segment, merges, and writes the
// manifest (v.mu and the view's lock held).
func (v *Store[E]) persistLocked() error {
	st, s := v.st, v.cur.State
	if err := osfile.MkdirPrivate(v.dir); err != nil {
		return err
	}
	lo := st.memLo()
	if s.N == lo {
		return nil
	}
	seg, err := v.writeMem(st.mem, lo, s.N)
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
		m, err := v.merge(a, b)
		if err != nil {
			break // the segments stay as they are; the view is still whole
		}
		gone = append(gone, a, b)
		segs = append(segs[:len(segs)-2], m)
	}
	m := manifest{Format: viewFormat, Gen: randomName(), Journal: v.jid.String(), State: s,
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
	if err := osfile.WriteFileAtomic(v.manifestPath(), line, 0o600, true); err != nil {
		return err
	}
	if fi, err := os.Stat(v.manifestPath()); err == nil {
		v.manifestStamp = stamp(fi)
	}
	v.gen = m.Gen
	nst := &storage[E]{v: v, jf: st.jf, segs: segs, mem: newMemtable(s.N), cache: st.cache, recent: st.recent, top: s.Offset}
	v.st = nst
	v.cur = &Reader[E]{st: nst, State: s}
	// Files merged away stay readable to those that hold them open; the
	// names go.
	for _, g := range gone {
		osfile.Remove(v.segPath(g.name))
	}
	v.sweepView(segs)
	return nil
}

// sweepView removes files of the view folder that no manifest names: a
// merge's inputs left by a process that stopped, temporary files of an
// interrupted write. Only files older than a minute go (a writer may be
// about to name a new one).
func (v *Store[E]) sweepView(keep []*segment) {
	names := map[string]bool{"manifest": true, "lock": true}
	for _, s := range keep {
		names[s.name] = true
	}
	ents, err := os.ReadDir(v.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if names[e.Name()] {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
			osfile.Remove(v.segPath(e.Name()))
		}
	}
}

func randomName() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// writeMem writes the memtable's positions [lo, hi) as a segment file.
func (v *Store[E]) writeMem(m *memtable, lo, hi Pos) (*segment, error) {
	name := fmt.Sprintf("seg-%d-%d-%s", lo, hi, randomName())
	w, err := segfile.Create(v.segPath(name))
	if err != nil {
		return nil, err
	}
	m.mu.RLock()
	w.Begin("rec", RecordSize, 0)
	buf := make([]byte, RecordSize)
	for _, r := range m.recs[:hi-lo] {
		r.Encode(buf)
		w.Add(buf)
	}
	w.End()
	for t := Table(0); t < NumTables; t++ {
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
	return v.openSegment(v.segPath(name), name, lo, hi)
}

func (v *Store[E]) openSegment(path, name string, lo, hi Pos) (*segment, error) {
	f, err := segfile.Open(path)
	if err != nil {
		return nil, err
	}
	return newSegment(&v.open, f, name, lo, hi), nil
}

// merge writes segments a and b (a just before b) as one.
func (v *Store[E]) merge(a, b *segment) (*segment, error) {
	name := fmt.Sprintf("seg-%d-%d-%s", a.lo, b.hi, randomName())
	w, err := segfile.Create(v.segPath(name))
	if err != nil {
		return nil, err
	}
	var rerr error
	copyAll := func(s *segment, section string) {
		if err := s.f.Each(section, func(rec []byte) bool { w.Add(rec); return true }); err != nil && rerr == nil {
			rerr = err
		}
	}
	w.Begin("rec", RecordSize, 0)
	copyAll(a, "rec")
	copyAll(b, "rec")
	w.End()
	for t := Table(0); t < NumTables; t++ {
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
	return v.openSegment(v.segPath(name), name, a.lo, b.hi)
}

// sectionBytes is every Record of a section, one after another.
func sectionBytes(f *segfile.File, section string, rerr *error) []byte {
	var out []byte
	if err := f.Each(section, func(r []byte) bool { out = append(out, r...); return true }); err != nil && *rerr == nil {
		*rerr = err
	}
	return out
}

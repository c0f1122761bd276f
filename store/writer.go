package store

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// writer is the pack this process appends to. Records are gathered in buf
// and written in large pieces; the pack is made durable (one fsync) and
// given its index when sealed. A piece is written outside the store's
// lock (detach, then writeChunk), so other goroutines go on storing
// objects meanwhile; until it is written, reads of its records are served
// from it.
type writer struct {
	path string
	f    *os.File
	off  int64 // bytes handed to the file: written, or in a pending chunk
	buf  []byte
	ents []entry
	byID map[ID]int

	mu       sync.Mutex // guards pending, free, failedAt, err
	pending  []*chunk   // detached pieces being written
	free     [][]byte   // written pieces' buffers, for the next ones
	failedAt int64      // the offset of the first piece whose write failed, or -1
	err      error      // that write's error
	writing  sync.WaitGroup
}

// chunk is a piece of a pack detached from the writer's buffer, at offset
// off of the file.
type chunk struct {
	off int64
	b   []byte
}

// A pack smaller than this (records and bytes) gets no index: a reader
// scans it in microseconds, and a turn's pack saves the index's bytes.
// Merged packs grow past it.
const (
	indexMin      = 512
	indexMinBytes = 1 << 20
)

// flushAt is how many pending bytes are written to the pack at once.
var flushAt = 4 << 20

// maxPackBytes bounds one pack: past it the writer starts another.
const maxPackBytes = 1 << 30

// newWriter creates a pack under a temporary name, takes its lock and
// only then gives it its name: another process never sees an unlocked
// pack that is still being written.
func newWriter(dir string) (*writer, error) {
	var rnd [8]byte
	rand.Read(rnd[:])
	name := hex.EncodeToString(rnd[:])
	tmp := filepath.Join(dir, ".tmp-pack-"+name)
	f, err := osfile.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create pack: %w", err)
	}
	if err := osfile.Lock(f, osfile.Exclusive); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("lock pack: %w", err)
	}
	var head []byte
	head = append(head, packMagic...)
	head = binary.LittleEndian.AppendUint32(head, packVersion)
	if _, err := f.Write(head); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("create pack: %w", err)
	}
	path := filepath.Join(dir, "pack-"+name+".pack")
	if err := osfile.Rename(tmp, path); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("create pack: %w", err)
	}
	return &writer{path: path, f: f, off: packHeader, byID: map[ID]int{}, failedAt: -1}, nil
}

func (w *writer) has(id ID) bool { _, ok := w.byID[id]; return ok }

func (w *writer) size() int64 { return w.off + int64(len(w.buf)) }

// add appends one record. The caller writes the buffer out when full():
// flush, or detach and writeChunk.
func (w *writer) add(id ID, kind byte, payload []byte) {
	off := w.size()
	w.buf = appendRecord(w.buf, id, kind, payload)
	e := entry{id: id, off: off, n: uint32(w.size() - off)}
	w.byID[id] = len(w.ents)
	w.ents = append(w.ents, e)
}

// full reports whether the pending bytes are to be written now.
func (w *writer) full() bool { return len(w.buf) >= flushAt }

// flush writes the pending bytes to the pack and waits for the pieces
// being written: then everything added is in the file.
func (w *writer) flush() error {
	if len(w.buf) > 0 {
		if _, err := w.f.WriteAt(w.buf, w.off); err != nil {
			w.fail(w.off, err)
		} else {
			w.off += int64(len(w.buf))
			w.buf = w.buf[:0]
		}
	}
	w.writing.Wait()
	if err := w.failure(); err != nil {
		return fmt.Errorf("write pack %s: %w", baseName(w.path), err)
	}
	return nil
}

// fail notes that the bytes from off on may not be in the file.
func (w *writer) fail(off int64, err error) {
	w.mu.Lock()
	if w.failedAt < 0 || off < w.failedAt {
		w.failedAt, w.err = off, err
	}
	w.mu.Unlock()
}

// failure is the error of the first piece whose write failed, or nil.
func (w *writer) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// detach takes the pending bytes out of the buffer as a chunk for
// writeChunk (called under the store's lock).
func (w *writer) detach() *chunk {
	c := &chunk{off: w.off, b: w.buf}
	w.off += int64(len(w.buf))
	w.mu.Lock()
	w.pending = append(w.pending, c)
	if n := len(w.free); n > 0 {
		w.buf, w.free = w.free[n-1][:0], w.free[:n-1]
	} else {
		w.buf = nil
	}
	w.mu.Unlock()
	w.writing.Add(1)
	return c
}

// writeChunk writes a detached chunk (without the store's lock), and asks
// the system to start writing it to the disk, so the fsync that seals the
// pack waits for less.
func (w *writer) writeChunk(c *chunk) error {
	defer w.writing.Done()
	_, err := w.f.WriteAt(c.b, c.off)
	if err != nil {
		w.fail(c.off, err)
	} else {
		osfile.StartWriteback(w.f, c.off, int64(len(c.b)))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, p := range w.pending {
		if p == c {
			w.pending = append(w.pending[:i], w.pending[i+1:]...)
			break
		}
	}
	if len(w.free) < 2 {
		w.free = append(w.free, c.b[:0])
	}
	if err != nil {
		return fmt.Errorf("write pack %s: %w", baseName(w.path), err)
	}
	return nil
}

// record returns a copy of id's whole record, or nil.
func (w *writer) record(id ID) []byte {
	i, ok := w.byID[id]
	if !ok {
		return nil
	}
	e := w.ents[i]
	if e.off >= w.off {
		s := w.buf[e.off-w.off : e.off-w.off+int64(e.n)]
		return append([]byte(nil), s...)
	}
	w.mu.Lock()
	for _, c := range w.pending {
		if e.off >= c.off && e.off+int64(e.n) <= c.off+int64(len(c.b)) {
			s := c.b[e.off-c.off : e.off-c.off+int64(e.n)]
			w.mu.Unlock()
			return append([]byte(nil), s...)
		}
	}
	w.mu.Unlock()
	b := make([]byte, e.n)
	if _, err := w.f.ReadAt(b, e.off); err != nil {
		return nil
	}
	return b
}

// pack is the writer's pack as a reader sees it once everything is
// flushed; it shares the file.
func (w *writer) pack() *pack {
	ents := append([]entry(nil), w.ents...)
	sortEntries(ents)
	return &pack{path: w.path, size: w.off, ents: ents, f: w.f}
}

// seal makes the pack durable (one fsync of the pack, one of its folder
// for the new name), writes its index and releases the lock. The file
// stays open for reading.
func (w *writer) seal() error {
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync pack %s: %w", baseName(w.path), err)
	}
	osfile.SyncDir(filepath.Dir(w.path))
	var err error
	if len(w.ents) >= indexMin || w.off >= indexMinBytes {
		err = writeIndex(w.path, append([]entry(nil), w.ents...), w.off)
	}
	osfile.Unlock(w.f)
	if err != nil {
		return fmt.Errorf("index pack %s: %w", baseName(w.path), err)
	}
	return nil
}

// append adds a record for id to this process's pack, creating one when
// needed. A full buffer is written out after the lock is let go.
func (o *Objects) append(id ID, kind byte, payload []byte) error {
	o.mu.Lock()
	if _, ok := o.known[id]; ok && !o.dmg.has(id) {
		o.mu.Unlock()
		return nil
	}
	if o.w != nil && o.w.has(id) && !o.dmg.has(id) {
		o.mu.Unlock()
		return nil
	}
	if o.w != nil && o.w.size() > maxPackBytes {
		if err := o.sealLocked(false); err != nil {
			o.mu.Unlock()
			return err
		}
	}
	if o.w == nil {
		w, err := newWriter(o.packs)
		if err != nil {
			o.mu.Unlock()
			return fmt.Errorf("store object %s: %w", id, err)
		}
		o.w = w
	}
	w := o.w
	w.add(id, kind, payload)
	o.known[id] = struct{}{}
	if o.dmg.has(id) {
		o.dmg.healed(id)
	}
	var c *chunk
	if w.full() {
		c = w.detach()
	}
	o.mu.Unlock()
	if c == nil {
		return nil
	}
	if err := w.writeChunk(c); err != nil {
		// The records of this pack that are not in the file are
		// forgotten: a later Put stores them again.
		o.mu.Lock()
		if o.w == w {
			o.abandonLocked(w)
		}
		o.mu.Unlock()
		return fmt.Errorf("store object %s: %w", id, err)
	}
	return nil
}

// abandonLocked gives up pack w after a write to it failed (a full disk):
// the records it did not write — or could not make durable — are
// forgotten, so that a later Put of the same content stores it again
// instead of trusting a record that is not on disk, and the file is cut
// back to the whole records written before, which readers find by
// scanning it (o.mu held).
func (o *Objects) abandonLocked(w *writer) {
	if o.w == w {
		o.w = nil
	}
	w.writing.Wait()
	good := w.off
	w.mu.Lock()
	if w.failedAt >= 0 && w.failedAt < good {
		good = w.failedAt
	}
	w.mu.Unlock()
	durable := w.f.Truncate(good) == nil && w.f.Sync() == nil
	for _, e := range w.ents {
		if !durable || e.off+int64(e.n) > good {
			delete(o.known, e.id)
		}
	}
	w.buf, w.ents, w.byID = nil, nil, nil
	w.f.Close() // releases its lock
}

// sealLocked hands the current pack to the readers and seals it, now or
// in the background (o.mu held).
func (o *Objects) sealLocked(background bool) error {
	w := o.w
	if w == nil {
		return nil
	}
	o.w = nil
	if err := w.flush(); err != nil {
		o.abandonLocked(w)
		return err
	}
	o.load()
	o.all = append(o.all, w.pack())
	if background {
		o.sealing.Add(1)
		go func() {
			defer o.sealing.Done()
			if err := w.seal(); err != nil {
				o.mu.Lock()
				o.sealErr = err
				o.mu.Unlock()
				return
			}
			o.afterSeal()
		}()
		return nil
	}
	o.mu.Unlock()
	err := w.seal()
	if err == nil {
		o.afterSeal()
	}
	o.mu.Lock()
	return err
}

// Sync makes every object written by this process so far durable: the
// pack it appends to is fsynced once and sealed (a new pack is started by
// the next write). Callers sync before they record a reference to new
// objects in the journal.
func (o *Objects) Sync() error {
	o.mu.Lock()
	err := o.sealLocked(false)
	o.mu.Unlock()
	o.sealing.Wait()
	o.mu.Lock()
	if err == nil {
		err = o.sealErr
	}
	o.sealErr = nil
	o.mu.Unlock()
	return err
}

// SyncSoon seals the current pack in the background, for the running
// server's turn boundaries: their cost then does not wait on the disk.
// The journal entry that names the objects is fsynced at once, so only a
// power cut within those milliseconds could leave it pointing at content
// the disk lost; fsck names such a snapshot and a rewind to it refuses. (A
// process crash loses nothing either way.)
func (o *Objects) SyncSoon() {
	o.mu.Lock()
	o.sealLocked(true)
	o.mu.Unlock()
}

// afterSeal finishes what a durable pack allows: healed objects leave the
// damaged list, and small packs are merged when they pile up.
func (o *Objects) afterSeal() {
	o.dmg.flush()
	// Merging only saves lookups and files: a failure loses nothing, and
	// the next seal tries again.
	_ = o.mergeSmall()
}

// Close seals what was written and closes the packs.
func (o *Objects) Close() error {
	err := o.Sync()
	o.mu.Lock()
	for _, p := range o.all {
		p.close()
	}
	o.all = nil
	o.loaded = false
	o.mu.Unlock()
	return err
}

// listPacks lists the pack files of a packs folder.
func listPacks(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "pack-") && strings.HasSuffix(n, ".pack") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	sort.Strings(out)
	return out, nil
}

// isLocked reports whether another process holds the pack open for
// writing.
func isLocked(path string) bool {
	f, err := osfile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	ok, err := osfile.TryLock(f, osfile.Shared)
	if ok {
		osfile.Unlock(f)
	}
	return err == nil && !ok
}

// writeFile is osfile.WriteFileAtomic for the store's files (owner-only).
func writeFile(path string, data []byte, sync bool) error {
	return osfile.WriteFileAtomic(path, data, 0o600, sync)
}

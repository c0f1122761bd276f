// Package segfile is the file format of the journal's view: one immutable
// file per segment, holding named sections of fixed-width records, read in
// place with positioned reads.
//
// A section is either an array (record i is found by its number) or a
// table sorted by the first KeyWidth bytes of its records (found by binary
// search). Records are packed into 4 KiB blocks, never across two; each
// block ends with the CRC-32C of the rest, checked whenever the block is
// read, so damage to the file is an error, never a wrong answer. The first
// key of each block of a table (its fences) and the directory of sections
// sit at the end of the file under checksums of their own; fences are
// read only when their section is first searched. A file is written whole
// to a temporary name, synced, then renamed into place.
//
// The package knows nothing of what the records mean.
package segfile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// BlockSize is the size of a block: records, padding, then a CRC-32C of
// the first BlockSize-4 bytes.
const BlockSize = 4096

const payload = BlockSize - 4

var (
	magic    = [8]byte{'R', 'W', 'V', 'I', 'E', 'W', '0', '1'}
	crcTable = crc32.MakeTable(crc32.Castagnoli)
)

// ErrDamaged is within every error about a file whose bytes are not what
// was written.
var ErrDamaged = errors.New("damaged view file")

func damaged(path, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", path, fmt.Sprintf(format, args...), ErrDamaged)
}

// directory is what the end of a file says about its sections.
type directory struct {
	Meta     json.RawMessage `json:"meta"`
	Sections []sectionInfo   `json:"sections"`
}

type sectionInfo struct {
	Name     string `json:"name"`
	Width    int    `json:"width"`
	KeyWidth int    `json:"keyWidth"` // 0: an array
	Count    int    `json:"count"`
	First    int64  `json:"first"` // file offset of the first block
	Blocks   int    `json:"blocks"`
	Fences   int64  `json:"fences"` // file offset of the fences (tables)
	FenceCRC uint32 `json:"fenceCrc"`
}

func (s *sectionInfo) perBlock() int { return payload / s.Width }

// Writer writes one segment file. Sections are written one after another:
// Begin, Add for each record (tables in key order), End.
type Writer struct {
	path, tmp string
	f         *os.File
	off       int64
	dir       directory
	cur       *sectionInfo
	block     []byte
	n         int // records in the current block
	fences    []byte
	last      []byte
	err       error
}

// Create starts a segment file at path, written under a temporary name
// until Close.
func Create(path string) (*Writer, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-view-*")
	if err != nil {
		return nil, err
	}
	w := &Writer{path: path, tmp: f.Name(), f: f, block: make([]byte, BlockSize)}
	if _, err := f.Write(magic[:]); err != nil {
		w.Abort()
		return nil, err
	}
	w.off = int64(len(magic))
	return w, nil
}

// Begin starts a section of records of width bytes; keyWidth > 0 makes it
// a table sorted by the records' first keyWidth bytes.
func (w *Writer) Begin(name string, width, keyWidth int) {
	if w.err != nil {
		return
	}
	if width <= 0 || width > payload || keyWidth > width {
		w.err = fmt.Errorf("section %s: bad widths %d/%d", name, width, keyWidth)
		return
	}
	w.cur = &sectionInfo{Name: name, Width: width, KeyWidth: keyWidth, First: w.off}
	w.n, w.fences, w.last = 0, nil, nil
	clear(w.block)
}

// Add appends one record (exactly the section's width) to the section.
func (w *Writer) Add(rec []byte) {
	if w.err != nil {
		return
	}
	s := w.cur
	if len(rec) != s.Width {
		w.err = fmt.Errorf("section %s: a record of %d bytes, want %d", s.Name, len(rec), s.Width)
		return
	}
	if s.KeyWidth > 0 {
		if w.last != nil && bytes.Compare(rec, w.last) < 0 {
			w.err = fmt.Errorf("section %s: records out of order", s.Name)
			return
		}
		w.last = append(w.last[:0], rec...)
		if w.n == 0 {
			w.fences = append(w.fences, rec[:s.KeyWidth]...)
		}
	}
	copy(w.block[w.n*s.Width:], rec)
	w.n++
	s.Count++
	if w.n == s.perBlock() {
		w.flushBlock()
	}
}

func (w *Writer) flushBlock() {
	if w.n == 0 || w.err != nil {
		return
	}
	binary.LittleEndian.PutUint32(w.block[payload:], crc32.Checksum(w.block[:payload], crcTable))
	if _, err := w.f.Write(w.block); err != nil {
		w.err = err
		return
	}
	w.off += BlockSize
	w.cur.Blocks++
	w.n = 0
	clear(w.block)
}

// End finishes the current section.
func (w *Writer) End() {
	if w.err != nil || w.cur == nil {
		return
	}
	w.flushBlock()
	if w.cur.KeyWidth > 0 && len(w.fences) > 0 {
		w.cur.Fences = w.off
		w.cur.FenceCRC = crc32.Checksum(w.fences, crcTable)
		if _, err := w.f.Write(w.fences); err != nil {
			w.err = err
			return
		}
		w.off += int64(len(w.fences))
	}
	w.dir.Sections = append(w.dir.Sections, *w.cur)
	w.cur = nil
}

// Close writes the directory with meta (any JSON value), syncs the file
// and renames it into place.
func (w *Writer) Close(meta any) error {
	if w.err == nil && w.cur != nil {
		w.End()
	}
	if w.err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", w.path, w.err)
	}
	m, err := json.Marshal(meta)
	if err != nil {
		w.Abort()
		return err
	}
	w.dir.Meta = m
	d, err := json.Marshal(w.dir)
	if err != nil {
		w.Abort()
		return err
	}
	var tail [24]byte
	binary.LittleEndian.PutUint64(tail[0:], uint64(w.off))
	binary.LittleEndian.PutUint32(tail[8:], uint32(len(d)))
	binary.LittleEndian.PutUint32(tail[12:], crc32.Checksum(d, crcTable))
	copy(tail[16:], magic[:])
	if _, err := w.f.Write(append(d, tail[:]...)); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	if err := w.f.Sync(); err != nil {
		w.Abort()
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	if err := w.f.Close(); err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	if err := osfile.Rename(w.tmp, w.path); err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	return nil
}

// Abort gives the file up.
func (w *Writer) Abort() {
	w.f.Close()
	os.Remove(w.tmp)
}

// File is an open segment file.
type File struct {
	f    *os.File
	path string
	id   uint64 // this open file's key in the block cache
	meta json.RawMessage
	secs map[string]*section
}

type section struct {
	sectionInfo
	once   sync.Once
	fences []byte
	ferr   error
}

var nextID atomic.Uint64

// Open opens the segment file at path and checks its directory.
func Open(path string) (*File, error) {
	f, err := osfile.Open(path)
	if err != nil {
		return nil, err
	}
	sf, err := open(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return sf, nil
}

func open(f *os.File, path string) (*File, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size < int64(len(magic))+24 {
		return nil, damaged(path, "too short (%d bytes)", size)
	}
	var tail [24]byte
	if _, err := f.ReadAt(tail[:], size-24); err != nil {
		return nil, err
	}
	if !bytes.Equal(tail[16:], magic[:]) {
		return nil, damaged(path, "no trailer")
	}
	at := int64(binary.LittleEndian.Uint64(tail[0:]))
	n := int64(binary.LittleEndian.Uint32(tail[8:]))
	if at < int64(len(magic)) || at+n != size-24 {
		return nil, damaged(path, "directory out of place")
	}
	d := make([]byte, n)
	if _, err := f.ReadAt(d, at); err != nil {
		return nil, err
	}
	if crc32.Checksum(d, crcTable) != binary.LittleEndian.Uint32(tail[12:]) {
		return nil, damaged(path, "directory checksum mismatch")
	}
	var dir directory
	if err := json.Unmarshal(d, &dir); err != nil {
		return nil, damaged(path, "directory: %v", err)
	}
	sf := &File{f: f, path: path, id: nextID.Add(1), meta: dir.Meta, secs: map[string]*section{}}
	for _, s := range dir.Sections {
		if s.Width <= 0 || s.Width > payload || s.KeyWidth < 0 || s.KeyWidth > s.Width || s.Count < 0 ||
			s.Blocks != (s.Count+s.perBlock()-1)/s.perBlock() || s.First < int64(len(magic)) || s.First+int64(s.Blocks)*BlockSize > at {
			return nil, damaged(path, "section %s: bad shape", s.Name)
		}
		sf.secs[s.Name] = &section{sectionInfo: s}
	}
	return sf, nil
}

// Path is the file's path.
func (sf *File) Path() string { return sf.path }

// Meta is the JSON value given to Close.
func (sf *File) Meta() json.RawMessage { return sf.meta }

// Close closes the file.
func (sf *File) Close() error { return sf.f.Close() }

// Count is the number of records of section name (0 when there is none).
func (sf *File) Count(name string) int {
	if s := sf.secs[name]; s != nil {
		return s.Count
	}
	return 0
}

// Record returns record i of section name; the slice must not be changed
// and is valid until the next call.
func (sf *File) Record(name string, i int) ([]byte, error) {
	s := sf.secs[name]
	if s == nil || i < 0 || i >= s.Count {
		return nil, fmt.Errorf("%s: section %s has no record %d", sf.path, name, i)
	}
	b, err := sf.block(s, i/s.perBlock())
	if err != nil {
		return nil, err
	}
	j := (i % s.perBlock()) * s.Width
	return b[j : j+s.Width], nil
}

// block reads (through the cache) and checks block k of s.
func (sf *File) block(s *section, k int) ([]byte, error) {
	off := s.First + int64(k)*BlockSize
	if b := cache.get(sf.id, off); b != nil {
		return b, nil
	}
	b := make([]byte, BlockSize)
	if _, err := sf.f.ReadAt(b, off); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, damaged(sf.path, "block at %d cut short", off)
		}
		return nil, fmt.Errorf("read %s: %w", sf.path, err)
	}
	if crc32.Checksum(b[:payload], crcTable) != binary.LittleEndian.Uint32(b[payload:]) {
		return nil, damaged(sf.path, "block at %d: checksum mismatch", off)
	}
	cache.put(sf.id, off, b)
	return b, nil
}

func (s *section) loadFences(sf *File) error {
	s.once.Do(func() {
		if s.Blocks == 0 {
			return
		}
		fb := make([]byte, s.Blocks*s.KeyWidth)
		if _, err := sf.f.ReadAt(fb, s.Fences); err != nil {
			s.ferr = fmt.Errorf("read %s: %w", sf.path, err)
			return
		}
		if crc32.Checksum(fb, crcTable) != s.FenceCRC {
			s.ferr = damaged(sf.path, "fences of %s: checksum mismatch", s.Name)
			return
		}
		s.fences = fb
	})
	return s.ferr
}

// Find calls fn, in order, with each record of table name whose key lies
// in [lo, hi] (compared over the key width: shorter bounds are compared
// as prefixes, lo padded with zeros and hi with 0xff), until fn returns
// false.
func (sf *File) Find(name string, lo, hi []byte, fn func(rec []byte) bool) error {
	s := sf.secs[name]
	if s == nil || s.Count == 0 {
		return nil
	}
	if s.KeyWidth == 0 {
		return fmt.Errorf("%s: section %s is not a table", sf.path, name)
	}
	if err := s.loadFences(sf); err != nil {
		return err
	}
	kw := s.KeyWidth
	lk, hk := pad(lo, kw, 0), pad(hi, kw, 0xff)
	// The first block whose first key is >= lo; records with key lo may
	// begin in the block before it.
	k := sort.Search(s.Blocks, func(i int) bool { return bytes.Compare(s.fences[i*kw:(i+1)*kw], lk) >= 0 })
	if k > 0 {
		k--
	}
	for ; k < s.Blocks; k++ {
		if bytes.Compare(s.fences[k*kw:(k+1)*kw], hk) > 0 {
			return nil
		}
		b, err := sf.block(s, k)
		if err != nil {
			return err
		}
		n := s.perBlock()
		if k == s.Blocks-1 {
			n = s.Count - k*s.perBlock()
		}
		// The first record of the block with key >= lo.
		i := sort.Search(n, func(i int) bool { return bytes.Compare(b[i*s.Width:i*s.Width+kw], lk) >= 0 })
		for ; i < n; i++ {
			rec := b[i*s.Width : (i+1)*s.Width]
			if bytes.Compare(rec[:kw], hk) > 0 {
				return nil
			}
			if !fn(rec) {
				return nil
			}
		}
	}
	return nil
}

// FindBack is Find from the other end: the records whose keys are in
// [lo, hi], last first, until fn returns false. A lookup that wants the
// latest of a key's records reads the blocks that hold them, no more.
func (sf *File) FindBack(name string, lo, hi []byte, fn func(rec []byte) bool) error {
	s := sf.secs[name]
	if s == nil || s.Count == 0 {
		return nil
	}
	if s.KeyWidth == 0 {
		return fmt.Errorf("%s: section %s is not a table", sf.path, name)
	}
	if err := s.loadFences(sf); err != nil {
		return err
	}
	kw := s.KeyWidth
	lk, hk := pad(lo, kw, 0), pad(hi, kw, 0xff)
	// The last block whose first key is <= hi: the records with keys up
	// to hi end in it.
	k := sort.Search(s.Blocks, func(i int) bool { return bytes.Compare(s.fences[i*kw:(i+1)*kw], hk) > 0 }) - 1
	for ; k >= 0; k-- {
		b, err := sf.block(s, k)
		if err != nil {
			return err
		}
		n := s.perBlock()
		if k == s.Blocks-1 {
			n = s.Count - k*s.perBlock()
		}
		// The last record of the block with key <= hi.
		i := sort.Search(n, func(i int) bool { return bytes.Compare(b[i*s.Width:i*s.Width+kw], hk) > 0 }) - 1
		for ; i >= 0; i-- {
			rec := b[i*s.Width : (i+1)*s.Width]
			if bytes.Compare(rec[:kw], lk) < 0 {
				return nil
			}
			if !fn(rec) {
				return nil
			}
		}
	}
	return nil
}

// Each calls fn with every record of section name in order (a merge reads
// a whole section this way), until fn returns false.
func (sf *File) Each(name string, fn func(rec []byte) bool) error {
	s := sf.secs[name]
	if s == nil {
		return nil
	}
	for k := 0; k < s.Blocks; k++ {
		b, err := sf.readBlock(s, k)
		if err != nil {
			return err
		}
		n := s.perBlock()
		if k == s.Blocks-1 {
			n = s.Count - k*s.perBlock()
		}
		for i := 0; i < n; i++ {
			if !fn(b[i*s.Width : (i+1)*s.Width]) {
				return nil
			}
		}
	}
	return nil
}

// readBlock is block without the cache (a whole section read once).
func (sf *File) readBlock(s *section, k int) ([]byte, error) {
	off := s.First + int64(k)*BlockSize
	if b := cache.get(sf.id, off); b != nil {
		return b, nil
	}
	b := make([]byte, BlockSize)
	if _, err := sf.f.ReadAt(b, off); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, damaged(sf.path, "block at %d cut short", off)
		}
		return nil, fmt.Errorf("read %s: %w", sf.path, err)
	}
	if crc32.Checksum(b[:payload], crcTable) != binary.LittleEndian.Uint32(b[payload:]) {
		return nil, damaged(sf.path, "block at %d: checksum mismatch", off)
	}
	return b, nil
}

func pad(b []byte, n int, fill byte) []byte {
	if len(b) >= n {
		return b[:n]
	}
	out := make([]byte, n)
	copy(out, b)
	for i := len(b); i < n; i++ {
		out[i] = fill
	}
	return out
}

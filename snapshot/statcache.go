package snapshot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"sort"
	"time"

	"github.com/rewind-lsp/rewind-lsp/osfile"
	"github.com/rewind-lsp/rewind-lsp/rootfs"
)

// statKey is what the stat cache compares: a file whose key is unchanged
// (and not racy) is not read again.
type statKey struct {
	size  int64
	mtime int64 // ns
	ctime int64 // ns
	ino   uint64
	mode  uint32
}

// kindOfStat is what a snapshot holds for a file of mode (a rootfs.Stat
// mode): a link, a file or an executable file; ok is false for anything
// else (folders, sockets, pipes, devices). prev is the kind recorded for the
// file before (0 when none): where files have no executable bit (Windows),
// a file recorded executable stays so, as git's core.fileMode=false keeps
// the mode in its index.
func kindOfStat(mode uint32, prev Kind) (k Kind, ok bool) {
	switch mode & rootfs.ModeType {
	case rootfs.ModeLink:
		return KindSymlink, true
	case rootfs.ModeFile:
		if mode&0o111 != 0 || noExecBit && prev == KindExec {
			return KindExec, true
		}
		return KindFile, true
	}
	return 0, false
}

func keyOfStat(st rootfs.Stat) statKey {
	return statKey{size: st.Size, mtime: st.Mtime, ctime: st.Ctime, ino: st.Ino, mode: st.Mode}
}

// cacheEntry is what the stat cache knows of one path.
type cacheEntry struct {
	key  statKey
	kind Kind
	id   ID
}

// The stat cache file is laid out for use as it is read, with no decoding
// pass: one record per captured folder (its tree's entries, sorted by name,
// files with their stat key), and a table of the records sorted by folder
// path for a binary search. A folder whose files all match their keys is
// not re-encoded: its tree ID is in its record, and the record is copied
// as it is into the next cache.
//
//	magic | records | table: n × (offset u32, length u32) | table offset u32 | n u32 | crc32c u32
//	record: pathLen u16 | path | tree [32] | count u32 | entries
//	entry:  nameLen u16 | name | kind u8 | folder: id [32]
//	                                     | other: size, mtime, ctime i64, ino u64, mode u32, id [32]
const statCacheMagic = "rewind-statcache-3\n"

const (
	recFileBytes = 1 + 8*4 + 4 + 32
	recDirBytes  = 1 + 32
	cacheFooter  = 12
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// cacheFile is a stat cache file read into memory.
type cacheFile struct {
	data  []byte
	table []byte
	n     int
	at    int64 // the file's mtime: entries not older are racy (re-read)
}

// loadCacheFile reads the cache at path; nil when it is missing or
// damaged (a cache only saves work).
func loadCacheFile(path string) *cacheFile {
	f, err := osfile.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() < int64(len(statCacheMagic)+cacheFooter) || fi.Size() > 1<<31 {
		return nil
	}
	data := make([]byte, fi.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil
	}
	if !bytes.HasPrefix(data, []byte(statCacheMagic)) {
		return nil
	}
	foot := data[len(data)-cacheFooter:]
	tableOff := int(binary.LittleEndian.Uint32(foot[0:]))
	n := int(binary.LittleEndian.Uint32(foot[4:]))
	if crc32.Checksum(data[:len(data)-4], crcTable) != binary.LittleEndian.Uint32(foot[8:]) {
		return nil
	}
	if tableOff < len(statCacheMagic) || tableOff+n*8 != len(data)-cacheFooter {
		return nil
	}
	return &cacheFile{data: data, table: data[tableOff : tableOff+n*8], n: n, at: fi.ModTime().UnixNano()}
}

// record returns the i-th record of the table.
func (f *cacheFile) record(i int) []byte {
	off := binary.LittleEndian.Uint32(f.table[i*8:])
	n := binary.LittleEndian.Uint32(f.table[i*8+4:])
	if int(off)+int(n) > len(f.data) || n < 2 {
		return nil
	}
	return f.data[off : off+n]
}

func recPath(rec []byte) []byte {
	l := int(binary.LittleEndian.Uint16(rec))
	if 2+l > len(rec) {
		return nil
	}
	return rec[2 : 2+l]
}

// find returns the record of folder rel ("" for the root).
func (f *cacheFile) find(rel string) []byte {
	if f == nil {
		return nil
	}
	i := sort.Search(f.n, func(i int) bool { return string(recPath(f.record(i))) >= rel })
	if i < f.n {
		if rec := f.record(i); string(recPath(rec)) == rel {
			return rec
		}
	}
	return nil
}

// recEntry is one entry of a record, its name pointing into the record.
type recEntry struct {
	name []byte
	kind Kind
	key  statKey
	id   ID
}

// cacheRec reads one record in place.
type cacheRec struct {
	tree  ID
	count int
	rest  []byte // the entries not read yet
	bad   bool
}

func openRec(rec []byte) cacheRec {
	var r cacheRec
	l := int(binary.LittleEndian.Uint16(rec))
	off := 2 + l
	if off+32+4 > len(rec) {
		return cacheRec{bad: true}
	}
	copy(r.tree[:], rec[off:])
	r.count = int(binary.LittleEndian.Uint32(rec[off+32:]))
	r.rest = rec[off+36:]
	return r
}

// next reads the next entry; false at the end (or in a damaged record).
func (r *cacheRec) next(e *recEntry) bool {
	b := r.rest
	if r.bad || len(b) < 3 {
		return false
	}
	l := int(binary.LittleEndian.Uint16(b))
	if 2+l+1 > len(b) {
		r.bad = true
		return false
	}
	e.name = b[2 : 2+l]
	b = b[2+l:]
	e.kind = Kind(b[0])
	if e.kind == kindDir {
		if len(b) < recDirBytes {
			r.bad = true
			return false
		}
		copy(e.id[:], b[1:])
		e.key = statKey{}
		r.rest = b[recDirBytes:]
		return true
	}
	if len(b) < recFileBytes {
		r.bad = true
		return false
	}
	e.key.size = int64(binary.LittleEndian.Uint64(b[1:]))
	e.key.mtime = int64(binary.LittleEndian.Uint64(b[9:]))
	e.key.ctime = int64(binary.LittleEndian.Uint64(b[17:]))
	e.key.ino = binary.LittleEndian.Uint64(b[25:])
	e.key.mode = binary.LittleEndian.Uint32(b[33:])
	copy(e.id[:], b[37:])
	r.rest = b[recFileBytes:]
	return true
}

// cacheWriter builds a stat cache file.
type cacheWriter struct {
	buf   []byte
	table []tableEnt
	start int // the record being written
	count int
	cpos  int // where its count goes
}

type tableEnt struct {
	path     string
	off, len uint32
}

func newCacheWriter(size int) *cacheWriter {
	w := &cacheWriter{buf: make([]byte, 0, size+1024)}
	w.buf = append(w.buf, statCacheMagic...)
	return w
}

// raw adds a record copied from another cache file.
func (w *cacheWriter) raw(path string, rec []byte) {
	w.table = append(w.table, tableEnt{path, uint32(len(w.buf)), uint32(len(rec))})
	w.buf = append(w.buf, rec...)
}

// begin starts the record of folder path.
func (w *cacheWriter) begin(path string, tree ID) {
	w.start = len(w.buf)
	w.buf = binary.LittleEndian.AppendUint16(w.buf, uint16(len(path)))
	w.buf = append(w.buf, path...)
	w.buf = append(w.buf, tree[:]...)
	w.cpos = len(w.buf)
	w.buf = append(w.buf, 0, 0, 0, 0)
	w.count = 0
	w.table = append(w.table, tableEnt{path: path, off: uint32(w.start)})
}

func (w *cacheWriter) dir(name string, id ID) {
	w.buf = binary.LittleEndian.AppendUint16(w.buf, uint16(len(name)))
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, byte(kindDir))
	w.buf = append(w.buf, id[:]...)
	w.count++
}

func (w *cacheWriter) file(name string, kind Kind, k statKey, id ID) {
	w.buf = binary.LittleEndian.AppendUint16(w.buf, uint16(len(name)))
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, byte(kind))
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(k.size))
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(k.mtime))
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(k.ctime))
	w.buf = binary.LittleEndian.AppendUint64(w.buf, k.ino)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, k.mode)
	w.buf = append(w.buf, id[:]...)
	w.count++
}

// end closes the record begun last.
func (w *cacheWriter) end() {
	binary.LittleEndian.PutUint32(w.buf[w.cpos:], uint32(w.count))
	w.table[len(w.table)-1].len = uint32(len(w.buf) - w.start)
}

// bytes finishes the file: the sorted table, the footer.
func (w *cacheWriter) bytes() []byte {
	sort.Slice(w.table, func(i, j int) bool { return w.table[i].path < w.table[j].path })
	tableOff := len(w.buf)
	for _, t := range w.table {
		w.buf = binary.LittleEndian.AppendUint32(w.buf, t.off)
		w.buf = binary.LittleEndian.AppendUint32(w.buf, t.len)
	}
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(tableOff))
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(len(w.table)))
	return binary.LittleEndian.AppendUint32(w.buf, crc32.Checksum(w.buf, crcTable))
}

// saveCacheFile writes a cache atomically and returns its mtime, the new
// racy-clean reference.
func saveCacheFile(path string, data []byte) (int64, error) {
	if err := osfile.WriteFileAtomic(path, data, 0o600, false); err != nil {
		return 0, fmt.Errorf("save stat cache: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return time.Now().UnixNano(), nil
	}
	return fi.ModTime().UnixNano(), nil
}

// statCache is the stat cache a running server keeps in memory between
// incremental captures: root-relative paths to their last seen stat and
// content. at is its racy-clean reference time: an entry whose mtime is
// not older than at is re-read, since the file may have changed within the
// same timestamp tick after it was read.
type statCache struct {
	files map[string]cacheEntry
	at    int64 // ns
}

func newStatCache() *statCache {
	return &statCache{files: map[string]cacheEntry{}}
}

// trusted reports whether the cached entry for a file with key k may be
// used without reading the file.
func (c *statCache) trusted(rel string, k statKey) (cacheEntry, bool) {
	e, ok := c.files[rel]
	if !ok || e.key != k || k.mtime >= c.at {
		return cacheEntry{}, false
	}
	return e, true
}

// saveLive writes the cache of a running server from its live tree (the
// folders, their trees and entries) and the stat keys it knows.
func (c *statCache) saveLive(path string, lt *liveTree) error {
	if lt == nil {
		return nil
	}
	w := newCacheWriter(len(c.files) * 100)
	var walk func(rel string, n *dirNode)
	walk = func(rel string, n *dirNode) {
		if len(n.files) == 0 && len(n.dirs) == 0 && rel != "" {
			return
		}
		tree := n.id
		if n.dirty {
			tree = ID{}
		}
		names := make([]string, 0, len(n.files)+len(n.dirs))
		for name := range n.files {
			names = append(names, name)
		}
		for name := range n.dirs {
			names = append(names, name)
		}
		sort.Strings(names)
		w.begin(rel, tree)
		for _, name := range names {
			if d, ok := n.dirs[name]; ok {
				w.dir(name, d.id)
				continue
			}
			e := n.files[name]
			p := join(rel, name)
			ce, ok := c.files[p]
			k := ce.key
			if !ok || ce.id != e.ID || ce.kind != e.Kind {
				k = statKey{size: -1} // never trusted
			}
			if e.Kind == KindSkipped {
				k.size = e.Size
			}
			w.file(name, e.Kind, k, e.ID)
		}
		w.end()
		for _, name := range names {
			if d, ok := n.dirs[name]; ok {
				walk(join(rel, name), d)
			}
		}
	}
	walk("", lt.root)
	at, err := saveCacheFile(path, w.bytes())
	if err != nil {
		return err
	}
	c.at = at
	return nil
}

// isRacy reports whether a cached key is too recent to trust: the file
// may have changed in the same timestamp tick after it was read.
func isRacy(k statKey, at int64) bool { return k.mtime >= at }

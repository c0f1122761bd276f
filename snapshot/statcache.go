package snapshot

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"golang.org/x/sys/unix"
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

func keyOfStat(st *unix.Stat_t) statKey {
	return statKey{size: st.Size, mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
		ino: st.Ino, mode: st.Mode}
}

// cacheEntry is what the stat cache knows of one path.
type cacheEntry struct {
	key  statKey
	kind Kind
	id   ID
}

const statCacheMagic = "rewind-statcache-2\n"

// statCache maps root-relative paths to their last seen stat and content.
// at is the cache's racy-clean reference time: an entry whose mtime is not
// older than at is re-read, since the file may have changed within the
// same timestamp tick after it was read.
type statCache struct {
	files map[string]cacheEntry
	trees map[string]ID // folder → tree ID known to be stored
	at    int64         // ns
}

func newStatCache() *statCache {
	return &statCache{files: map[string]cacheEntry{}, trees: map[string]ID{}}
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

// loadStatCache reads the cache at path; a missing or damaged cache is an
// empty one (it only saves work).
func loadStatCache(path string) *statCache {
	c := newStatCache()
	data, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	fi, err := os.Stat(path)
	if err != nil {
		return c
	}
	if err := c.decode(data); err != nil {
		return newStatCache()
	}
	c.at = fi.ModTime().UnixNano()
	return c
}

func (c *statCache) decode(data []byte) error {
	if !bytes.HasPrefix(data, []byte(statCacheMagic)) {
		return errors.New("bad magic")
	}
	// One string for the whole file: paths are slices of it, no copy each.
	all := string(data)
	off := len(statCacheMagic)
	bad := errors.New("truncated stat cache")
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(data[off:])
		if n <= 0 {
			return 0, false
		}
		off += n
		return v, true
	}
	sv := func() (int64, bool) {
		v, n := binary.Varint(data[off:])
		if n <= 0 {
			return 0, false
		}
		off += n
		return v, true
	}
	str := func() (string, bool) {
		l, ok := uv()
		if !ok || l > uint64(len(data)-off) {
			return "", false
		}
		s := all[off : off+int(l)]
		off += int(l)
		return s, true
	}
	n, ok := uv()
	if !ok {
		return bad
	}
	c.files = make(map[string]cacheEntry, n)
	for i := uint64(0); i < n; i++ {
		p, ok := str()
		if !ok {
			return bad
		}
		var vals [5]int64
		for j := range vals {
			if vals[j], ok = sv(); !ok {
				return bad
			}
		}
		if len(data)-off < 1+len(ID{}) {
			return bad
		}
		e := cacheEntry{key: statKey{size: vals[0], mtime: vals[1], ctime: vals[2], ino: uint64(vals[3]), mode: uint32(vals[4])}, kind: Kind(data[off])}
		copy(e.id[:], data[off+1:])
		off += 1 + len(ID{})
		c.files[p] = e
	}
	nt, ok := uv()
	if !ok {
		return bad
	}
	for i := uint64(0); i < nt; i++ {
		p, ok := str()
		if !ok || len(data)-off < len(ID{}) {
			return bad
		}
		var id ID
		copy(id[:], data[off:])
		off += len(ID{})
		c.trees[p] = id
	}
	return nil
}

// save writes the cache atomically and makes its mtime the new racy-clean
// reference.
func (c *statCache) save(path string) error {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	w.WriteString(statCacheMagic)
	var tmp [binary.MaxVarintLen64]byte
	uv := func(v uint64) { w.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	sv := func(v int64) { w.Write(tmp[:binary.PutVarint(tmp[:], v)]) }
	paths := make([]string, 0, len(c.files))
	for p := range c.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	uv(uint64(len(paths)))
	for _, p := range paths {
		e := c.files[p]
		uv(uint64(len(p)))
		w.WriteString(p)
		sv(e.key.size)
		sv(e.key.mtime)
		sv(e.key.ctime)
		sv(int64(e.key.ino))
		sv(int64(e.key.mode))
		w.WriteByte(byte(e.kind))
		w.Write(e.id[:])
	}
	uv(uint64(len(c.trees)))
	for p, id := range c.trees {
		uv(uint64(len(p)))
		w.WriteString(p)
		w.Write(id[:])
	}
	w.Flush()
	if err := writeAtomic(path, buf.Bytes(), 0o600, false); err != nil {
		return fmt.Errorf("save stat cache: %w", err)
	}
	if fi, err := os.Stat(path); err == nil {
		c.at = fi.ModTime().UnixNano()
	} else {
		c.at = time.Now().UnixNano()
	}
	return nil
}

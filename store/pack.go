package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// Pack files. A pack is a header and a sequence of records:
//
//	id [32] | kind [1] | length uint32 LE | payload [length] | crc32c uint32 LE
//
// The CRC covers everything before it in the record, so a record cut short
// or damaged is recognised on read. A pack is written by one process (which
// holds an exclusive flock on it while appending), fsynced once, and then
// never changed: its index (.idx beside it) lists the records sorted by ID:
//
//	"RWIX" | version uint32 | count uint32 | pack length uint64 |
//	count × (id [32] | offset uint64 | length uint32) | crc32c uint32
//
// The index is only a shortcut: a pack without one (its writer died before
// sealing it) is read by scanning its records.

const (
	packMagic   = "RWPK"
	idxMagic    = "RWIX"
	packVersion = 2
	packHeader  = 8  // magic + version
	recHeader   = 37 // id + kind + length
	recTrailer  = 4  // crc32c
	idxHeader   = 20
	idxEntry    = 44
	maxPayload  = 1 << 30
)

// Record kinds.
const (
	kindZstd   = 'z' // payload: a zstd frame of the content
	kindRaw    = 'r' // payload: the content itself (incompressible or tiny)
	kindDelta  = 'd' // payload: base ID, depth byte, zstd frame of the delta body
	kindDeltaR = 'e' // payload: base ID, depth byte, the delta body as it is (small ones)
	kindPackZ  = 'p' // payload: a zstd frame of the content in the caller's packed form
	kindPackR  = 'q' // payload: the content in the caller's packed form, as it is
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendRecord appends one record to b.
func appendRecord(b []byte, id ID, kind byte, payload []byte) []byte {
	start := len(b)
	b = append(b, id[:]...)
	b = append(b, kind)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
}

// parseRecord checks one whole record (header, payload, CRC) in rec and
// returns its parts.
func parseRecord(rec []byte) (id ID, kind byte, payload []byte, err error) {
	if len(rec) < recHeader+recTrailer {
		return id, 0, nil, errors.New("record cut short")
	}
	n := binary.LittleEndian.Uint32(rec[33:37])
	if int64(len(rec)) != int64(recHeader)+int64(n)+recTrailer {
		return id, 0, nil, errors.New("record length does not match")
	}
	body := rec[:recHeader+int(n)]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(rec[len(body):]) {
		return id, 0, nil, errors.New("record checksum does not match")
	}
	copy(id[:], rec[:32])
	kind = rec[32]
	switch kind {
	case kindZstd, kindRaw, kindDelta, kindDeltaR, kindPackZ, kindPackR:
	default:
		return id, 0, nil, fmt.Errorf("record of unknown kind %q", kind)
	}
	return id, kind, rec[recHeader : recHeader+int(n)], nil
}

// entry is one record of a pack: where it starts and its whole length.
type entry struct {
	id  ID
	off int64
	n   uint32 // the record's length, header and CRC included
}

// pack is a sealed pack file (or one another process is still writing,
// read as far as its records are whole).
type pack struct {
	path string // the .pack file
	size int64  // bytes covered by the entries
	ents []entry
	torn int64 // bytes after the last whole record, in a pack nobody writes
	live bool  // another process is writing it: rescan on refresh

	mu sync.Mutex
	f  *os.File
}

func (p *pack) name() string { return baseName(p.path) }

// find returns the indexes in p.ents of id's records.
func (p *pack) find(id ID) (lo, hi int) {
	lo = sort.Search(len(p.ents), func(i int) bool { return bytes.Compare(p.ents[i].id[:], id[:]) >= 0 })
	hi = lo
	for hi < len(p.ents) && p.ents[hi].id == id {
		hi++
	}
	return lo, hi
}

// file opens the pack for reading (once).
func (p *pack) file() (*os.File, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		f, err := osfile.Open(p.path)
		if err != nil {
			return nil, err
		}
		p.f = f
	}
	return p.f, nil
}

func (p *pack) close() {
	p.mu.Lock()
	if p.f != nil {
		p.f.Close()
		p.f = nil
	}
	p.mu.Unlock()
}

// read returns the whole record of e.
func (p *pack) read(e entry) ([]byte, error) {
	buf := make([]byte, e.n)
	return buf, p.readAt(buf, e.off)
}

// readAt reads len(buf) bytes at off. A pack closed meanwhile (merged
// away) is opened again; one removed meanwhile gives fs.ErrNotExist.
func (p *pack) readAt(buf []byte, off int64) error {
	for try := 0; ; try++ {
		f, err := p.file()
		if err != nil {
			return err
		}
		_, err = f.ReadAt(buf, off)
		if errors.Is(err, os.ErrClosed) && try < 3 {
			continue
		}
		if errors.Is(err, io.EOF) {
			return errors.New("pack cut short")
		}
		return err
	}
}

// loadPack reads the pack at path through its index, or by scanning it
// when the index is missing or damaged. live says another process holds
// the pack open for writing (its last record may still be coming).
func loadPack(path string, live bool) (*pack, error) {
	if !live {
		if p, err := readIndex(path); err == nil {
			return p, nil
		}
	}
	return scanPack(path, live)
}

// readIndex loads a pack's sorted index.
func readIndex(packPath string) (*pack, error) {
	data, err := osfile.ReadFile(idxPath(packPath))
	if err != nil {
		return nil, err
	}
	if len(data) < idxHeader+recTrailer || string(data[:4]) != idxMagic {
		return nil, errors.New("not a pack index")
	}
	body := data[:len(data)-recTrailer]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, errors.New("pack index checksum does not match")
	}
	if v := binary.LittleEndian.Uint32(data[4:8]); v != packVersion {
		return nil, fmt.Errorf("pack index version %d", v)
	}
	count := int(binary.LittleEndian.Uint32(data[8:12]))
	size := int64(binary.LittleEndian.Uint64(data[12:20]))
	if len(body) != idxHeader+count*idxEntry {
		return nil, errors.New("pack index length does not match")
	}
	fi, err := os.Stat(packPath)
	if err != nil {
		return nil, err
	}
	if fi.Size() < size {
		return nil, errors.New("pack is shorter than its index says")
	}
	p := &pack{path: packPath, size: size, ents: make([]entry, count)}
	for i := range p.ents {
		b := body[idxHeader+i*idxEntry:]
		copy(p.ents[i].id[:], b[:32])
		p.ents[i].off = int64(binary.LittleEndian.Uint64(b[32:40]))
		p.ents[i].n = binary.LittleEndian.Uint32(b[40:44])
	}
	return p, nil
}

// scanPack reads every whole record of a pack; what follows the last whole
// record is a torn tail (or, in a live pack, a record being written).
func scanPack(path string, live bool) (*pack, error) {
	data, err := osfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < packHeader && bytes.HasPrefix([]byte(packMagic), data[:min(len(data), len(packMagic))]) {
		// A writer that died before its header was written: nothing in it.
		p := &pack{path: path, live: live, size: int64(len(data))}
		if !live {
			p.torn = int64(len(data))
			if p.torn == 0 {
				p.torn = -1 // empty: said as such by fsck
			}
		}
		return p, nil
	}
	if len(data) < packHeader || string(data[:4]) != packMagic {
		return nil, fmt.Errorf("pack %s: not a pack file", baseName(path))
	}
	if v := binary.LittleEndian.Uint32(data[4:8]); v != packVersion {
		return nil, fmt.Errorf("pack %s: format version %d, this rewind-lsp reads %d", baseName(path), v, packVersion)
	}
	p := &pack{path: path, live: live}
	off := int64(packHeader)
	for {
		rest := data[off:]
		if len(rest) < recHeader {
			break
		}
		n := int64(binary.LittleEndian.Uint32(rest[33:37]))
		if n > maxPayload || int64(len(rest)) < recHeader+n+recTrailer {
			break // cut short: a torn tail (or a record being written)
		}
		rec := rest[:recHeader+n+recTrailer]
		var id ID
		copy(id[:], rec[:32])
		if _, _, _, err := parseRecord(rec); err != nil && off+int64(len(rec)) == int64(len(data)) {
			break // the last record, whole in length but not in content: torn
		}
		// A damaged record inside the pack stays listed (its readers are
		// told it is damaged) and the scan goes on after it.
		p.ents = append(p.ents, entry{id: id, off: off, n: uint32(len(rec))})
		off += int64(len(rec))
	}
	p.size = off
	if !live {
		p.torn = int64(len(data)) - off
	}
	sortEntries(p.ents)
	return p, nil
}

func sortEntries(ents []entry) {
	sort.Slice(ents, func(i, j int) bool {
		if c := bytes.Compare(ents[i].id[:], ents[j].id[:]); c != 0 {
			return c < 0
		}
		return ents[i].off < ents[j].off
	})
}

// writeIndex writes the sorted index of a sealed pack (atomically; it need
// not be durable: a pack without its index is scanned).
func writeIndex(packPath string, ents []entry, size int64) error {
	sortEntries(ents)
	b := make([]byte, 0, idxHeader+len(ents)*idxEntry+recTrailer)
	b = append(b, idxMagic...)
	b = binary.LittleEndian.AppendUint32(b, packVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ents)))
	b = binary.LittleEndian.AppendUint64(b, uint64(size))
	for _, e := range ents {
		b = append(b, e.id[:]...)
		b = binary.LittleEndian.AppendUint64(b, uint64(e.off))
		b = binary.LittleEndian.AppendUint32(b, e.n)
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return writeFile(idxPath(packPath), b, false)
}

func idxPath(packPath string) string { return packPath[:len(packPath)-len(".pack")] + ".idx" }

// baseName is the file name of path p (after its last / or, on Windows, \).
func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || os.IsPathSeparator(p[i]) {
			return p[i+1:]
		}
	}
	return p
}

package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// Version is the object store format this package writes: 1 was one file
// per object (still read), 2 adds pack files.
const Version = 2

const formatFile = "format"

// Options configure a store.
type Options struct {
	// Delta rebuilds the content of a delta object from its base's ID and
	// the delta body given to PutDelta; nil means the store has none.
	Delta func(base ID, body []byte) ([]byte, error)
	// Unpack turns content stored in a packed form (PutPacked) back into
	// the content; nil means the store has none.
	Unpack func(packed []byte) ([]byte, error)
}

// Objects is a content-addressed store of verified, compressed objects
// under one folder. It is safe for concurrent use, also by several
// processes: each process appends to packs of its own.
type Objects struct {
	dir   string
	packs string // the packs folder
	opts  Options

	encOnce  sync.Once
	enc      *zstd.Encoder // the default level
	fastOnce sync.Once
	fastEnc  *zstd.Encoder // the fastest level, for first captures
	dec      *zstd.Decoder

	mu        sync.Mutex
	loaded    bool
	all       []*pack // sealed packs, and others' packs being written
	loose     bool    // the folder holds loose objects (a version 1 store)
	w         *writer // the pack this process appends to
	known     map[ID]struct{}
	fast      bool
	sealing   sync.WaitGroup
	sealErr   error
	fallbacks []func(ID) ([]byte, bool)
	dmg       damagedList
	formatErr error // a damaged format file (fsck reports it)
}

// Open opens (creating) the object store in dir. A store whose format is
// newer than Version is refused.
func Open(dir string, opts Options) (*Objects, error) {
	if err := os.MkdirAll(filepath.Join(dir, "packs"), 0o700); err != nil {
		return nil, fmt.Errorf("open object store %s: %w", dir, err)
	}
	formatErr, err := checkFormat(dir)
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<31))
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	o := &Objects{dir: dir, packs: filepath.Join(dir, "packs"), opts: opts, dec: dec, known: map[ID]struct{}{}, formatErr: formatErr}
	o.dmg.path = filepath.Join(dir, "damaged")
	return o, nil
}

// checkFormat reads the store's format version, writing the current one
// into a store that has none (new, or written before versions existed:
// those are version 1, which this version reads). A newer format is an
// error; a damaged format file is returned as damage (fsck reports it)
// and the store is read as the current format.
func checkFormat(dir string) (damage, err error) {
	p := filepath.Join(dir, formatFile)
	data, err := osfile.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, writeFile(p, []byte(fmt.Sprintf("rewind-lsp objects %d\n", Version)), true)
	}
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", dir, err)
	}
	f := strings.Fields(string(data))
	if len(f) != 3 || f[0] != "rewind-lsp" || f[1] != "objects" {
		return fmt.Errorf("%s is not a format file (%q)", p, strings.TrimSpace(string(data))), nil
	}
	v, err := strconv.Atoi(f[2])
	if err != nil {
		return fmt.Errorf("%s: bad format version %q", p, f[2]), nil
	}
	if v > Version {
		return nil, fmt.Errorf("object store %s has format %d, newer than this rewind-lsp reads (%d): use a newer rewind-lsp", dir, v, Version)
	}
	return nil, nil
}

// Dir is the object folder.
func (o *Objects) Dir() string { return o.dir }

// SetFast makes new objects use the fastest compression level (a first
// capture of a whole tree) or the default one again.
func (o *Objects) SetFast(fast bool) {
	o.mu.Lock()
	o.fast = fast
	o.mu.Unlock()
}

// AddFallback registers a source of content for damaged or missing
// objects: Get asks it, and an answer whose hash is the ID is returned
// and written again (healing the object).
func (o *Objects) AddFallback(fn func(ID) ([]byte, bool)) {
	o.mu.Lock()
	o.fallbacks = append(o.fallbacks, fn)
	o.mu.Unlock()
}

func (o *Objects) encoder(fast bool) *zstd.Encoder {
	if fast {
		o.fastOnce.Do(func() {
			o.fastEnc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
				zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithLowerEncoderMem(true),
				zstd.WithEncoderCRC(false)) // records carry a CRC, and contents are verified against their ID
		})
		return o.fastEnc
	}
	o.encOnce.Do(func() {
		o.enc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault),
			zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithLowerEncoderMem(true),
			zstd.WithEncoderCRC(false)) // records carry a CRC, and contents are verified against their ID
	})
	return o.enc
}

// compress returns the stored form of data: zstd, or the bytes themselves
// when compression does not make them smaller.
func (o *Objects) compress(data []byte, fast bool) (byte, []byte) {
	if len(data) < 64 {
		return kindRaw, data
	}
	c := o.encoder(fast).EncodeAll(data, getBuf(len(data)/3+64))
	if len(c) >= len(data) {
		putBuf(c)
		return kindRaw, data
	}
	return kindZstd, c
}

// bufs holds compression buffers between objects: a first capture
// compresses gigabytes, and a buffer per object would be that much garbage.
var bufs sync.Pool

// maxPooledBuf is the largest buffer kept in bufs.
const maxPooledBuf = 4 << 20

func getBuf(n int) []byte {
	if b, ok := bufs.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

func putBuf(b []byte) {
	if cap(b) <= maxPooledBuf {
		b = b[:0]
		bufs.Put(&b)
	}
}

// Has reports whether id is stored (without verifying it).
func (o *Objects) Has(id ID) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.known[id]; ok {
		return true
	}
	if o.w != nil && o.w.has(id) {
		return true
	}
	o.load()
	for _, p := range o.all {
		if lo, hi := p.find(id); lo < hi {
			return true
		}
	}
	return o.loose && looseExists(o.dir, id)
}

// Put stores data and returns its ID. Content already stored intact is
// not written again; content stored damaged is written again (healed).
func (o *Objects) Put(data []byte) (ID, error) {
	id := Sum(data)
	return id, o.PutID(id, data)
}

// PutID stores data whose ID the caller computed.
func (o *Objects) PutID(id ID, data []byte) error {
	if o.hasGood(id) {
		return nil
	}
	o.mu.Lock()
	fast := o.fast
	o.mu.Unlock()
	kind, payload := o.compress(data, fast)
	err := o.append(id, kind, payload) // copies the payload
	if kind == kindZstd {
		putBuf(payload)
	}
	return err
}

// PutDelta stores id as a delta against base: body is what Options.Delta
// turns back into the content, given base. The caller checked that base
// is stored.
func (o *Objects) PutDelta(id, base ID, body []byte) error {
	if o.hasGood(id) {
		return nil
	}
	_, depth, _ := o.DeltaBase(base)
	if depth >= 255 {
		return fmt.Errorf("store object %s: delta chain too long", id)
	}
	payload := make([]byte, 0, 33+len(body)+64)
	payload = append(payload, base[:]...)
	payload = append(payload, byte(depth+1))
	if len(body) < 256 {
		// A zstd frame costs more than it saves on a body this small.
		return o.append(id, kindDeltaR, append(payload, body...))
	}
	payload = o.encoder(false).EncodeAll(body, payload)
	return o.append(id, kindDelta, payload)
}

// PutPacked stores content whose ID is id in a smaller form the caller
// chose (snapshot packs its folder trees' hex IDs as bytes):
// Options.Unpack gives the content back, and reads verify it against id.
func (o *Objects) PutPacked(id ID, packed []byte) error {
	if o.hasGood(id) {
		return nil
	}
	if len(packed) >= 64 {
		o.mu.Lock()
		fast := o.fast
		o.mu.Unlock()
		if c := o.encoder(fast).EncodeAll(packed, make([]byte, 0, len(packed)/2+64)); len(c) < len(packed) {
			return o.append(id, kindPackZ, c)
		}
	}
	return o.append(id, kindPackR, packed)
}

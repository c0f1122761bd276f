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
	data, err := os.ReadFile(p)
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
	c := o.encoder(fast).EncodeAll(data, make([]byte, 0, len(data)/3+64))
	if len(c) >= len(data) {
		return kindRaw, data
	}
	return kindZstd, c
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
	return o.append(id, kind, payload)
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
		if c := o.encoder(false).EncodeAll(packed, make([]byte, 0, len(packed)/2+64)); len(c) < len(packed) {
			return o.append(id, kindPackZ, c)
		}
	}
	return o.append(id, kindPackR, packed)
}

// hasGood reports whether an intact copy of id is stored: a record whose
// CRC holds (or a loose object that decodes to its ID). An ID on the list
// of known-damaged objects is written again whatever its record says.
func (o *Objects) hasGood(id ID) bool {
	if o.dmg.has(id) {
		return false
	}
	o.mu.Lock()
	if _, ok := o.known[id]; ok {
		o.mu.Unlock()
		return true
	}
	if o.w != nil && o.w.has(id) {
		o.mu.Unlock()
		return true
	}
	o.load()
	locs := o.locate(id)
	loose := o.loose
	o.mu.Unlock()
	for _, l := range locs {
		rec, err := l.p.read(l.e)
		if err != nil {
			continue
		}
		if rid, _, _, err := parseRecord(rec); err == nil && rid == id {
			o.remember(id)
			return true
		}
	}
	if loose && looseExists(o.dir, id) {
		if _, err := o.getLoose(id); err == nil {
			o.remember(id)
			return true
		}
	}
	return false
}

func (o *Objects) remember(id ID) {
	o.mu.Lock()
	o.known[id] = struct{}{}
	o.mu.Unlock()
}

// loc is one stored copy of an object.
type loc struct {
	p *pack
	e entry
}

// locate lists the stored copies of id in packs (o.mu held).
func (o *Objects) locate(id ID) []loc {
	var out []loc
	for _, p := range o.all {
		lo, hi := p.find(id)
		for i := lo; i < hi; i++ {
			out = append(out, loc{p, p.ents[i]})
		}
	}
	return out
}

// load reads the packs folder the first time it is needed (o.mu held).
func (o *Objects) load() {
	if o.loaded {
		return
	}
	o.loaded = true
	o.loose = hasLooseShards(o.dir)
	o.refresh()
}

// refresh brings the list of packs up to date with the folder: packs
// merged away by another process are dropped, new ones read, and packs
// another process is writing read again (o.mu held).
func (o *Objects) refresh() {
	names, err := listPacks(o.packs)
	if err != nil {
		return
	}
	have := map[string]*pack{}
	for _, p := range o.all {
		have[p.path] = p
	}
	var next []*pack
	mine := ""
	if o.w != nil {
		mine = o.w.path
	}
	for _, path := range names {
		if path == mine {
			continue
		}
		if p := have[path]; p != nil && !p.live {
			next = append(next, p)
			delete(have, path)
			continue
		}
		p, err := loadPack(path, isLocked(path))
		if err != nil {
			continue // gone meanwhile, or not a pack: fsck says so
		}
		next = append(next, p)
	}
	for _, p := range have {
		p.close() // merged away or removed by gc
	}
	o.all = next
}

// Forget drops what this process believes is stored (after a gc in any
// process): the packs are listed again on the next lookup.
func (o *Objects) Forget() {
	o.mu.Lock()
	o.known = map[ID]struct{}{}
	for _, p := range o.all {
		p.close()
	}
	o.all = nil
	o.loaded = false
	o.mu.Unlock()
}

// Get returns the content of id, verified against it. A damaged or missing
// object is put on the store's list of known-damaged objects; when a
// fallback has its content (the file on disk still hashes right), that
// content is returned and the object written again.
func (o *Objects) Get(id ID) ([]byte, error) {
	data, err := o.get(id)
	if err == nil {
		return data, nil
	}
	var de *DamagedError
	if !errors.As(err, &de) {
		return nil, err
	}
	o.mu.Lock()
	fbs := append([]func(ID) ([]byte, bool){}, o.fallbacks...)
	o.mu.Unlock()
	for _, fb := range fbs {
		if data, ok := fb(id); ok && Sum(data) == id {
			if o.heal(id, data) == nil {
				return data, nil
			}
		}
	}
	o.dmg.add(id)
	return nil, err
}

// heal writes a good copy of id and makes it durable soon.
func (o *Objects) heal(id ID, data []byte) error {
	o.dmg.add(id) // so append writes it whatever the old record says
	kind, payload := o.compress(data, false)
	if err := o.append(id, kind, payload); err != nil {
		return err
	}
	o.SyncSoon()
	return nil
}

func (o *Objects) get(id ID) ([]byte, error) {
	var firstErr error
	where := ""
	for attempt := 0; attempt < 2; attempt++ {
		o.mu.Lock()
		var rec []byte
		var wname string
		if o.w != nil {
			rec, wname = o.w.record(id), o.w.path
		}
		o.load()
		if attempt > 0 {
			o.refresh()
		}
		locs := o.locate(id)
		loose := o.loose
		o.mu.Unlock()
		if rec != nil {
			data, err := o.decodeRecord(id, rec)
			if err == nil {
				return data, nil
			}
			firstErr, where = err, wname
		}
		found := rec != nil
		for _, l := range locs {
			rec, err := l.p.read(l.e)
			if errors.Is(err, fs.ErrNotExist) {
				continue // merged away by another process: refresh
			}
			found = true
			if err == nil {
				var data []byte
				if data, err = o.decodeRecord(id, rec); err == nil {
					o.remember(id)
					return data, nil
				}
			}
			if firstErr == nil {
				firstErr, where = err, fmt.Sprintf("%s at offset %d", l.p.path, l.e.off)
			}
		}
		if loose && looseExists(o.dir, id) {
			data, err := o.getLoose(id)
			if err == nil {
				return data, nil
			}
			found = true
			if firstErr == nil {
				firstErr, where = err, loosePath(o.dir, id)
			}
		}
		if found {
			break
		}
	}
	if firstErr == nil {
		return nil, &DamagedError{ID: id, Path: o.dir, Err: errors.New("missing")}
	}
	var de *DamagedError
	if errors.As(firstErr, &de) {
		return nil, firstErr
	}
	return nil, &DamagedError{ID: id, Path: where, Err: firstErr}
}

// decodeRecord checks a whole record and returns its content.
func (o *Objects) decodeRecord(id ID, rec []byte) ([]byte, error) {
	rid, kind, payload, err := parseRecord(rec)
	if err != nil {
		return nil, err
	}
	if rid != id {
		return nil, fmt.Errorf("the record holds %s", rid)
	}
	return o.decode(id, kind, payload)
}

// decode turns a stored payload into content verified against id.
func (o *Objects) decode(id ID, kind byte, payload []byte) ([]byte, error) {
	var data []byte
	var err error
	switch kind {
	case kindRaw:
		data = append([]byte(nil), payload...)
	case kindZstd:
		if data, err = o.dec.DecodeAll(payload, nil); err != nil {
			return nil, fmt.Errorf("cannot decompress: %w", err)
		}
	case kindPackZ, kindPackR:
		if o.opts.Unpack == nil {
			return nil, errors.New("a packed object, and this store reads none")
		}
		packed := payload
		if kind == kindPackZ {
			if packed, err = o.dec.DecodeAll(payload, nil); err != nil {
				return nil, fmt.Errorf("cannot decompress: %w", err)
			}
		}
		if data, err = o.opts.Unpack(packed); err != nil {
			return nil, err
		}
	case kindDelta, kindDeltaR:
		if len(payload) < 33 {
			return nil, errors.New("truncated delta header")
		}
		if o.opts.Delta == nil {
			return nil, errors.New("a delta object, and this store reads none")
		}
		var base ID
		copy(base[:], payload)
		body := payload[33:]
		if kind == kindDelta {
			if body, err = o.dec.DecodeAll(payload[33:], nil); err != nil {
				return nil, fmt.Errorf("cannot decompress: %w", err)
			}
		}
		if data, err = o.opts.Delta(base, body); err != nil {
			return nil, fmt.Errorf("its base %s: %w", base, err)
		}
	default:
		return nil, fmt.Errorf("unknown kind %q", kind)
	}
	if Sum(data) != id {
		return nil, errors.New("content does not match its id")
	}
	return data, nil
}

// DeltaBase returns the base of a delta object and the length of its
// chain (a zero ID and 0 for a whole object or one not stored).
func (o *Objects) DeltaBase(id ID) (ID, int, error) {
	var base ID
	o.mu.Lock()
	var rec []byte
	if o.w != nil {
		rec = o.w.record(id)
	}
	o.load()
	locs := o.locate(id)
	loose := o.loose
	o.mu.Unlock()
	var head []byte
	if rec != nil {
		head = rec
	} else if len(locs) > 0 {
		l := locs[0]
		n := int64(recHeader + 33)
		if int64(l.e.n) < n {
			n = int64(l.e.n)
		}
		head = make([]byte, n)
		if err := l.p.readAt(head, l.e.off); err != nil {
			return base, 0, err
		}
	} else if loose {
		return looseDeltaBase(o.dir, id)
	}
	if len(head) < recHeader+33 || (head[32] != kindDelta && head[32] != kindDeltaR) {
		return base, 0, nil
	}
	copy(base[:], head[recHeader:])
	return base, int(head[recHeader+32]), nil
}

// Size is the stored size of id in bytes (0 when it is not stored).
func (o *Objects) Size(id ID) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.w != nil {
		if i, ok := o.w.byID[id]; ok {
			return int64(o.w.ents[i].n)
		}
	}
	o.load()
	for _, p := range o.all {
		if lo, hi := p.find(id); lo < hi {
			return int64(p.ents[lo].n)
		}
	}
	if o.loose {
		if fi, err := os.Stat(loosePath(o.dir, id)); err == nil {
			return fi.Size()
		}
	}
	return 0
}

// Where names the file that holds id, for messages.
func (o *Objects) Where(id ID) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.load()
	for _, p := range o.all {
		if lo, hi := p.find(id); lo < hi {
			return fmt.Sprintf("%s at offset %d", p.path, p.ents[lo].off)
		}
	}
	if o.w != nil && o.w.has(id) {
		return o.w.path
	}
	return loosePath(o.dir, id)
}

// Walk calls fn once for every stored object ID with its stored size.
func (o *Objects) Walk(fn func(id ID, size int64) error) error {
	o.mu.Lock()
	o.load()
	o.refresh()
	seen := map[ID]bool{}
	type item struct {
		id ID
		n  int64
	}
	var items []item
	add := func(id ID, n int64) {
		if !seen[id] {
			seen[id] = true
			items = append(items, item{id, n})
		}
	}
	if o.w != nil {
		for _, e := range o.w.ents {
			add(e.id, int64(e.n))
		}
	}
	for _, p := range o.all {
		for _, e := range p.ents {
			add(e.id, int64(e.n))
		}
	}
	loose := o.loose
	o.mu.Unlock()
	if loose {
		err := walkLoose(o.dir, func(id ID, size int64) error {
			add(id, size)
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, it := range items {
		if err := fn(it.id, it.n); err != nil {
			return err
		}
	}
	return nil
}

// Bytes is the disk space the objects take (packs, their indexes, loose
// objects).
func (o *Objects) Bytes() int64 {
	var n int64
	ents, _ := os.ReadDir(o.packs)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	if o.HasLoose() {
		walkLoose(o.dir, func(_ ID, size int64) error {
			n += size
			return nil
		})
	}
	return n
}

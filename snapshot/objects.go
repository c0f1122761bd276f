package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/unix"
)

// ID names stored content: the SHA-256 of its uncompressed bytes.
type ID [32]byte

// String is the 64-digit lowercase hex form of id.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is the zero ID (no content).
func (id ID) IsZero() bool { return id == ID{} }

// ParseID parses the 64-digit hex form of an ID.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 64 {
		return id, fmt.Errorf("snapshot id %q: want 64 hex digits", s)
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("snapshot id %q: %w", s, err)
	}
	return id, nil
}

// Sum returns the ID of data.
func Sum(data []byte) ID { return sha256.Sum256(data) }

// DamagedError reports stored content that is missing, unreadable or does
// not match its ID.
type DamagedError struct {
	ID   ID
	Path string
	Err  error
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("object %s (%s) is damaged: %v", e.ID, e.Path, e.Err)
}

func (e *DamagedError) Unwrap() error { return e.Err }

// Objects is a content-addressed store of zstd-compressed files under one
// folder, sharded by the first two hex digits of the ID. Writes are atomic
// (temp file, rename); Sync makes every write so far durable. Reads verify
// content against its ID. It is safe for concurrent use, also by several
// processes.
type Objects struct {
	dir string
	enc *zstd.Encoder
	dec *zstd.Decoder

	mu      sync.Mutex
	pending []string        // objects written since the last Sync
	known   map[ID]struct{} // objects known to exist, to skip a stat

	trees treeCache
}

// OpenObjects opens (creating) the object folder dir.
func OpenObjects(dir string) (*Objects, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open object store %s: %w", dir, err)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithLowerEncoderMem(true))
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<31))
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	return &Objects{dir: dir, enc: enc, dec: dec, known: map[ID]struct{}{}}, nil
}

// Dir is the object folder.
func (o *Objects) Dir() string { return o.dir }

// Path is the file that holds id.
func (o *Objects) Path(id ID) string {
	h := id.String()
	return filepath.Join(o.dir, h[:2], h[2:])
}

// Has reports whether id is stored.
func (o *Objects) Has(id ID) bool {
	o.mu.Lock()
	_, ok := o.known[id]
	o.mu.Unlock()
	if ok {
		return true
	}
	if fi, err := os.Stat(o.Path(id)); err == nil && fi.Size() > 0 {
		o.remember(id)
		return true
	}
	return false
}

func (o *Objects) remember(id ID) {
	o.mu.Lock()
	o.known[id] = struct{}{}
	o.mu.Unlock()
}

// Put stores data and returns its ID; content already stored is not written
// again.
func (o *Objects) Put(data []byte) (ID, error) {
	id := Sum(data)
	return id, o.PutID(id, data)
}

// PutID stores data whose ID the caller computed.
func (o *Objects) PutID(id ID, data []byte) error {
	if o.Has(id) {
		return nil
	}
	return o.putRaw(id, o.enc.EncodeAll(data, make([]byte, 0, len(data)/3+64)))
}

// putRaw writes the stored form of id (compressed, or a delta) atomically.
func (o *Objects) putRaw(id ID, stored []byte) error {
	p := o.Path(id)
	if err := writeAtomic(p, stored, 0o600, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				return fmt.Errorf("store object %s: %w", id, err)
			}
			err = writeAtomic(p, stored, 0o600, false)
		}
		if err != nil {
			return fmt.Errorf("store object %s: %w", id, err)
		}
	}
	o.mu.Lock()
	o.pending = append(o.pending, p)
	o.known[id] = struct{}{}
	o.mu.Unlock()
	return nil
}

// Get returns the content of id, verified against it.
func (o *Objects) Get(id ID) ([]byte, error) {
	p := o.Path(id)
	comp, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &DamagedError{ID: id, Path: p, Err: errors.New("missing")}
		}
		return nil, &DamagedError{ID: id, Path: p, Err: err}
	}
	if bytes.HasPrefix(comp, deltaMagic) {
		return o.getDelta(id, comp, p)
	}
	data, err := o.dec.DecodeAll(comp, nil)
	if err != nil {
		return nil, &DamagedError{ID: id, Path: p, Err: fmt.Errorf("cannot decompress: %w", err)}
	}
	if Sum(data) != id {
		return nil, &DamagedError{ID: id, Path: p, Err: errors.New("content does not match its id")}
	}
	return data, nil
}

// syncfsThreshold is the number of new objects above which Sync flushes
// the whole file system at once instead of each object.
const syncfsThreshold = 256

// Sync makes every object written by this process since the last Sync
// durable. Callers sync before they record a reference to new objects in
// the journal. A few objects are fsynced one by one (in parallel, so the
// file system commits them together); many at once take one syncfs.
func (o *Objects) Sync() error {
	o.mu.Lock()
	pending := o.pending
	o.pending = nil
	o.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	if len(pending) > syncfsThreshold {
		f, err := os.Open(o.dir)
		if err != nil {
			return fmt.Errorf("sync object store: %w", err)
		}
		defer f.Close()
		if err := unix.Syncfs(int(f.Fd())); err != nil {
			return fmt.Errorf("sync object store: %w", err)
		}
		return nil
	}
	dirs := map[string]bool{}
	for _, p := range pending {
		dirs[filepath.Dir(p)] = true
	}
	paths := pending
	for d := range dirs {
		paths = append(paths, d)
	}
	errs := make(chan error, len(paths))
	sem := make(chan struct{}, 16)
	for _, p := range paths {
		sem <- struct{}{}
		go func(p string) {
			defer func() { <-sem }()
			f, err := os.Open(p)
			if err == nil {
				err = f.Sync()
				f.Close()
			}
			errs <- err
		}(p)
	}
	for range paths {
		if err := <-errs; err != nil {
			return fmt.Errorf("sync object store: %w", err)
		}
	}
	return nil
}

// SyncSoon starts making the objects written so far durable in the
// background, for the running server's turn boundaries: their cost then
// does not wait on the disk. The journal entry that names them is fsynced
// at once, so only a power cut within those milliseconds could leave it
// pointing at content the disk lost; fsck names such a snapshot and a
// rewind to it refuses. (A process crash loses nothing either way.)
func (o *Objects) SyncSoon() {
	o.mu.Lock()
	n := len(o.pending)
	o.mu.Unlock()
	if n > 0 {
		go o.Sync()
	}
}

// Forget drops what this process believes is stored (after a gc).
func (o *Objects) Forget() {
	o.mu.Lock()
	o.known = map[ID]struct{}{}
	o.mu.Unlock()
}

// Remove deletes id (used by gc only).
func (o *Objects) Remove(id ID) error {
	o.mu.Lock()
	delete(o.known, id)
	o.mu.Unlock()
	err := os.Remove(o.Path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Walk calls fn for every stored object ID.
func (o *Objects) Walk(fn func(id ID, size int64) error) error {
	shards, err := os.ReadDir(o.dir)
	if err != nil {
		return fmt.Errorf("list objects: %w", err)
	}
	for _, sh := range shards {
		if !sh.IsDir() || len(sh.Name()) != 2 {
			continue
		}
		ents, err := os.ReadDir(filepath.Join(o.dir, sh.Name()))
		if err != nil {
			return fmt.Errorf("list objects: %w", err)
		}
		for _, e := range ents {
			id, err := ParseID(sh.Name() + e.Name())
			if err != nil {
				continue // temp files and strangers
			}
			var size int64
			if fi, err := e.Info(); err == nil {
				size = fi.Size()
			}
			if err := fn(id, size); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeAtomic writes data to path through a temp file in the same folder and
// a rename, so readers see the old file or the new one, never a torn one.
// With sync it fsyncs the file and its folder.
func writeAtomic(path string, data []byte, perm fs.FileMode, sync bool) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if sync {
		if err = f.Sync(); err != nil {
			return err
		}
	}
	if perm != 0o600 { // CreateTemp made it 0600 already
		if err = f.Chmod(perm); err != nil {
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	if sync {
		if d, derr := os.Open(dir); derr == nil {
			d.Sync()
			d.Close()
		}
	}
	return nil
}

// WriteFileAtomic writes data to path atomically and durably (temp file,
// fsync, rename, fsync of the folder).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return writeAtomic(path, data, perm, true)
}

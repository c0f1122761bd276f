package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// Loose objects: the format before packs (version 1), one file per object
// at objects/ab/cdef… holding a zstd frame, or "RWDT", the base's ID, the
// chain depth and a zstd frame of a delta body. They are read as they are
// and moved into a pack by Repack.

var looseDeltaMagic = []byte("RWDT")

func loosePath(dir string, id ID) string {
	h := id.String()
	return filepath.Join(dir, h[:2], h[2:])
}

// hasLooseShards reports whether dir holds any shard folder.
func hasLooseShards(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.IsDir() && isShard(e.Name()) {
			return true
		}
	}
	return false
}

func isShard(name string) bool {
	if len(name) != 2 {
		return false
	}
	for _, c := range name {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func looseExists(dir string, id ID) bool {
	fi, err := os.Stat(loosePath(dir, id))
	return err == nil && fi.Size() > 0
}

// looseRecord converts a loose object's bytes into a record kind and
// payload.
func looseRecord(raw []byte) (byte, []byte, error) {
	if bytes.HasPrefix(raw, looseDeltaMagic) {
		if len(raw) < len(looseDeltaMagic)+33 {
			return 0, nil, errors.New("truncated delta header")
		}
		return kindDelta, raw[len(looseDeltaMagic):], nil
	}
	return kindZstd, raw, nil
}

// getLoose reads and verifies a loose object.
func (o *Objects) getLoose(id ID) ([]byte, error) {
	p := loosePath(o.dir, id)
	raw, err := osfile.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &DamagedError{ID: id, Path: p, Err: errors.New("missing")}
		}
		return nil, &DamagedError{ID: id, Path: p, Err: err}
	}
	kind, payload, err := looseRecord(raw)
	if err != nil {
		return nil, &DamagedError{ID: id, Path: p, Err: err}
	}
	data, err := o.decode(id, kind, payload)
	if err != nil {
		return nil, &DamagedError{ID: id, Path: p, Err: err}
	}
	return data, nil
}

func looseDeltaBase(dir string, id ID) (ID, int, error) {
	var base ID
	f, err := osfile.Open(loosePath(dir, id))
	if err != nil {
		return base, 0, err
	}
	defer f.Close()
	head := make([]byte, len(looseDeltaMagic)+33)
	n, _ := f.Read(head)
	if n < len(head) || !bytes.HasPrefix(head, looseDeltaMagic) {
		return base, 0, nil
	}
	copy(base[:], head[len(looseDeltaMagic):])
	return base, int(head[len(head)-1]), nil
}

// walkLoose calls fn for every loose object.
func walkLoose(dir string, fn func(id ID, size int64) error) error {
	shards, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("list objects: %w", err)
	}
	for _, sh := range shards {
		if !sh.IsDir() || !isShard(sh.Name()) {
			continue
		}
		ents, err := os.ReadDir(filepath.Join(dir, sh.Name()))
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

// HasLoose reports whether the store still holds loose objects (a store
// from before packs that gc has not repacked yet).
func (o *Objects) HasLoose() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.loaded {
		return hasLooseShards(o.dir) // without reading the packs' indexes
	}
	return o.loose
}

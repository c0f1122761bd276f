package snapshot

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rewind-lsp/rewind-lsp/store"
)

// ID names stored content: the SHA-256 of its uncompressed bytes.
type ID = store.ID

// DamagedError reports stored content that is missing, unreadable or does
// not match its ID.
type DamagedError = store.DamagedError

// ParseID parses the 64-digit hex form of an ID.
func ParseID(s string) (ID, error) { return store.ParseID(s) }

// Sum returns the ID of data.
func Sum(data []byte) ID { return store.Sum(data) }

// Objects is the object store (package store: packs, verified reads,
// healing) with what snapshots add: folder trees stored as deltas against
// the folder's previous tree, and a cache of decoded trees. It is safe for
// concurrent use, also by several processes.
type Objects struct {
	*store.Objects
	trees treeCache
}

// OpenObjects opens (creating) the object folder dir.
func OpenObjects(dir string) (*Objects, error) {
	o := &Objects{}
	s, err := store.Open(dir, store.Options{Delta: o.applyDelta, Unpack: unpackTree})
	if err != nil {
		return nil, err
	}
	o.Objects = s
	return o, nil
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

package snapshot

import (
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

package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// A folder's tree object changes a little from one turn to the next: one
// entry of hundreds. Storing each version whole would make the store grow by
// the size of every folder on the path of a change. A large tree is
// therefore stored as a delta against the folder's previous tree: the
// entries added, changed and removed. Its ID is still the SHA-256 of the
// whole tree, which the store rebuilds through applyDelta (the tree
// encoding is canonical) and verifies; readers never see the difference.

const (
	deltaMinBytes = 512 // smaller trees are stored whole
	deltaMaxDepth = 16  // longer chains are cut by storing the tree whole
)

// putTree stores tree data (whose entries are ents) under id, as a delta
// against base when that is worth it.
func (o *Objects) putTree(id ID, data []byte, ents []treeEntry, base ID) error {
	o.cacheTree(id, ents)
	if o.Has(id) && !o.IsDamaged(id) {
		return nil
	}
	whole := func() error { return o.PutPacked(id, packTree(ents)) }
	if base.IsZero() || base == id || len(data) < deltaMinBytes || !o.Has(base) || o.IsDamaged(base) {
		return whole()
	}
	_, depth, err := o.DeltaBase(base)
	if err != nil || depth+1 > deltaMaxDepth {
		return whole()
	}
	old, err := o.tree(base)
	if err != nil {
		return whole()
	}
	changes := treeChanges(old, ents)
	if len(changes)*4 > len(ents) {
		return whole()
	}
	return o.PutDelta(id, base, encodeChanges(changes))
}

// treeChange is one entry added or changed (remove false) or removed.
type treeChange struct {
	remove bool
	e      treeEntry
}

// treeChanges lists how sorted entries b differ from sorted entries a.
func treeChanges(a, b []treeEntry) []treeChange {
	var out []treeChange
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || (i < len(a) && a[i].name < b[j].name):
			out = append(out, treeChange{remove: true, e: treeEntry{name: a[i].name}})
			i++
		case i >= len(a) || b[j].name < a[i].name:
			out = append(out, treeChange{e: b[j]})
			j++
		default:
			if a[i] != b[j] {
				out = append(out, treeChange{e: b[j]})
			}
			i++
			j++
		}
	}
	return out
}

// A delta body is a version byte (1), then per change "-" and the name and
// a NUL for a removal, "+" and a packed entry (packTree) for an addition or
// change. Bodies of the first format (before packs) start with '+' or '-'
// and hold hex tree records; they are still read.
const deltaPacked = 1

func encodeChanges(cs []treeChange) []byte {
	b := []byte{deltaPacked}
	for _, c := range cs {
		if c.remove {
			b = append(b, '-')
			b = append(b, c.e.name...)
			b = append(b, 0)
			continue
		}
		b = append(b, '+')
		b = appendPacked(b, c.e)
	}
	return b
}

func decodeChanges(data []byte) ([]treeChange, error) {
	if len(data) > 0 && data[0] == deltaPacked {
		return decodePackedChanges(data[1:])
	}
	var out []treeChange
	for len(data) > 0 {
		op := data[0]
		data = data[1:]
		i := bytes.IndexByte(data, 0)
		if i < 0 {
			return nil, errors.New("delta record without terminator")
		}
		rec := data[:i+1]
		data = data[i+1:]
		switch op {
		case '-':
			out = append(out, treeChange{remove: true, e: treeEntry{name: string(rec[:len(rec)-1])}})
		case '+':
			ents, err := decodeTree(rec)
			if err != nil || len(ents) != 1 {
				return nil, fmt.Errorf("delta record: %v", err)
			}
			out = append(out, treeChange{e: ents[0]})
		default:
			return nil, fmt.Errorf("delta record of unknown kind %q", op)
		}
	}
	return out, nil
}

func decodePackedChanges(data []byte) ([]treeChange, error) {
	var out []treeChange
	for len(data) > 0 {
		op := data[0]
		data = data[1:]
		switch op {
		case '-':
			i := bytes.IndexByte(data, 0)
			if i < 0 {
				return nil, errors.New("delta record without terminator")
			}
			name := string(data[:i])
			if !validName(name) {
				return nil, fmt.Errorf("delta record has unsafe name %q", name)
			}
			out = append(out, treeChange{remove: true, e: treeEntry{name: name}})
			data = data[i+1:]
		case '+':
			e, rest, err := readPacked(data)
			if err != nil {
				return nil, fmt.Errorf("delta record: %w", err)
			}
			out = append(out, treeChange{e: e})
			data = rest
		default:
			return nil, fmt.Errorf("delta record of unknown kind %q", op)
		}
	}
	return out, nil
}

// applyChanges returns the sorted entries of base with changes applied.
func applyChanges(base []treeEntry, cs []treeChange) []treeEntry {
	m := make(map[string]treeEntry, len(base)+len(cs))
	for _, e := range base {
		m[e.name] = e
	}
	for _, c := range cs {
		if c.remove {
			delete(m, c.e.name)
		} else {
			m[c.e.name] = c.e
		}
	}
	out := make([]treeEntry, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// packTree is the stored form of a folder's tree: its ID is the SHA-256 of
// the canonical (hex) encoding, but the store keeps the IDs as bytes — half
// the size, and what zstd cannot shrink. A version byte (1), then per
// entry: kind, id [32], size (uvarint), name, NUL.
func packTree(ents []treeEntry) []byte {
	b := make([]byte, 1, 1+len(ents)*(32+8+16))
	b[0] = 1
	for _, e := range ents {
		b = appendPacked(b, e)
	}
	return b
}

func appendPacked(b []byte, e treeEntry) []byte {
	b = append(b, byte(e.kind))
	b = append(b, e.id[:]...)
	b = binary.AppendUvarint(b, uint64(e.size))
	b = append(b, e.name...)
	return append(b, 0)
}

func readPacked(b []byte) (treeEntry, []byte, error) {
	var e treeEntry
	if len(b) < 1+32+1 {
		return e, nil, errors.New("packed entry cut short")
	}
	e.kind = Kind(b[0])
	switch e.kind {
	case KindFile, KindExec, KindSymlink, KindSkipped, kindDir:
	default:
		return e, nil, fmt.Errorf("packed entry of unknown kind %q", b[0])
	}
	copy(e.id[:], b[1:33])
	size, n := binary.Uvarint(b[33:])
	if n <= 0 || size > 1<<62 {
		return e, nil, errors.New("packed entry size")
	}
	e.size = int64(size)
	b = b[33+n:]
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return e, nil, errors.New("packed entry without terminator")
	}
	e.name = string(b[:i])
	if !validName(e.name) {
		return e, nil, fmt.Errorf("packed entry has unsafe name %q", e.name)
	}
	return e, b[i+1:], nil
}

// unpackTree rebuilds a tree's canonical encoding from its stored form
// (the store verifies it against the tree's ID).
func unpackTree(b []byte) ([]byte, error) {
	if len(b) == 0 || b[0] != 1 {
		return nil, errors.New("not a packed tree")
	}
	b = b[1:]
	var ents []treeEntry
	for len(b) > 0 {
		e, rest, err := readPacked(b)
		if err != nil {
			return nil, err
		}
		ents = append(ents, e)
		b = rest
	}
	return encodeTree(ents), nil
}

// applyDelta rebuilds a tree stored as a delta from its base and the
// delta body (the store verifies the result against the tree's ID).
func (o *Objects) applyDelta(base ID, body []byte) ([]byte, error) {
	cs, err := decodeChanges(body)
	if err != nil {
		return nil, err
	}
	old, err := o.tree(base)
	if err != nil {
		return nil, err
	}
	return encodeTree(applyChanges(old, cs)), nil
}

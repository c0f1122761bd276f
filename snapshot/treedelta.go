package snapshot

import (
	"bytes"
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
	deltaMinBytes = 2048 // smaller trees are stored whole
	deltaMaxDepth = 16   // longer chains are cut by storing the tree whole
)

// putTree stores tree data (whose entries are ents) under id, as a delta
// against base when that is worth it.
func (o *Objects) putTree(id ID, data []byte, ents []treeEntry, base ID) error {
	o.cacheTree(id, ents)
	if o.Has(id) && !o.IsDamaged(id) {
		return nil
	}
	if base.IsZero() || base == id || len(data) < deltaMinBytes || !o.Has(base) || o.IsDamaged(base) {
		return o.PutID(id, data)
	}
	_, depth, err := o.DeltaBase(base)
	if err != nil || depth+1 > deltaMaxDepth {
		return o.PutID(id, data)
	}
	old, err := o.tree(base)
	if err != nil {
		return o.PutID(id, data)
	}
	changes := treeChanges(old, ents)
	if len(changes)*4 > len(ents) {
		return o.PutID(id, data)
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

// encodeChanges writes removals as "-name\x00" and additions as "+" and a
// tree record.
func encodeChanges(cs []treeChange) []byte {
	var b bytes.Buffer
	for _, c := range cs {
		if c.remove {
			b.WriteByte('-')
			b.WriteString(c.e.name)
			b.WriteByte(0)
			continue
		}
		b.WriteByte('+')
		b.Write(encodeTree([]treeEntry{c.e}))
	}
	return b.Bytes()
}

func decodeChanges(data []byte) ([]treeChange, error) {
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

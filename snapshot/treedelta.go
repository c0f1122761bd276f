package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sort"
)

// A folder's tree object changes a little from one turn to the next: one
// entry of hundreds. Storing each version whole would make the store grow by
// the size of every folder on the path of a change. A large tree is
// therefore stored as a delta against the folder's previous tree: the
// entries added, changed and removed. Its ID is still the SHA-256 of the
// whole tree, which Get rebuilds (the tree encoding is canonical) and
// verifies; readers never see the difference.

// deltaMagic starts a delta object; zstd frames start with 0x28b52ffd.
var deltaMagic = []byte("RWDT")

const (
	deltaMinBytes = 2048 // smaller trees are stored whole
	deltaMaxDepth = 16   // longer chains are cut by storing the tree whole
)

// putTree stores tree data (whose entries are ents) under id, as a delta
// against base when that is worth it.
func (o *Objects) putTree(id ID, data []byte, ents []treeEntry, base ID) error {
	o.cacheTree(id, ents)
	if o.Has(id) {
		return nil
	}
	if base.IsZero() || base == id || len(data) < deltaMinBytes || !o.Has(base) {
		return o.PutID(id, data)
	}
	depth, err := o.deltaDepth(base)
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
	var body bytes.Buffer
	body.Write(deltaMagic)
	body.Write(base[:])
	body.WriteByte(byte(depth + 1))
	body.Write(o.enc.EncodeAll(encodeChanges(changes), nil))
	return o.putRaw(id, body.Bytes())
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

// getDelta rebuilds the content of delta object id from its stored bytes.
func (o *Objects) getDelta(id ID, raw []byte, path string) ([]byte, error) {
	if len(raw) < len(deltaMagic)+33 {
		return nil, &DamagedError{ID: id, Path: path, Err: errors.New("truncated delta header")}
	}
	var base ID
	copy(base[:], raw[len(deltaMagic):])
	body, err := o.dec.DecodeAll(raw[len(deltaMagic)+33:], nil)
	if err != nil {
		return nil, &DamagedError{ID: id, Path: path, Err: fmt.Errorf("cannot decompress: %w", err)}
	}
	cs, err := decodeChanges(body)
	if err != nil {
		return nil, &DamagedError{ID: id, Path: path, Err: err}
	}
	old, err := o.tree(base)
	if err != nil {
		return nil, &DamagedError{ID: id, Path: path, Err: fmt.Errorf("its base %s: %w", base, err)}
	}
	data := encodeTree(applyChanges(old, cs))
	if Sum(data) != id {
		return nil, &DamagedError{ID: id, Path: path, Err: errors.New("content does not match its id")}
	}
	return data, nil
}

// deltaBase returns the base of a delta object (zero for a whole object).
func (o *Objects) deltaBase(id ID) (ID, error) {
	var base ID
	f, err := os.Open(o.Path(id))
	if err != nil {
		return base, err
	}
	defer f.Close()
	head := make([]byte, len(deltaMagic)+33)
	n, _ := f.Read(head)
	if n < len(head) || !bytes.HasPrefix(head, deltaMagic) {
		return base, nil
	}
	copy(base[:], head[len(deltaMagic):])
	return base, nil
}

// deltaDepth is the length of id's delta chain (0 for a whole object).
func (o *Objects) deltaDepth(id ID) (int, error) {
	f, err := os.Open(o.Path(id))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	head := make([]byte, len(deltaMagic)+33)
	n, _ := f.Read(head)
	if n < len(head) || !bytes.HasPrefix(head, deltaMagic) {
		return 0, nil
	}
	return int(head[len(head)-1]), nil
}

package snapshot

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/rootfs"
)

// Kind is what a snapshot holds at a path.
type Kind byte

const (
	KindFile    Kind = 'f' // a regular file
	KindExec    Kind = 'x' // a regular file with the executable bit
	KindSymlink Kind = 'l' // a symbolic link; its content is the link target
	KindSkipped Kind = 's' // a file not captured (larger than maxFileBytes)
	kindDir     Kind = 'd' // a folder (inside tree objects only)
)

// String is the kind's name as commands report it.
func (k Kind) String() string {
	switch k {
	case KindFile:
		return "file"
	case KindExec:
		return "exec"
	case KindSymlink:
		return "symlink"
	case KindSkipped:
		return "skipped"
	case kindDir:
		return "dir"
	}
	return "unknown"
}

// Entry is one file of a snapshot.
type Entry struct {
	Kind Kind
	ID   ID    // content (zero for KindSkipped)
	Size int64 // content size in bytes
}

// Manifest is the flat content of a snapshot: root-relative slash paths of
// files, links and skipped files. Folders are implied by paths.
type Manifest map[string]Entry

// Paths returns the manifest's paths sorted.
func (m Manifest) Paths() []string {
	ps := make([]string, 0, len(m))
	for p := range m {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// treeEntry is one line of a tree object.
type treeEntry struct {
	name string
	kind Kind
	id   ID
	size int64
}

// encodeTree serializes entries (sorted by name) as "<kind> <hex id> <size>
// <name>\x00" records. Names never contain NUL, so the format is unambiguous.
func encodeTree(ents []treeEntry) []byte {
	var b bytes.Buffer
	b.Grow(len(ents) * 96)
	var hx [64]byte
	for _, e := range ents {
		b.WriteByte(byte(e.kind))
		b.WriteByte(' ')
		hex.Encode(hx[:], e.id[:])
		b.Write(hx[:])
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(e.size, 10))
		b.WriteByte(' ')
		b.WriteString(e.name)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// decodeTree parses a tree object.
func decodeTree(data []byte) ([]treeEntry, error) {
	var ents []treeEntry
	for len(data) > 0 {
		i := bytes.IndexByte(data, 0)
		if i < 0 {
			return nil, fmt.Errorf("tree record without terminator")
		}
		rec := data[:i]
		data = data[i+1:]
		if len(rec) < 2+64+1+1+1 || rec[1] != ' ' || rec[66] != ' ' {
			return nil, fmt.Errorf("malformed tree record %q", rec)
		}
		var e treeEntry
		e.kind = Kind(rec[0])
		switch e.kind {
		case KindFile, KindExec, KindSymlink, KindSkipped, kindDir:
		default:
			return nil, fmt.Errorf("tree record of unknown kind %q", rec[0])
		}
		if _, err := hex.Decode(e.id[:], rec[2:66]); err != nil {
			return nil, fmt.Errorf("tree record id: %w", err)
		}
		rest := string(rec[67:])
		sp := strings.IndexByte(rest, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("malformed tree record %q", rec)
		}
		size, err := strconv.ParseInt(rest[:sp], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("tree record size: %w", err)
		}
		e.size = size
		e.name = rest[sp+1:]
		if !validName(e.name) {
			return nil, fmt.Errorf("tree record has unsafe name %q", e.name)
		}
		ents = append(ents, e)
	}
	return ents, nil
}

// validName reports whether name is a safe single path element.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && name != ".git" &&
		!strings.ContainsAny(name, "/\x00")
}

// ValidPath reports whether rel is a clean, root-relative slash path with no
// "..", no absolute start and no element a file system may take for ".git"
// (".GIT", "GIT~1", ".git." …): the only paths a snapshot may hold and a
// restore may write.
func ValidPath(rel string) bool {
	if rel == "" || path.Clean(rel) != rel || strings.HasPrefix(rel, "/") {
		return false
	}
	for _, el := range strings.Split(rel, "/") {
		if !validName(el) || rootfs.IsGitName(el) {
			return false
		}
	}
	return true
}

// WriteTree stores m as tree objects (one per folder) and returns the root
// tree's ID, the snapshot ID. Equal manifests give equal IDs. known, when
// not nil, maps folder paths to tree IDs known to be stored; it is updated.
func WriteTree(o *Objects, m Manifest, known map[string]ID) (ID, error) {
	// Group entries by folder.
	dirs := map[string][]treeEntry{"": nil}
	for p, e := range m {
		dir, name := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		for d := dir; ; d = parentDir(d) {
			if _, ok := dirs[d]; ok {
				break
			}
			dirs[d] = nil
		}
		dirs[dir] = append(dirs[dir], treeEntry{name: name, kind: e.Kind, id: e.ID, size: e.Size})
	}
	// Children folders of each folder.
	sub := map[string][]string{}
	for d := range dirs {
		if d == "" {
			continue
		}
		sub[parentDir(d)] = append(sub[parentDir(d)], d)
	}
	var build func(d string) (ID, error)
	build = func(d string) (ID, error) {
		ents := dirs[d]
		for _, c := range sub[d] {
			id, err := build(c)
			if err != nil {
				return ID{}, err
			}
			ents = append(ents, treeEntry{name: path.Base(c), kind: kindDir, id: id})
		}
		sort.Slice(ents, func(i, j int) bool { return ents[i].name < ents[j].name })
		data := encodeTree(ents)
		id := Sum(data)
		var prev ID
		if known != nil {
			if k, ok := known[d]; ok && k == id {
				return id, nil
			}
			prev = known[d]
		}
		if err := o.putTree(id, data, ents, prev); err != nil {
			return ID{}, err
		}
		if known != nil {
			known[d] = id
		}
		return id, nil
	}
	return build("")
}

// ReadTree loads the manifest of snapshot id.
func ReadTree(o *Objects, id ID) (Manifest, error) {
	m := Manifest{}
	var walk func(prefix string, id ID) error
	walk = func(prefix string, id ID) error {
		data, err := o.Get(id)
		if err != nil {
			return err
		}
		ents, err := decodeTree(data)
		if err != nil {
			return &DamagedError{ID: id, Path: o.Where(id), Err: err}
		}
		for _, e := range ents {
			p := e.name
			if prefix != "" {
				p = prefix + "/" + e.name
			}
			if e.kind == kindDir {
				if err := walk(p, e.id); err != nil {
					return err
				}
				continue
			}
			m[p] = Entry{Kind: e.kind, ID: e.id, Size: e.size}
		}
		return nil
	}
	if err := walk("", id); err != nil {
		return nil, err
	}
	return m, nil
}

// Reach is the set of objects some snapshots need (gc keeps it, fsck
// checks it): every tree and content, and the bases of trees stored as
// deltas. It remembers apart which trees it entered, since a tree first
// needed as another's delta base has not had its entries added. A child
// Reach adds to its parent's only when committed.
type Reach struct {
	parent *Reach
	keep   map[ID]bool
	walked map[ID]bool
}

// NewReach returns an empty set.
func NewReach() *Reach { return &Reach{keep: map[ID]bool{}, walked: map[ID]bool{}} }

// Child returns a set that reads through r and adds to r only on Commit.
func (r *Reach) Child() *Reach {
	c := NewReach()
	c.parent = r
	return c
}

// Commit adds what the child set gathered to its parent.
func (r *Reach) Commit() {
	for id := range r.keep {
		r.parent.keep[id] = true
	}
	for id := range r.walked {
		r.parent.walked[id] = true
	}
}

// Has reports whether id is in the set.
func (r *Reach) Has(id ID) bool {
	for x := r; x != nil; x = x.parent {
		if x.keep[id] {
			return true
		}
	}
	return false
}

func (r *Reach) entered(id ID) bool {
	for x := r; x != nil; x = x.parent {
		if x.walked[id] {
			return true
		}
	}
	return false
}

// add keeps id; false when it was kept already.
func (r *Reach) add(id ID) bool {
	if r.Has(id) {
		return false
	}
	r.keep[id] = true
	return true
}

// Add adds every object snapshot root needs, calling fn once for each
// object new to the set.
func (r *Reach) Add(o *Objects, root ID, fn func(id ID, isTree bool) error) error {
	var walk func(id ID) error
	walk = func(id ID) error {
		if r.entered(id) {
			return nil
		}
		r.walked[id] = true
		if r.add(id) {
			if err := fn(id, true); err != nil {
				return err
			}
		}
		// A tree stored as a delta needs its chain of bases (a base kept
		// already has its chain kept).
		for b, _, _ := o.DeltaBase(id); !b.IsZero() && r.add(b); b, _, _ = o.DeltaBase(b) {
			if err := fn(b, true); err != nil {
				return err
			}
		}
		ents, err := o.tree(id)
		if err != nil {
			return err
		}
		for _, e := range ents {
			switch e.kind {
			case kindDir:
				if err := walk(e.id); err != nil {
					return err
				}
			case KindSkipped:
			default:
				if r.add(e.id) {
					if err := fn(e.id, false); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return walk(root)
}

// parentDir is the folder holding root-relative path p ("" for the root).
func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

package snapshot

import (
	"sort"
	"strings"
	"sync"
)

// treeCache keeps decoded tree objects; trees are immutable, so entries
// never go stale. It is bounded by the entries it holds, not the trees (a
// large folder's tree is a new one at every change in it, and a count of
// trees let a server's memory grow with its turns): two generations, the
// current one and the one before, so what the last captures stored stays
// while older trees go.
type treeCache struct {
	mu       sync.Mutex
	cur, old map[ID][]treeEntry
	n        int // entries in cur
}

// treeCacheEntries bounds the entries of one generation (~100 bytes each).
const treeCacheEntries = 100_000

func (c *treeCache) put(id ID, ents []treeEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil || c.n+len(ents) > treeCacheEntries {
		c.old, c.cur, c.n = c.cur, map[ID][]treeEntry{}, 0
	}
	if _, ok := c.cur[id]; !ok {
		c.cur[id] = ents
		c.n += len(ents)
	}
}

func (c *treeCache) get(id ID) ([]treeEntry, bool) {
	c.mu.Lock()
	ents, ok := c.cur[id]
	if !ok {
		ents, ok = c.old[id]
	}
	c.mu.Unlock()
	if ok {
		c.put(id, ents) // used again: into the current generation
	}
	return ents, ok
}

// cacheTree remembers the decoded entries of a tree just stored (ents must
// not be changed afterwards), so diffs and deltas of the next turn need not
// read it back.
func (o *Objects) cacheTree(id ID, ents []treeEntry) { o.trees.put(id, ents) }

func (o *Objects) tree(id ID) ([]treeEntry, error) {
	if ents, ok := o.trees.get(id); ok {
		return ents, nil
	}
	data, err := o.Get(id)
	if err != nil {
		return nil, err
	}
	ents, err := decodeTree(data)
	if err != nil {
		return nil, &DamagedError{ID: id, Path: o.Where(id), Err: err}
	}
	o.trees.put(id, ents)
	return ents, nil
}

// PathDiff is one path whose entry differs between two snapshots.
type PathDiff struct {
	Path     string
	A, B     Entry
	InA, InB bool
}

// DiffTrees lists the paths that differ between snapshots a and b (a zero
// ID is the empty snapshot), sorted by path. Folders equal in both are not
// read; the folders of one depth are read on every core.
func DiffTrees(o *Objects, a, b ID) ([]PathDiff, error) {
	// pair is a folder to compare: its trees in a and in b (zero where the
	// folder is on one side only).
	type pair struct {
		prefix string
		a, b   ID
	}
	load := func(id ID) ([]treeEntry, error) {
		if id.IsZero() {
			return nil, nil
		}
		return o.tree(id)
	}
	entry := func(e treeEntry) Entry { return Entry{Kind: e.kind, ID: e.id, Size: e.size} }
	var out []PathDiff
	var level []pair
	if a != b {
		level = append(level, pair{"", a, b})
	}
	for len(level) > 0 {
		ents := make([][2][]treeEntry, len(level))
		err := parallel(len(level), func(i int) error {
			var err error
			if ents[i][0], err = load(level[i].a); err != nil {
				return err
			}
			ents[i][1], err = load(level[i].b)
			return err
		})
		if err != nil {
			return nil, err
		}
		var next []pair
		// onA and onB note an entry found on one side only: a folder's
		// files are compared with nothing at the next depth.
		onA := func(p string, x treeEntry) {
			if x.kind == kindDir {
				next = append(next, pair{p, x.id, ID{}})
			} else {
				out = append(out, PathDiff{Path: p, A: entry(x), InA: true})
			}
		}
		onB := func(p string, y treeEntry) {
			if y.kind == kindDir {
				next = append(next, pair{p, ID{}, y.id})
			} else {
				out = append(out, PathDiff{Path: p, B: entry(y), InB: true})
			}
		}
		for n, pr := range level {
			ea, eb := ents[n][0], ents[n][1]
			i, j := 0, 0
			for i < len(ea) || j < len(eb) {
				switch {
				case j >= len(eb) || (i < len(ea) && ea[i].name < eb[j].name):
					onA(join(pr.prefix, ea[i].name), ea[i])
					i++
				case i >= len(ea) || eb[j].name < ea[i].name:
					onB(join(pr.prefix, eb[j].name), eb[j])
					j++
				default:
					x, y := ea[i], eb[j]
					i++
					j++
					p := join(pr.prefix, x.name)
					switch {
					case x.kind == kindDir && y.kind == kindDir:
						if x.id != y.id {
							next = append(next, pair{p, x.id, y.id})
						}
					case x.kind == kindDir || y.kind == kindDir:
						onA(p, x)
						onB(p, y)
					case x.kind != y.kind || x.id != y.id || x.size != y.size:
						out = append(out, PathDiff{Path: p, A: entry(x), InA: true, B: entry(y), InB: true})
					}
				}
			}
		}
		level = next
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "/" + name
}

// Lookup finds the entry of rel in snapshot root.
func Lookup(o *Objects, root ID, rel string) (Entry, bool, error) {
	if root.IsZero() {
		return Entry{}, false, nil
	}
	els := strings.Split(rel, "/")
	id := root
	for i, el := range els {
		ents, err := o.tree(id)
		if err != nil {
			return Entry{}, false, err
		}
		k := sort.Search(len(ents), func(n int) bool { return ents[n].name >= el })
		if k == len(ents) || ents[k].name != el {
			return Entry{}, false, nil
		}
		e := ents[k]
		if i == len(els)-1 {
			if e.kind == kindDir {
				return Entry{}, false, nil
			}
			return Entry{Kind: e.kind, ID: e.id, Size: e.size}, true, nil
		}
		if e.kind != kindDir {
			return Entry{}, false, nil
		}
		id = e.id
	}
	return Entry{}, false, nil
}

// IsDir reports whether snapshot root holds a folder at rel.
func IsDir(o *Objects, root ID, rel string) bool {
	if root.IsZero() {
		return false
	}
	id := root
	for _, el := range strings.Split(rel, "/") {
		ents, err := o.tree(id)
		if err != nil {
			return false
		}
		k := sort.Search(len(ents), func(n int) bool { return ents[n].name >= el })
		if k == len(ents) || ents[k].name != el || ents[k].kind != kindDir {
			return false
		}
		id = ents[k].id
	}
	return true
}

// PatchTree returns the snapshot that is root with the given paths set to
// their entries (a nil entry removes the path), rewriting only the folders
// on the way: a patch costs what it changes, not the size of the tree.
func PatchTree(o *Objects, root ID, changes map[string]*Entry) (ID, error) {
	// Group the changes by their first path element.
	type sub struct {
		self *Entry
		set  bool
		rest map[string]*Entry
	}
	var patch func(id ID, changes map[string]*Entry) (ID, bool, error)
	patch = func(id ID, changes map[string]*Entry) (ID, bool, error) {
		var ents []treeEntry
		if !id.IsZero() {
			old, err := o.tree(id)
			if err != nil {
				return ID{}, false, err
			}
			ents = append(ents, old...)
		}
		groups := map[string]*sub{}
		for p, e := range changes {
			head, rest, deeper := strings.Cut(p, "/")
			g := groups[head]
			if g == nil {
				g = &sub{rest: map[string]*Entry{}}
				groups[head] = g
			}
			if deeper {
				g.rest[rest] = e
			} else {
				g.self, g.set = e, true
			}
		}
		byName := map[string]int{}
		for i, e := range ents {
			byName[e.name] = i
		}
		for name, g := range groups {
			i, exists := byName[name]
			var cur *treeEntry
			if exists {
				cur = &ents[i]
			}
			var next *treeEntry
			switch {
			case g.set && g.self != nil:
				// A file (or link) here; anything below it is gone with the
				// folder it replaces.
				next = &treeEntry{name: name, kind: g.self.Kind, id: g.self.ID, size: g.self.Size}
			case len(g.rest) > 0:
				var base ID
				if cur != nil && cur.kind == kindDir {
					base = cur.id
				}
				nid, nonEmpty, err := patch(base, g.rest)
				if err != nil {
					return ID{}, false, err
				}
				if nonEmpty {
					next = &treeEntry{name: name, kind: kindDir, id: nid}
				}
			}
			switch {
			case next != nil && exists:
				ents[i] = *next
			case next != nil:
				byName[name] = len(ents)
				ents = append(ents, *next)
			case exists:
				ents[i].name = "" // removed below
			}
		}
		kept := ents[:0]
		for _, e := range ents {
			if e.name != "" {
				kept = append(kept, e)
			}
		}
		if len(kept) == 0 {
			return ID{}, false, nil
		}
		sort.Slice(kept, func(i, j int) bool { return kept[i].name < kept[j].name })
		data := encodeTree(kept)
		nid := Sum(data)
		if err := o.putTree(nid, data, kept, id); err != nil {
			return ID{}, false, err
		}
		return nid, true, nil
	}
	nid, _, err := patch(root, changes)
	if err != nil {
		return ID{}, err
	}
	if nid.IsZero() {
		// The empty snapshot: an empty root tree.
		data := encodeTree(nil)
		nid = Sum(data)
		if err := o.PutID(nid, data); err != nil {
			return ID{}, err
		}
	}
	return nid, nil
}

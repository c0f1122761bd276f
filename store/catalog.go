package store

import (
	"fmt"
	"os"
)

// What is stored where: the catalog of packs and loose objects this
// process knows, refreshed when other processes add packs.

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

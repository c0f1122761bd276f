package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// mergeMin is how many packs may pile up before small ones are merged.
const mergeMin = 8

// candidate is a pack another process does not write, locked by us for a
// rewrite.
type candidate struct {
	path string
	size int64
	f    *os.File // holds the lock
}

func (c *candidate) release() {
	if c.f != nil {
		osfile.Unlock(c.f)
		c.f.Close()
		c.f = nil
	}
}

// lockPack takes an exclusive lock on a pack nobody writes; false when
// another process holds it (or it is gone).
func lockPack(path string) (*candidate, bool) {
	f, err := osfile.Open(path)
	if err != nil {
		return nil, false
	}
	if ok, err := osfile.TryLock(f, osfile.Exclusive); !ok || err != nil {
		f.Close()
		return nil, false
	}
	fi, err := f.Stat()
	if err != nil {
		osfile.Unlock(f)
		f.Close()
		return nil, false
	}
	return &candidate{path: path, size: fi.Size(), f: f}, true
}

// mergeSmall merges the smallest packs into one when more than mergeMin
// have piled up (every capture from the command line seals a pack). Sizes
// stay roughly geometric, so each object is rewritten O(log n) times.
func (o *Objects) mergeSmall() error {
	names, err := listPacks(o.packs)
	if err != nil || len(names) <= mergeMin {
		return err
	}
	type ps struct {
		path string
		size int64
	}
	var all []ps
	for _, n := range names {
		if fi, err := os.Stat(n); err == nil {
			all = append(all, ps{n, fi.Size()})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].size < all[j].size })
	// The smallest packs, up to one at least twice their total size (so
	// that a large pack is not rewritten for a few small ones); at least
	// two of them, or a pack much smaller than all the others would keep
	// every pack from being merged.
	var total int64
	k := 0
	for k < len(all) {
		total += all[k].size
		k++
		if k >= 2 && k < len(all) && all[k].size >= 2*total {
			break
		}
	}
	if k < 2 {
		return nil
	}
	var cands []*candidate
	for _, p := range all[:k] {
		if c, ok := lockPack(p.path); ok {
			cands = append(cands, c)
		}
	}
	defer func() {
		for _, c := range cands {
			c.release()
		}
	}()
	if len(cands) < 2 {
		return nil
	}
	_, err = o.rewrite(cands, nil, nil)
	return err
}

// RepackReport says what Repack did.
type RepackReport struct {
	ObjectsRemoved int   // objects dropped (not kept)
	BytesBefore    int64 // stored bytes of the rewritten packs and loose objects
	BytesAfter     int64 // stored bytes of the pack that replaced them
	TornBytes      int64 // bytes of torn pack tails dropped
	Damaged        []ID  // damaged records left behind (also on the damaged list)
	TempsRemoved   int   // stray temporary files removed
}

// Repack rewrites the store into one pack holding the objects keep accepts
// (every copy verified; damaged ones are left out and reported), and
// removes the packs and loose objects it replaced. Packs another process is
// writing, and packs and loose objects changed within grace (a capture in
// progress elsewhere may need them), are left as they are. Stray
// temporary files older than grace are removed.
func (o *Objects) Repack(keep func(ID) bool, grace time.Duration) (*RepackReport, error) {
	return o.repack(keep, grace, false)
}

// RepackSome is Repack for automatic retention: a large pack that keep
// mostly accepts (less than a fifth of its bytes dropped) is left as it
// is, so dropping old snapshots does not rewrite the whole store each time.
func (o *Objects) RepackSome(keep func(ID) bool, grace time.Duration) (*RepackReport, error) {
	return o.repack(keep, grace, true)
}

// partialMin is the size from which RepackSome may leave a pack alone.
const partialMin = 4 << 20

func (o *Objects) repack(keep func(ID) bool, grace time.Duration, partial bool) (*RepackReport, error) {
	if err := o.Sync(); err != nil {
		return nil, err
	}
	cutoff := time.Now().Add(-grace)
	rep := &RepackReport{}
	names, err := listPacks(o.packs)
	if err != nil {
		return nil, fmt.Errorf("repack: %w", err)
	}
	var cands []*candidate
	defer func() {
		for _, c := range cands {
			c.release()
		}
	}()
	for _, n := range names {
		fi, err := os.Stat(n)
		if err != nil || fi.ModTime().After(cutoff) {
			continue
		}
		c, ok := lockPack(n)
		if !ok {
			continue
		}
		if partial && keep != nil && c.size >= partialMin && !worthRewriting(c, keep) {
			c.release()
			continue
		}
		cands = append(cands, c)
	}
	var loose []ID
	walkLoose(o.dir, func(id ID, size int64) error {
		fi, err := os.Stat(loosePath(o.dir, id))
		if err == nil && !fi.ModTime().After(cutoff) {
			loose = append(loose, id)
		}
		return nil
	})
	// Records that stay keep their delta bases (deltabases.go).
	if keep, err = o.withDeltaBases(cands, loose, keep); err != nil {
		return nil, fmt.Errorf("repack: %w", err)
	}
	r, err := o.rewrite(cands, keep, loose)
	if err != nil {
		return nil, err
	}
	*rep = *r
	rep.TempsRemoved = o.removeTemps(cutoff)
	o.dmg.keepOnly(keep)
	return rep, nil
}

// worthRewriting reports whether a fifth or more of a pack's bytes are
// records keep drops (or a torn tail).
func worthRewriting(c *candidate, keep func(ID) bool) bool {
	p, err := scanLocked(c)
	if err != nil {
		return true
	}
	dead := p.torn
	for _, e := range p.ents {
		if !keep(e.id) {
			dead += int64(e.n)
		}
	}
	return dead*5 >= c.size
}

// rewrite copies the records of cands (and the loose objects) that keep
// accepts (nil keeps all) into one new pack, seals it, then removes what
// it replaced. Records are copied as they are, after their CRC is checked;
// loose objects are verified whole first, so damage never gets a fresh
// checksum.
func (o *Objects) rewrite(cands []*candidate, keep func(ID) bool, loose []ID) (*RepackReport, error) {
	rep := &RepackReport{}
	var w *writer
	written := map[ID]bool{}
	dropped := map[ID]bool{}
	damaged := map[ID]bool{}
	add := func(id ID, kind byte, payload []byte) error {
		if written[id] {
			return nil
		}
		if keep != nil && !keep(id) {
			dropped[id] = true
			return nil
		}
		if w == nil {
			var err error
			if w, err = newWriter(o.packs); err != nil {
				return err
			}
		}
		written[id] = true
		delete(damaged, id)
		w.add(id, kind, payload)
		if w.full() {
			return w.flush()
		}
		return nil
	}
	fail := func(err error) (*RepackReport, error) {
		if w != nil {
			w.f.Close()
			os.Remove(w.path)
		}
		return nil, fmt.Errorf("repack: %w", err)
	}
	for _, c := range cands {
		rep.BytesBefore += c.size
		p, err := scanLocked(c)
		if err != nil {
			return fail(err)
		}
		if p.torn > 0 {
			rep.TornBytes += p.torn
		}
		ents := append([]entry(nil), p.ents...)
		sort.Slice(ents, func(i, j int) bool { return ents[i].off < ents[j].off })
		for _, e := range ents {
			buf := make([]byte, e.n)
			if _, err := c.f.ReadAt(buf, e.off); err != nil {
				damaged[e.id] = true
				continue
			}
			id, kind, payload, err := parseRecord(buf)
			if err != nil || id != e.id {
				damaged[e.id] = true
				continue
			}
			if err := add(id, kind, payload); err != nil {
				return fail(err)
			}
		}
		if fi, err := os.Stat(idxPath(c.path)); err == nil {
			rep.BytesBefore += fi.Size()
		}
	}
	var looseDone []ID
	for _, id := range loose {
		p := loosePath(o.dir, id)
		raw, err := osfile.ReadFile(p)
		if err != nil {
			continue
		}
		rep.BytesBefore += int64(len(raw))
		looseDone = append(looseDone, id)
		if written[id] || (keep != nil && !keep(id)) {
			if !written[id] {
				dropped[id] = true
			}
			continue
		}
		kind, payload, err := looseRecord(raw)
		if err == nil {
			_, err = o.decode(id, kind, payload)
		}
		if err != nil {
			damaged[id] = true
			continue
		}
		if err := add(id, kind, payload); err != nil {
			return fail(err)
		}
	}
	if w != nil {
		if err := w.flush(); err != nil {
			return fail(err)
		}
		if err := w.seal(); err != nil {
			return fail(err)
		}
		w.f.Close()
		rep.BytesAfter = w.off
		if fi, err := os.Stat(idxPath(w.path)); err == nil {
			rep.BytesAfter += fi.Size()
		}
	}
	// The new pack is durable: what it replaces can go. This process's
	// own opens of it are closed first: where removing an open file only
	// marks it (Windows before 10, FAT), it goes when the last open does.
	o.closePacks(cands)
	for _, c := range cands {
		osfile.Remove(idxPath(c.path))
		osfile.Remove(c.path)
	}
	shards := map[string]bool{}
	for _, id := range looseDone {
		osfile.Remove(loosePath(o.dir, id))
		shards[id.String()[:2]] = true
	}
	for sh := range shards {
		osfile.Remove(filepath.Join(o.dir, sh)) // only when empty
	}
	if len(shards) > 0 {
		osfile.SyncDir(o.dir)
	}
	osfile.SyncDir(o.packs)
	for id := range dropped {
		if !written[id] {
			rep.ObjectsRemoved++
		}
	}
	for id := range damaged {
		if !written[id] && (keep == nil || keep(id)) {
			rep.Damaged = append(rep.Damaged, id)
			o.dmg.add(id)
		}
	}
	o.mu.Lock()
	if len(dropped) > 0 {
		o.known = map[ID]struct{}{} // some of what this process wrote is gone
	}
	o.refresh()
	o.mu.Unlock()
	return rep, nil
}

// closePacks closes this process's reading opens of the candidates' packs
// and forgets them until the next listing.
func (o *Objects) closePacks(cands []*candidate) {
	gone := map[string]bool{}
	for _, c := range cands {
		gone[c.path] = true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	keep := o.all[:0]
	for _, p := range o.all {
		if gone[p.path] {
			p.close()
			continue
		}
		keep = append(keep, p)
	}
	o.all = keep
}

// scanLocked reads a locked candidate's entries (its index, else a scan).
func scanLocked(c *candidate) (*pack, error) {
	p, err := loadPack(c.path, false)
	if err != nil {
		return nil, err
	}
	p.close()
	return p, nil
}

// removeTemps removes temporary files older than cutoff: packs whose
// writer died before naming them, and the temp files of atomic writes
// (and of loose objects, in a version 1 store).
func (o *Objects) removeTemps(cutoff time.Time) int {
	n := 0
	rm := func(dir string) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), ".tmp-") {
				continue
			}
			fi, err := e.Info()
			if err != nil || fi.ModTime().After(cutoff) {
				continue
			}
			if osfile.Remove(filepath.Join(dir, e.Name())) == nil {
				n++
			}
		}
	}
	rm(o.dir)
	rm(o.packs)
	shards, _ := os.ReadDir(o.dir)
	for _, sh := range shards {
		if sh.IsDir() && isShard(sh.Name()) {
			rm(filepath.Join(o.dir, sh.Name()))
			osfile.Remove(filepath.Join(o.dir, sh.Name())) // when empty
		}
	}
	return n
}

package store

import "io"

// A delta record is only as good as its base. Repack drops the objects
// keep rejects, but some records stay in the store whatever keep says:
// those in packs it leaves as they are (written within grace, written by
// another process, or mostly kept by RepackSome) and young loose objects.
// If such a record is a delta whose base is dropped, it can no longer be
// read: fsck reports it as damaged, and a later capture that finds its ID
// stored would point a snapshot at it. So the bases of every record that
// stays, and of every record repack writes, stay too, along the whole
// chain.

// recordBase reads the head of pack record e (its ID, kind, length and,
// for a delta, the base's ID) and returns the base; zero for a record that
// is no delta or cannot be read (rewrite leaves a damaged record out).
func recordBase(r io.ReaderAt, e entry) ID {
	var base ID
	head := make([]byte, recHeader+len(base))
	if int(e.n) < len(head) {
		return base
	}
	if _, err := r.ReadAt(head, e.off); err != nil || ID(head[:32]) != e.id {
		return base
	}
	if k := head[32]; k == kindDelta || k == kindDeltaR {
		copy(base[:], head[recHeader:])
	}
	return base
}

// withDeltaBases extends keep (nil: keep everything) to the delta bases
// repack must not drop. rewritten are the packs it rewrites (their records
// go only if the result rejects them); loose are the loose objects it
// handles. Every other pack and loose object stays, and so do their bases.
// A base found among the rewritten packs' records is followed to its own
// base, and so on; one found nowhere there is outside them and stays.
func (o *Objects) withDeltaBases(rewritten []*candidate, loose []ID, keep func(ID) bool) (func(ID) bool, error) {
	if keep == nil {
		return nil, nil
	}
	// The base of each object among the rewritten records, as rewrite will
	// copy it (the first copy it meets; loose objects after the packs).
	baseOf := map[ID]ID{}
	var ids []ID
	note := func(id, base ID) {
		if _, ok := baseOf[id]; ok {
			return
		}
		baseOf[id] = base
		ids = append(ids, id)
	}
	inRewrite := map[string]bool{}
	for _, c := range rewritten {
		inRewrite[c.path] = true
		p, err := scanLocked(c)
		if err != nil {
			return nil, err
		}
		for _, e := range p.ents {
			note(e.id, recordBase(c.f, e))
		}
	}
	handled := map[ID]bool{}
	for _, id := range loose {
		handled[id] = true
		if b, _, err := looseDeltaBase(o.dir, id); err == nil {
			note(id, b)
		}
	}

	need := map[ID]bool{}
	var queue []ID
	want := func(id ID) {
		if !id.IsZero() && !need[id] {
			need[id] = true
			queue = append(queue, id)
		}
	}
	// What stays whatever keep says: the other packs' records, the other
	// loose objects.
	names, err := listPacks(o.packs)
	if err != nil {
		return nil, err
	}
	for _, path := range names {
		if inRewrite[path] {
			continue
		}
		p, err := loadPack(path, isLocked(path))
		if err != nil {
			continue // unreadable: nothing of it can be kept or lost here
		}
		if f, err := p.file(); err == nil {
			for _, e := range p.ents {
				want(recordBase(f, e))
			}
		}
		p.close()
	}
	walkLoose(o.dir, func(id ID, _ int64) error {
		if !handled[id] {
			if b, _, err := looseDeltaBase(o.dir, id); err == nil {
				want(b)
			}
		}
		return nil
	})
	// What rewrite would write, and then the chains of bases of all of it.
	for _, id := range ids {
		if keep(id) {
			want(id)
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if b, ok := baseOf[id]; ok {
			want(b)
		}
	}
	extra := map[ID]bool{}
	for id := range need {
		if !keep(id) {
			extra[id] = true
		}
	}
	if len(extra) == 0 {
		return keep, nil
	}
	return func(id ID) bool { return keep(id) || extra[id] }, nil
}

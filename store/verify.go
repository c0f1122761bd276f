package store

import (
	"fmt"
	"os"
)

// Problem is one damaged object or store file Verify found.
type Problem struct {
	Where string // a pack and offset, a loose object's file, an index
	ID    ID     // the object (zero for damage to a whole file)
	Err   string
}

// VerifyReport is what Verify found: damage (Problems) and things that are
// no damage but worth saying (Notes: a torn pack tail left by a crash,
// which is ignored).
type VerifyReport struct {
	Objects  int
	Problems []Problem
	Notes    []string
}

// Verify reads every stored object and checks it against its ID (packs:
// every record's CRC, then the content; loose objects: the content).
// Objects found damaged go on the damaged list, so the next capture that
// has their content writes them again.
func (o *Objects) Verify() (*VerifyReport, error) {
	if err := o.Sync(); err != nil {
		return nil, err
	}
	rep := &VerifyReport{}
	if o.formatErr != nil {
		rep.Problems = append(rep.Problems, Problem{Where: o.dir + "/" + formatFile, Err: o.formatErr.Error()})
	}
	names, err := listPacks(o.packs)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	seen := map[ID]bool{}
	bad := map[ID]bool{}
	var badCopies []Problem
	for _, path := range names {
		live := isLocked(path)
		if live {
			rep.Notes = append(rep.Notes, fmt.Sprintf("pack %s is being written by another process: checked as far as it is whole", baseName(path)))
		}
		p, err := loadPack(path, live)
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Where: path, Err: err.Error()})
			continue
		}
		if p.torn < 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("pack %s is empty (its writer stopped before writing anything); gc removes it", baseName(path)))
		}
		if p.torn > 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("pack %s: a torn tail of %d bytes (a write cut short by a crash) is ignored", baseName(path), p.torn))
		}
		if fi, err := os.Stat(path); err == nil && !live && fi.Size() > p.size && p.torn == 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("pack %s: %d bytes past what its index covers are ignored", baseName(path), fi.Size()-p.size))
		}
		for _, e := range p.ents {
			rec, err := p.read(e)
			if err == nil {
				_, err = o.decodeRecord(e.id, rec)
			}
			if err != nil {
				bad[e.id] = true
				badCopies = append(badCopies, Problem{Where: fmt.Sprintf("%s at offset %d", path, e.off), ID: e.id, Err: err.Error()})
				continue
			}
			seen[e.id] = true
		}
		p.close()
	}
	err = walkLoose(o.dir, func(id ID, size int64) error {
		if _, err := o.getLoose(id); err != nil {
			bad[id] = true
			badCopies = append(badCopies, Problem{Where: loosePath(o.dir, id), ID: id, Err: err.Error()})
			return nil
		}
		seen[id] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A damaged copy of an object that also has a good one (healed since)
	// is no damage: readers skip it, and gc drops it.
	for _, p := range badCopies {
		if seen[p.ID] {
			rep.Notes = append(rep.Notes, fmt.Sprintf("a damaged copy of object %s (%s) is superseded by a good copy; gc drops it", p.ID, p.Where))
			continue
		}
		rep.Problems = append(rep.Problems, p)
	}
	for id := range bad {
		if !seen[id] { // no good copy anywhere
			o.dmg.add(id)
		}
	}
	rep.Objects = len(seen)
	return rep, nil
}

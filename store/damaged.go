package store

import (
	"bufio"
	"bytes"
	"os"
	"sort"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// damagedList is the store's list of objects known to be damaged or
// missing (the file "damaged", one hex ID a line). Any process that finds
// damage adds to it; a capture that has the content writes a good copy
// and, once that copy is durable, takes the ID off.
type damagedList struct {
	path string

	mu     sync.Mutex
	loaded bool
	ids    map[ID]bool
	fixed  map[ID]bool
}

func (d *damagedList) loadLocked() {
	if d.loaded {
		return
	}
	d.loaded = true
	d.ids = readDamaged(d.path)
}

func readDamaged(path string) map[ID]bool {
	ids := map[ID]bool{}
	data, err := osfile.ReadFile(path)
	if err != nil {
		return ids
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if id, err := ParseID(string(bytes.TrimSpace(sc.Bytes()))); err == nil {
			ids[id] = true
		}
	}
	return ids
}

// has reports whether id is damaged and no good copy was written since.
func (d *damagedList) has(id ID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.loadLocked()
	return d.ids[id] && !d.fixed[id]
}

// add records id as damaged (also for other processes).
func (d *damagedList) add(id ID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.loadLocked()
	delete(d.fixed, id)
	if d.ids[id] {
		return
	}
	d.ids[id] = true
	f, err := osfile.OpenFile(d.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	f.WriteString(id.String() + "\n")
	f.Close()
}

// healed notes that a good copy of id was written (durable at the next
// seal, when flush takes it off the list).
func (d *damagedList) healed(id ID) {
	d.mu.Lock()
	if d.fixed == nil {
		d.fixed = map[ID]bool{}
	}
	d.fixed[id] = true
	d.mu.Unlock()
}

// flush takes the healed IDs off the list file.
func (d *damagedList) flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.fixed) == 0 {
		return
	}
	d.loadLocked()
	cur := readDamaged(d.path) // with other processes' additions
	for id := range d.fixed {
		delete(cur, id)
		delete(d.ids, id)
	}
	d.fixed = nil
	for id := range cur {
		d.ids[id] = true
	}
	d.writeLocked(cur)
}

func (d *damagedList) writeLocked(ids map[ID]bool) {
	if len(ids) == 0 {
		osfile.Remove(d.path)
		return
	}
	var lines []string
	for id := range ids {
		lines = append(lines, id.String()+"\n")
	}
	sort.Strings(lines)
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
	}
	writeFile(d.path, b.Bytes(), false)
}

// reload reads the list again (another process may have added to it).
func (d *damagedList) reload() []ID {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.loaded = false
	d.loadLocked()
	out := make([]ID, 0, len(d.ids))
	for id := range d.ids {
		out = append(out, id)
	}
	return out
}

// keepOnly drops from the list the IDs keep rejects (gc: objects nothing
// needs any more).
func (d *damagedList) keepOnly(keep func(ID) bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	cur := readDamaged(d.path)
	changed := false
	for id := range cur {
		if !keep(id) {
			delete(cur, id)
			changed = true
		}
	}
	d.ids = cur
	d.loaded = true
	if changed {
		d.writeLocked(cur)
	}
}

// Damaged lists the objects known to be damaged or missing, read again
// from the store: a capture writes a good copy of any of them it has.
func (o *Objects) Damaged() []ID { return o.dmg.reload() }

// MarkDamaged puts id on the list of known-damaged objects (fsck, or a
// reader that found it damaged by other means).
func (o *Objects) MarkDamaged(id ID) { o.dmg.add(id) }

// IsDamaged reports whether id is on the list of known-damaged objects
// (as last read by Damaged, or added to by this process).
func (o *Objects) IsDamaged(id ID) bool { return o.dmg.has(id) }

package journal

// Where the view's positions, records and table pairs are kept: persisted
// segments (immutable files, each covering a run of positions) and, after
// them, the entries this process read from the journal's tail since
// (memtable). Every lookup takes a bound: what lies at or past it is not
// seen, so a History of n entries answers as of n whatever was added since.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/journal/internal/segfile"
)

// segment is one persisted file of the view: positions [lo, hi).
type segment struct {
	f      *segfile.File
	name   string
	lo, hi pos
}

// newSegment wraps an open segment file of j's view; the file is closed
// once no history holds the segment any more (a merged one stays readable
// to the histories made before the merge), or by j.Close.
func newSegment(j *Journal, f *segfile.File, name string, lo, hi pos) *segment {
	s := &segment{f: f, name: name, lo: lo, hi: hi}
	j.segMu.Lock()
	if j.segOpen == nil {
		j.segOpen = map[*segfile.File]struct{}{}
	}
	j.segOpen[f] = struct{}{}
	j.segMu.Unlock()
	runtime.AddCleanup(s, func(f *segfile.File) {
		j.segMu.Lock()
		_, open := j.segOpen[f]
		delete(j.segOpen, f)
		j.segMu.Unlock()
		if open {
			f.Close()
		}
	}, f)
	return s
}

// memtable holds the positions from lo on that are not persisted yet.
type memtable struct {
	mu   sync.RWMutex
	lo   pos
	recs []record
	tabs [numTables]map[string][]pos
}

func newMemtable(lo pos) *memtable {
	m := &memtable{lo: lo}
	for i := range m.tabs {
		m.tabs[i] = map[string][]pos{}
	}
	return m
}

func (m *memtable) addPair(table int, key []byte, p pos) {
	m.mu.Lock()
	k := string(key)
	m.tabs[table][k] = append(m.tabs[table][k], p)
	m.mu.Unlock()
}

// storage is the view of one journal as this process holds it.
type storage struct {
	j  *Journal
	jf *os.File // the journal, for reading entries' lines

	mu   sync.RWMutex // guards segs and mem (replaced when the view is rebuilt)
	segs []*segment
	mem  *memtable

	cache *entryCache
	// recent remembers the ids and snapshots of the latest entries added,
	// the ones new entries name most (their parent, the turn they end, the
	// operation they complete): a lookup of those needs no table.
	recent *recentIDs
	// top is how far into the journal this storage has read.
	top int64
	// healed is set once a damaged view was rebuilt from the journal.
	healed bool
}

// memLo is the first position the memtable holds.
func (st *storage) memLo() pos {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.mem.lo
}

func (st *storage) add(r record) {
	st.mu.RLock()
	m := st.mem
	st.mu.RUnlock()
	m.mu.Lock()
	m.recs = append(m.recs, r)
	m.mu.Unlock()
}

// recentIDs maps the ids of the latest entries added to their positions,
// and holds the latest snapshots recorded; rings bound both.
type recentIDs struct {
	mu       sync.Mutex
	ids      map[EntryID]pos
	idRing   []recentID
	nextID   int
	snaps    map[Snap]int // how many ring slots hold it
	snapRing []Snap
	nextSnap int
}

type recentID struct {
	id EntryID
	p  pos
}

const recentSize = 2048

// noteID remembers that the entry with id is at p (the latest with it).
func (r *recentIDs) noteID(id EntryID, p pos) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids == nil {
		r.ids = map[EntryID]pos{}
	}
	it := recentID{id, p}
	if len(r.idRing) < recentSize {
		r.idRing = append(r.idRing, it)
	} else {
		old := r.idRing[r.nextID]
		if q, ok := r.ids[old.id]; ok && q == old.p {
			delete(r.ids, old.id)
		}
		r.idRing[r.nextID] = it
		r.nextID = (r.nextID + 1) % recentSize
	}
	r.ids[id] = p
}

// lookup is the position of the latest entry with id, when it is recent.
func (r *recentIDs) lookup(id EntryID) (pos, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.ids[id]
	return p, ok
}

// noteSnap remembers that snapshot sn was recorded.
func (r *recentIDs) noteSnap(sn Snap) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.snaps == nil {
		r.snaps = map[Snap]int{}
	}
	if len(r.snapRing) < recentSize {
		r.snapRing = append(r.snapRing, sn)
	} else {
		old := r.snapRing[r.nextSnap]
		if r.snaps[old]--; r.snaps[old] <= 0 {
			delete(r.snaps, old)
		}
		r.snapRing[r.nextSnap] = sn
		r.nextSnap = (r.nextSnap + 1) % recentSize
	}
	r.snaps[sn]++
}

// hasSnap reports whether snapshot sn was recorded recently.
func (r *recentIDs) hasSnap(sn Snap) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snaps[sn] > 0
}

// noRecord stands for a record that cannot be read.
var noRecord = record{parent: none, depth: none, jump: none, turnAt: none, markAt: none, turnJump: none, prevSame: none}

// reader is what the view is read through: a storage, which builds a
// damaged view again and tries once more, or a builder, which notes it.
type reader interface {
	rec(p pos) record
	find(table int, key []byte, before pos) []pos
	entryAt(p pos) *Entry
	recentIDs() *recentIDs
}

func (st *storage) recentIDs() *recentIDs { return st.recent }

// rec is the record at position p.
func (st *storage) rec(p pos) record {
	for try := 0; ; try++ {
		r, err := st.recOnce(p)
		if err == nil {
			return r
		}
		if try > 0 || !st.heal(err) {
			return noRecord
		}
	}
}

func (st *storage) recOnce(p pos) (record, error) {
	st.mu.RLock()
	m, segs := st.mem, st.segs
	st.mu.RUnlock()
	if p >= m.lo {
		m.mu.RLock()
		defer m.mu.RUnlock()
		if i := int(p - m.lo); i < len(m.recs) {
			return m.recs[i], nil
		}
		return record{}, fmt.Errorf("view: no position %d", p)
	}
	i := sort.Search(len(segs), func(i int) bool { return segs[i].hi > p })
	if i == len(segs) || segs[i].lo > p {
		return record{}, fmt.Errorf("view: no segment holds position %d: %w", p, segfile.ErrDamaged)
	}
	b, err := segs[i].f.Record("rec", int(p-segs[i].lo))
	if err != nil {
		return record{}, err
	}
	return decodeRecord(b), nil
}

// find lists, in order, the positions before `before` that table holds
// under key.
func (st *storage) find(table int, key []byte, before pos) []pos {
	return st.findRange(table, key, key, before)
}

// findRange is find for the keys in [lo, hi] (as segfile.File.Find
// compares them: shorter bounds as prefixes).
func (st *storage) findRange(table int, lo, hi []byte, before pos) []pos {
	for try := 0; ; try++ {
		out, err := st.findOnce(table, lo, hi, before)
		if err == nil {
			return out
		}
		if try > 0 || !st.heal(err) {
			return nil
		}
	}
}

func (st *storage) findOnce(table int, lo, hi []byte, before pos) ([]pos, error) {
	st.mu.RLock()
	m, segs := st.mem, st.segs
	st.mu.RUnlock()
	var out []pos
	name, kw := tableInfo[table].name, tableInfo[table].kw
	for _, sg := range segs {
		if sg.lo >= before {
			break
		}
		err := sg.f.Find(name, lo, hi, func(rec []byte) bool {
			if p := pos(be32(rec[kw:])); p < before {
				out = append(out, p)
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	// One key's positions come in order from each segment in turn; a
	// range of keys interleaves them.
	exact := bytes.Equal(lo, hi) && len(lo) == kw
	if before > m.lo {
		m.mu.RLock()
		tab := m.tabs[table]
		if exact {
			for _, p := range tab[string(lo)] {
				if p < before {
					out = append(out, p)
				}
			}
		} else {
			lk, hk := string(padKey(lo, kw, 0)), string(padKey(hi, kw, 0xff))
			for k, ps := range tab {
				if k >= lk && k <= hk {
					for _, p := range ps {
						if p < before {
							out = append(out, p)
						}
					}
				}
			}
		}
		m.mu.RUnlock()
	}
	if !exact {
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	}
	return out, nil
}

func padKey(b []byte, n int, fill byte) []byte {
	out := make([]byte, n)
	copy(out, b)
	for i := min(len(b), n); i < n; i++ {
		out[i] = fill
	}
	return out[:n]
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// lookupID is the position of the last entry with id before `before`, or
// none.
func lookupID(r reader, id EntryID, before pos) pos {
	if p, ok := r.recentIDs().lookup(id); ok && p < before {
		return p
	}
	cands := r.find(tID, hashKey(string(id)), before)
	for i := len(cands) - 1; i >= 0; i-- {
		if e := r.entryAt(cands[i]); e != nil && e.ID == id {
			return cands[i]
		}
	}
	return none
}

func (st *storage) lookupID(id EntryID, before pos) pos { return lookupID(st, id, before) }

// idAt is the id of the entry at p ("" when it cannot be read).
func idAt(r reader, p pos) EntryID {
	if e := r.entryAt(p); e != nil {
		return e.ID
	}
	return ""
}

func (st *storage) idAt(p pos) EntryID { return idAt(st, p) }

// ancestor is the ancestor of x at depth d (x itself when at d), or none.
func ancestor(v reader, x pos, d int32) pos {
	if x == none || d < 0 {
		return none
	}
	r := v.rec(x)
	if r.depth < d {
		return none
	}
	for r.depth > d {
		if j := v.rec(r.jump); r.jump != x && j.depth >= d {
			x, r = r.jump, j
		} else {
			x, r = r.parent, v.rec(r.parent)
		}
		if x == none {
			return none
		}
	}
	return x
}

// isAncestor reports whether a is b or above it in the tree.
func isAncestor(v reader, a, b pos) bool {
	if a == none || b == none {
		return false
	}
	ra := v.rec(a)
	if ra.flags&fTree == 0 {
		return false
	}
	return ancestor(v, b, ra.depth) == a
}

func (st *storage) isAncestor(a, b pos) bool { return isAncestor(st, a, b) }

// entryAt reads the entry at position p from the journal (through the
// cache). It is nil when its line cannot be read as it was when the view
// took it: the view is then rebuilt from the journal.
func (st *storage) entryAt(p pos) *Entry {
	for try := 0; ; try++ {
		e, err := st.entryOnce(p)
		if err == nil {
			return e
		}
		if try > 0 || !st.heal(err) {
			return nil
		}
	}
}

func (st *storage) entryOnce(p pos) (*Entry, error) {
	if p < 0 {
		return nil, nil
	}
	if e := st.cache.get(p); e != nil {
		return e, nil
	}
	r, err := st.recOnce(p)
	if err != nil {
		return nil, err
	}
	e, err := st.readLine(r)
	if err != nil {
		return nil, err
	}
	if r.flags&fStandIn != 0 {
		// A lost turn start, stood in for from its end.
		e = &Entry{ID: e.Start, Kind: KindTurnStart, Turn: e.Turn, Session: e.Session, Damaged: true}
		if r.parent != none {
			pe, err := st.entryOnce(r.parent)
			if err != nil {
				return nil, err
			}
			if pe != nil {
				e.Parent = pe.ID
			}
		}
	}
	e.pos = p + 1
	st.cache.put(p, e)
	return e, nil
}

func (st *storage) readLine(r record) (*Entry, error) {
	if r.length < 10 {
		return nil, fmt.Errorf("view: a record with no line: %w", segfile.ErrDamaged)
	}
	buf := make([]byte, r.length)
	if _, err := st.jf.ReadAt(buf, r.off); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("journal shorter than its view: %w", segfile.ErrDamaged)
		}
		return nil, fmt.Errorf("read journal: %w", err)
	}
	if buf[len(buf)-1] != '\n' {
		return nil, fmt.Errorf("journal line at %d: not where the view has it: %w", r.off, segfile.ErrDamaged)
	}
	e, err := decodeLine(buf[:len(buf)-1])
	if err != nil {
		return nil, fmt.Errorf("journal line at %d: %v: %w", r.off, err, segfile.ErrDamaged)
	}
	return e, nil
}

// entryCache keeps the entries read most recently.
type entryCache struct {
	mu    sync.Mutex
	items map[pos]*Entry
	order []pos // a ring of the positions in items, oldest at next
	next  int
}

const entryCacheSize = 4096

func newEntryCache() *entryCache { return &entryCache{items: map[pos]*Entry{}} }

func (c *entryCache) get(p pos) *Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.items[p]
}

func (c *entryCache) put(p pos, e *Entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[p]; ok {
		c.items[p] = e
		return
	}
	if len(c.order) < entryCacheSize {
		c.order = append(c.order, p)
	} else {
		delete(c.items, c.order[c.next])
		c.order[c.next] = p
		c.next = (c.next + 1) % entryCacheSize
	}
	c.items[p] = e
}

func (c *entryCache) clear() {
	c.mu.Lock()
	c.items, c.order, c.next = map[pos]*Entry{}, nil, 0
	c.mu.Unlock()
}

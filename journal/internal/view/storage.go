package view

// Where the view's positions, records and table pairs are kept: persisted
// segments (immutable files, each covering a run of positions) and, after
// them, the entries this process read from the journal's tail since
// (memtable). Every lookup takes a bound: what lies at or past it is not
// seen, so a Reader of n entries answers as of n whatever was added since.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/journal/internal/segfile"
)

// segment is one persisted file of the view: positions [lo, hi).
type segment struct {
	f      *segfile.File
	name   string
	lo, hi Pos
}

// newSegment wraps an open segment file of the view; the file is closed
// once no reader holds the segment any more (a merged one stays readable
// to the readers made before the merge), or by Store.Close.
func newSegment(o *openFiles, f *segfile.File, name string, lo, hi Pos) *segment {
	s := &segment{f: f, name: name, lo: lo, hi: hi}
	o.mu.Lock()
	if o.files == nil {
		o.files = map[*segfile.File]struct{}{}
	}
	o.files[f] = struct{}{}
	o.mu.Unlock()
	runtime.AddCleanup(s, func(f *segfile.File) {
		o.mu.Lock()
		_, open := o.files[f]
		delete(o.files, f)
		o.mu.Unlock()
		if open {
			f.Close()
		}
	}, f)
	return s
}

// openFiles are the view's segment files a process holds open.
type openFiles struct {
	mu    sync.Mutex
	files map[*segfile.File]struct{}
}

// closeAll closes them all (Store.Close).
func (o *openFiles) closeAll() {
	o.mu.Lock()
	for f := range o.files {
		f.Close()
	}
	o.files = nil
	o.mu.Unlock()
}

// memtable holds the positions from lo on that are not persisted yet.
type memtable struct {
	mu   sync.RWMutex
	lo   Pos
	recs []Record
	tabs [NumTables]map[string][]Pos
}

func newMemtable(lo Pos) *memtable {
	m := &memtable{lo: lo}
	for i := range m.tabs {
		m.tabs[i] = map[string][]Pos{}
	}
	return m
}

func (m *memtable) addPair(table Table, key []byte, p Pos) {
	m.mu.Lock()
	k := string(key)
	m.tabs[table][k] = append(m.tabs[table][k], p)
	m.mu.Unlock()
}

// storage is the view of one journal as this process holds it.
type storage[E any] struct {
	v  *Store[E]
	jf *os.File // the journal, for reading entries' lines

	mu   sync.RWMutex // guards segs and mem (replaced when the view is rebuilt)
	segs []*segment
	mem  *memtable

	cache *entryCache[E]
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
func (st *storage[E]) memLo() Pos {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.mem.lo
}

func (st *storage[E]) add(r Record) {
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
	ids      map[string]Pos
	idRing   []recentID
	nextID   int
	snaps    map[Snap]int // how many ring slots hold it
	snapRing []Snap
	nextSnap int
}

type recentID struct {
	id string
	p  Pos
}

const recentSize = 2048

// noteID remembers that the entry with id is at p (the latest with it).
func (r *recentIDs) noteID(id string, p Pos) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids == nil {
		r.ids = map[string]Pos{}
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
func (r *recentIDs) lookup(id string) (Pos, bool) {
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

// noRecord stands for a Record that cannot be read.
var noRecord = Record{Parent: None, Depth: None, Jump: None, TurnAt: None, MarkAt: None, TurnJump: None, PrevSame: None}

// reader is what the view is read through: a storage, which builds a
// damaged view again and tries once more, or a builder, which notes it.
type reader[E any] interface {
	records
	find(table Table, key []byte, before Pos) []Pos
	entryAt(p Pos) (E, bool)
	source() *storage[E]
}

// records is what the tree is walked through.
type records interface{ rec(p Pos) Record }

func (st *storage[E]) source() *storage[E] { return st }

// rec is the Record at position p.
func (st *storage[E]) rec(p Pos) Record {
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

func (st *storage[E]) recOnce(p Pos) (Record, error) {
	st.mu.RLock()
	m, segs := st.mem, st.segs
	st.mu.RUnlock()
	if p >= m.lo {
		m.mu.RLock()
		defer m.mu.RUnlock()
		if i := int(p - m.lo); i < len(m.recs) {
			return m.recs[i], nil
		}
		return Record{}, fmt.Errorf("view: no position %d", p)
	}
	i := sort.Search(len(segs), func(i int) bool { return segs[i].hi > p })
	if i == len(segs) || segs[i].lo > p {
		return Record{}, fmt.Errorf("view: no segment holds position %d: %w", p, segfile.ErrDamaged)
	}
	b, err := segs[i].f.Record("rec", int(p-segs[i].lo))
	if err != nil {
		return Record{}, err
	}
	return DecodeRecord(b), nil
}

// find lists, in order, the positions before `before` that table holds
// under key.
func (st *storage[E]) find(table Table, key []byte, before Pos) []Pos {
	return st.findRange(table, key, key, before)
}

// findRange is find for the keys in [lo, hi] (as segfile.File.Find
// compares them: shorter bounds as prefixes).
func (st *storage[E]) findRange(table Table, lo, hi []byte, before Pos) []Pos {
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

func (st *storage[E]) findOnce(table Table, lo, hi []byte, before Pos) ([]Pos, error) {
	st.mu.RLock()
	m, segs := st.mem, st.segs
	st.mu.RUnlock()
	var out []Pos
	name, kw := tableInfo[table].name, tableInfo[table].kw
	for _, sg := range segs {
		if sg.lo >= before {
			break
		}
		err := sg.f.Find(name, lo, hi, func(rec []byte) bool {
			if p := Pos(be32(rec[kw:])); p < before {
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

// scan calls fn with the positions before `before` that table holds
// under key, in journal order (newest first with back), until fn returns
// false: a caller that stops early reads only the blocks it went through.
// Should a view file turn out damaged midway, the view is built again and
// the scan goes on past the positions fn was given.
func (st *storage[E]) scan(table Table, key []byte, before Pos, back bool, fn func(Pos) bool) {
	given := None
	for try := 0; ; try++ {
		err := st.scanOnce(table, key, before, back, func(p Pos) bool {
			if given != None && (back && p >= given || !back && p <= given) {
				return true
			}
			given = p
			return fn(p)
		})
		if err == nil || try > 0 || !st.heal(err) {
			return
		}
	}
}

func (st *storage[E]) scanOnce(table Table, key []byte, before Pos, back bool, fn func(Pos) bool) error {
	st.mu.RLock()
	m, segs := st.mem, st.segs
	st.mu.RUnlock()
	name, kw := tableInfo[table].name, tableInfo[table].kw
	var mem []Pos
	if before > m.lo {
		m.mu.RLock()
		mem = slices.Clone(m.tabs[table][string(key)])
		m.mu.RUnlock()
	}
	stopped := false
	each := func(rec []byte) bool {
		if p := Pos(be32(rec[kw:])); p < before && !fn(p) {
			stopped = true
			return false
		}
		return true
	}
	if !back {
		for _, sg := range segs {
			if sg.lo >= before {
				break
			}
			if err := sg.f.Find(name, key, key, each); err != nil || stopped {
				return err
			}
		}
		for _, p := range mem {
			if p < before && !fn(p) {
				return nil
			}
		}
		return nil
	}
	for i := len(mem) - 1; i >= 0; i-- {
		if mem[i] < before && !fn(mem[i]) {
			return nil
		}
	}
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i].lo >= before {
			continue
		}
		if err := segs[i].f.FindBack(name, key, key, each); err != nil || stopped {
			return err
		}
	}
	return nil
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
// None.
func lookupID[E any](r reader[E], id string, before Pos) Pos {
	st := r.source()
	if p, ok := st.recent.lookup(id); ok && p < before {
		return p
	}
	cands := r.find(ByID, Hash(id), before)
	for i := len(cands) - 1; i >= 0; i-- {
		if e, ok := r.entryAt(cands[i]); ok && st.v.schema.ID(e) == id {
			return cands[i]
		}
	}
	return None
}

// idAt is the id of the entry at p ("" when it cannot be read).
func idAt[E any](r reader[E], p Pos) string {
	if e, ok := r.entryAt(p); ok {
		return r.source().v.schema.ID(e)
	}
	return ""
}

// ancestor is the ancestor of x at depth d (x itself when at d), or None.
func ancestor(v records, x Pos, d int32) Pos {
	if x == None || d < 0 {
		return None
	}
	r := v.rec(x)
	if r.Depth < d {
		return None
	}
	for r.Depth > d {
		if j := v.rec(r.Jump); r.Jump != x && j.Depth >= d {
			x, r = r.Jump, j
		} else {
			x, r = r.Parent, v.rec(r.Parent)
		}
		if x == None {
			return None
		}
	}
	return x
}

// isAncestor reports whether a is b or above it in the tree.
func isAncestor(v records, a, b Pos) bool {
	if a == None || b == None {
		return false
	}
	ra := v.rec(a)
	if ra.Flags&FlagTree == 0 {
		return false
	}
	return ancestor(v, b, ra.Depth) == a
}

// entryAt reads the entry at position p from the journal (through the
// cache). It is not there (false) when its line cannot be read as it was
// when the view took it: the view is then rebuilt from the journal.
func (st *storage[E]) entryAt(p Pos) (E, bool) {
	for try := 0; ; try++ {
		e, ok, err := st.entryOnce(p)
		if err == nil {
			return e, ok
		}
		if try > 0 || !st.heal(err) {
			var zero E
			return zero, false
		}
	}
}

func (st *storage[E]) entryOnce(p Pos) (e E, ok bool, err error) {
	if p < 0 {
		return e, false, nil
	}
	if e, ok := st.cache.get(p); ok {
		return e, true, nil
	}
	r, err := st.recOnce(p)
	if err != nil {
		return e, false, err
	}
	if e, err = st.readLine(r); err != nil {
		return e, false, err
	}
	if r.Flags&FlagStandIn != 0 {
		// A lost turn start, stood in for from its end.
		parent := ""
		if r.Parent != None {
			pe, ok, err := st.entryOnce(r.Parent)
			if err != nil {
				return e, false, err
			}
			if ok {
				parent = st.v.schema.ID(pe)
			}
		}
		e = st.v.schema.StandIn(e, parent)
	}
	st.v.schema.Placed(e, p)
	st.cache.put(p, e)
	return e, true, nil
}

func (st *storage[E]) readLine(r Record) (e E, err error) {
	if r.Length < 10 {
		return e, fmt.Errorf("view: a record with no line: %w", segfile.ErrDamaged)
	}
	buf := make([]byte, r.Length)
	if _, err := st.jf.ReadAt(buf, r.Off); err != nil {
		if errors.Is(err, io.EOF) {
			return e, fmt.Errorf("journal shorter than its view: %w", segfile.ErrDamaged)
		}
		return e, fmt.Errorf("read journal: %w", err)
	}
	if buf[len(buf)-1] != '\n' {
		return e, fmt.Errorf("journal line at %d: not where the view has it: %w", r.Off, segfile.ErrDamaged)
	}
	e, err = st.v.schema.Decode(buf[:len(buf)-1])
	if err != nil {
		return e, fmt.Errorf("journal line at %d: %v: %w", r.Off, err, segfile.ErrDamaged)
	}
	return e, nil
}

// entryCache keeps the entries read most recently.
type entryCache[E any] struct {
	mu    sync.Mutex
	items map[Pos]E
	order []Pos // a ring of the positions in items, oldest at next
	next  int
}

const entryCacheSize = 4096

func newEntryCache[E any]() *entryCache[E] { return &entryCache[E]{items: map[Pos]E{}} }

func (c *entryCache[E]) get(p Pos) (E, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[p]
	return e, ok
}

func (c *entryCache[E]) put(p Pos, e E) {
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

func (c *entryCache[E]) clear() {
	c.mu.Lock()
	c.items, c.order, c.next = map[Pos]E{}, nil, 0
	c.mu.Unlock()
}

package journal

import (
	"sort"
)

// History is a read-only view of a journal: the entry tree, the active
// branch (root entry to current leaf) and the turns on it. It is safe for
// concurrent use.
type History struct {
	Entries []*Entry // in journal order
	Branch  []*Entry // the active branch, root first

	ix *index // shared with the histories it was extended from or to
	n  int32  // the entries of ix this history holds
	// standIns and onBranch are set only when the journal refers to
	// entries not written before them (bridgeBranch): the turn starts
	// lost to damaged lines, stood in for, and the branch's entries.
	standIns map[string]*Entry
	onBranch map[string]bool

	nextTurn  int               // the number the next turn on the branch gets
	lastStart map[string]*Entry // session → its latest turn start on the branch
}

// NewHistory builds the view of ents (journal order).
func NewHistory(ents []*Entry) *History {
	ix := newIndex()
	ix.add(ents)
	return ix.view(int32(len(ents)), nil)
}

// Extend is the history of h's entries followed by more (journal order):
// built from h's work, so that it costs what the new entries cost (a
// history read again after an append, or With). h itself is not changed.
func (h *History) Extend(more []*Entry) *History {
	if len(more) == 0 {
		return h
	}
	ix := h.ix
	ix.mu.Lock()
	if int(h.n) < len(ix.ents) {
		// Another history was extended from h: reuse its entries when
		// they are these (the same ids: an entry With added, then read
		// from the journal), else build anew.
		same := int(h.n)+len(more) <= len(ix.ents)
		for i := 0; same && i < len(more); i++ {
			same = ix.ents[int(h.n)+i].ID == more[i].ID
		}
		ix.mu.Unlock()
		if !same {
			ents := make([]*Entry, 0, len(h.Entries)+len(more))
			return NewHistory(append(append(ents, h.Entries...), more...))
		}
		ix.mu.RLock()
		defer ix.mu.RUnlock()
		return ix.viewLocked(h.n+int32(len(more)), h, false)
	}
	defer ix.mu.Unlock()
	ix.add(more)
	return ix.viewLocked(int32(len(ix.ents)), h, true)
}

// With is the history with e appended: the view after an entry was just
// written under the lock, without reading the journal again.
func (h *History) With(e *Entry) *History { return h.Extend([]*Entry{e}) }

// view is the history of the first n entries of ix; prev, when not nil,
// is a history of fewer of them whose branch may be reused.
func (ix *index) view(n int32, prev *History) *History {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.viewLocked(n, prev, true)
}

// viewLocked is view with ix.mu held (for writing when own: then the
// branch may be appended to in place).
func (ix *index) viewLocked(n int32, prev *History, own bool) *History {
	h := &History{Entries: ix.ents[:n:n], ix: ix, n: n}
	if ix.irregular >= 0 && ix.irregular < n {
		h.bridgeBranch()
		h.summarize(nil)
		return h
	}
	leaf := lastBefore(ix.trees, n)
	if leaf < 0 {
		h.summarize(nil)
		return h
	}
	// Walk up from the leaf to the first entry on prev's branch (every
	// entry's parent was written before it), then take prev's branch up
	// to there.
	var up []*Entry
	keep := 0
	for p := leaf; ; {
		e := ix.ents[p]
		d := ix.depth[p]
		if prev != nil && prev.onBranch == nil && int(d) < len(prev.Branch) && prev.Branch[d] == e {
			keep = int(d) + 1
			break
		}
		up = append(up, e)
		if e.Parent == "" {
			break
		}
		p, _ = ix.at(e.Parent, p)
	}
	var b []*Entry
	switch {
	case own && keep > 0 && keep == len(prev.Branch) && keep == ix.branchLen && &prev.Branch[0] == &ix.branch[0]:
		b = ix.branch[:keep] // prev's branch is the buffer's: append to it
	case own:
		b = make([]*Entry, keep, 2*(keep+len(up))+16)
	default:
		b = make([]*Entry, keep, keep+len(up))
	}
	if keep > 0 && &b[0] != &prev.Branch[0] {
		copy(b, prev.Branch[:keep])
	}
	for i := len(up) - 1; i >= 0; i-- {
		b = append(b, up[i])
	}
	if own {
		ix.branch, ix.branchLen = b, len(b)
	}
	h.Branch = b[:len(b):len(b)]
	if prev != nil && keep > 0 && keep == len(prev.Branch) {
		h.summarize(prev)
	} else {
		h.summarize(nil)
	}
	return h
}

// summarize notes the branch's turn numbers and each session's latest
// turn start; prev, when not nil, is a history whose branch h's begins
// with (only the rest is looked at).
func (h *History) summarize(prev *History) {
	from := 0
	h.nextTurn, h.lastStart = 1, map[string]*Entry{}
	if prev != nil {
		from, h.nextTurn = len(prev.Branch), prev.nextTurn
		for k, v := range prev.lastStart {
			h.lastStart[k] = v
		}
	}
	for _, e := range h.Branch[from:] {
		if e.Kind != KindTurnStart {
			continue
		}
		if e.Turn >= h.nextTurn {
			h.nextTurn = e.Turn + 1
		}
		h.lastStart[e.Session] = e
	}
}

// bridgeBranch walks parent links up from the leaf to the root entry, for
// a journal whose entries refer to ones not written before them (ix.mu
// held). A parent lost to a damaged journal line does not end the branch:
// every writer appends an entry right after its parent (the leaf it read
// under the lock), so the walk goes on from the intact entry written just
// before the child. A turn whose start line is damaged stays on the branch
// through a stand-in start (Damaged, no snapshot) made from its end. A
// cycle (only a forged journal has one) ends the branch.
func (h *History) bridgeBranch() {
	ix := h.ix
	h.onBranch = map[string]bool{}
	h.standIns = map[string]*Entry{}
	var tree []*Entry // the conversation tree's entries, in journal order
	for _, p := range ix.trees {
		if p >= h.n {
			break
		}
		tree = append(tree, ix.ents[p])
	}
	var leaf *Entry
	if len(tree) > 0 {
		leaf = tree[len(tree)-1]
	}
	pos := make(map[*Entry]int, len(tree))
	for i, e := range tree {
		pos[e] = i
	}
	// before is the latest tree entry written before e.
	before := func(e *Entry) *Entry {
		if i := pos[e]; i > 0 {
			return tree[i-1]
		}
		return nil
	}
	standIns := map[string]*Entry{}
	for _, e := range tree {
		if e.Kind == KindTurnEnd && e.Start != "" && h.entryLocked(e.Start) == nil && standIns[e.Start] == nil {
			standIns[e.Start] = &Entry{ID: e.Start, Kind: KindTurnStart, Turn: e.Turn, Session: e.Session, Damaged: true}
		}
	}
	add := func(e *Entry) {
		h.onBranch[e.ID] = true
		h.Branch = append(h.Branch, e)
	}
	for e := leaf; e != nil && !h.onBranch[e.ID]; {
		add(e)
		if e.Parent == "" {
			break
		}
		next := h.entryLocked(e.Parent)
		if next == nil {
			if s := standIns[e.Parent]; s != nil && !h.onBranch[s.ID] {
				add(s)
			}
			next = before(e)
		}
		e = next
	}
	for _, s := range standIns {
		h.standIns[s.ID] = s
		if h.onBranch[s.ID] {
			// The stand-in's parent is where the walk went on after it.
			for i, b := range h.Branch {
				if b == s && i+1 < len(h.Branch) {
					s.Parent = h.Branch[i+1].ID
				}
			}
		}
	}
	for i, j := 0, len(h.Branch)-1; i < j; i, j = i+1, j-1 {
		h.Branch[i], h.Branch[j] = h.Branch[j], h.Branch[i]
	}
}

// Leaf is the current leaf ("" when the journal is empty).
func (h *History) Leaf() string {
	if len(h.Branch) == 0 {
		return ""
	}
	return h.Branch[len(h.Branch)-1].ID
}

// Entry returns the entry with id, or nil.
func (h *History) Entry(id string) *Entry {
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	return h.entryLocked(id)
}

// entryLocked is Entry with h.ix.mu held.
func (h *History) entryLocked(id string) *Entry {
	if s := h.standIns[id]; s != nil {
		return s
	}
	if p, ok := h.ix.at(id, h.n); ok {
		return h.ix.ents[p]
	}
	return nil
}

// OnBranch reports whether entry id is on the active branch.
func (h *History) OnBranch(id string) bool {
	if h.onBranch != nil {
		return h.onBranch[id]
	}
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	p, ok := h.ix.at(id, h.n)
	if !ok {
		return false
	}
	d := h.ix.depth[p]
	return d >= 0 && int(d) < len(h.Branch) && h.Branch[d] == h.ix.ents[p]
}

// Gone reports whether snapshot s was dropped by gc.
func (h *History) Gone(s Snap) bool {
	if !s.Set {
		return false
	}
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	p, ok := h.ix.gone[s.ID]
	return ok && p < h.n
}

// GCCount is the number of gc entries, so caches can notice a gc.
func (h *History) GCCount() int {
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	return sort.Search(len(h.ix.gcs), func(i int) bool { return h.ix.gcs[i] >= h.n })
}

// endOf is the end entry of turn start id (the last one), or nil.
func (h *History) endOf(id string) *Entry {
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	if p := lastBefore(h.ix.ends[id], h.n); p >= 0 {
		return h.ix.ents[p]
	}
	return nil
}

// undos are the undo entries of operation id, in journal order.
func (h *History) undos(id string) []*Entry {
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	var out []*Entry
	for _, p := range h.ix.undos[id] {
		if p < h.n {
			out = append(out, h.ix.ents[p])
		}
	}
	return out
}

// first is the entry at position p of m[k] when it is one of h's.
func first[K comparable](h *History, m map[K]int32, k K) *Entry {
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	if p, ok := m[k]; ok && p < h.n {
		return h.ix.ents[p]
	}
	return nil
}

// position is where entry id is in the journal (0 when it is not).
func (h *History) position(id string) int32 {
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	p, _ := h.ix.at(id, h.n)
	return p
}

// Since counts the active-branch entries after point (the ones a
// conversation rewind to point abandons).
func (h *History) Since(point string) int {
	if point == "" {
		return len(h.Branch)
	}
	for i, e := range h.Branch {
		if e.ID == point {
			return len(h.Branch) - 1 - i
		}
	}
	return 0
}

// SnapshotCount counts the distinct snapshots the journal holds (not gone).
func (h *History) SnapshotCount() int {
	set := map[Snap]bool{}
	for _, e := range h.Entries {
		for _, sn := range []Snap{e.Snapshot, e.UndoSnapshot} {
			if sn.Set && !h.Gone(sn) {
				set[sn] = true
			}
		}
	}
	return len(set)
}

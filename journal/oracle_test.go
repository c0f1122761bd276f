package journal

// The in-memory History this package had before the view: every entry read
// and indexed in memory. Kept here, unchanged but for its names, as the
// reference the view's answers are checked against (view_test.go).

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/store"
)

// oHistory is a read-only view of a journal: the entry tree, the active
// branch (root entry to current leaf) and the turns on it. It is safe for
// concurrent use.
type oHistory struct {
	Entries []*Entry // in journal order
	Branch  []*Entry // the active branch, root oFirst

	ix *oIndex // shared with the histories it was extended from or to
	n  int32   // the entries of ix this history holds
	// standIns and onBranch are set only when the journal refers to
	// entries not written before them (bridgeBranch): the turn starts
	// lost to damaged lines, stood in for, and the branch's entries.
	standIns map[EntryID]*Entry
	onBranch map[EntryID]bool

	nextTurn  int               // the number the next turn on the branch gets
	lastStart map[string]*Entry // session → its latest turn start on the branch
}

// oNewHistory builds the view of ents (journal order).
func oNewHistory(ents []*Entry) *oHistory {
	ix := oNewIndex()
	ix.add(ents)
	return ix.view(int32(len(ents)), nil)
}

// Extend is the history of h's entries followed by more (journal order):
// built from h's work, so that it costs what the new entries cost (a
// history read again after an append, or With). h itself is not changed.
func (h *oHistory) Extend(more []*Entry) *oHistory {
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
			return oNewHistory(append(append(ents, h.Entries...), more...))
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
func (h *oHistory) With(e *Entry) *oHistory { return h.Extend([]*Entry{e}) }

// view is the history of the oFirst n entries of ix; prev, when not nil,
// is a history of fewer of them whose branch may be reused.
func (ix *oIndex) view(n int32, prev *oHistory) *oHistory {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.viewLocked(n, prev, true)
}

// viewLocked is view with ix.mu held (for writing when own: then the
// branch may be appended to in place).
func (ix *oIndex) viewLocked(n int32, prev *oHistory, own bool) *oHistory {
	h := &oHistory{Entries: ix.ents[:n:n], ix: ix, n: n}
	if ix.irregular >= 0 && ix.irregular < n {
		h.bridgeBranch()
		h.summarize(nil)
		return h
	}
	leaf := oLastBefore(ix.trees, n)
	if leaf < 0 {
		h.summarize(nil)
		return h
	}
	// Walk up from the leaf to the oFirst entry on prev's branch (every
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
func (h *oHistory) summarize(prev *oHistory) {
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
func (h *oHistory) bridgeBranch() {
	ix := h.ix
	h.onBranch = map[EntryID]bool{}
	h.standIns = map[EntryID]*Entry{}
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
	standIns := map[EntryID]*Entry{}
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
func (h *oHistory) Leaf() EntryID {
	if len(h.Branch) == 0 {
		return ""
	}
	return h.Branch[len(h.Branch)-1].ID
}

// Entry returns the entry with id, or nil.
func (h *oHistory) Entry(id EntryID) *Entry {
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	return h.entryLocked(id)
}

// entryLocked is Entry with h.ix.mu held.
func (h *oHistory) entryLocked(id EntryID) *Entry {
	if s := h.standIns[id]; s != nil {
		return s
	}
	if p, ok := h.ix.at(id, h.n); ok {
		return h.ix.ents[p]
	}
	return nil
}

// OnBranch reports whether entry id is on the active branch.
func (h *oHistory) OnBranch(id EntryID) bool {
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
func (h *oHistory) Gone(s Snap) bool {
	if !s.Set {
		return false
	}
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	p, ok := h.ix.gone[s.ID]
	return ok && p < h.n
}

// GCCount is the number of gc entries, so caches can notice a gc.
func (h *oHistory) GCCount() int {
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	return sort.Search(len(h.ix.gcs), func(i int) bool { return h.ix.gcs[i] >= h.n })
}

// endOf is the end entry of turn start id (the last one), or nil.
func (h *oHistory) endOf(id EntryID) *Entry {
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	if p := oLastBefore(h.ix.ends[id], h.n); p >= 0 {
		return h.ix.ents[p]
	}
	return nil
}

// undos are the undo entries of operation id, in journal order.
func (h *oHistory) undos(id EntryID) []*Entry {
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

// oFirst is the entry at position p of m[k] when it is one of h's.
func oFirst[K comparable](h *oHistory, m map[K]int32, k K) *Entry {
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	if p, ok := m[k]; ok && p < h.n {
		return h.ix.ents[p]
	}
	return nil
}

// position is where entry id is in the journal (0 when it is not).
func (h *oHistory) position(id EntryID) int32 {
	h.ix.mu.RLock()
	defer h.ix.mu.RUnlock()
	p, _ := h.ix.at(id, h.n)
	return p
}

// Since counts the active-branch entries after point (the ones a
// conversation rewind to point abandons).
func (h *oHistory) Since(point EntryID) int {
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
func (h *oHistory) SnapshotCount() int {
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

// oIndex is what a oHistory looks entries up in, for a journal read in
// order: built once and extended as entries are appended, so that a
// history of a long journal costs what the new entries cost, not the whole
// journal again. Several Histories share one oIndex: each sees the oFirst n
// of its entries, and every lookup leaves out what lies past n. Entries are
// only added, under mu.
type oIndex struct {
	mu   sync.RWMutex
	ents []*Entry

	oFirst map[EntryID]int32   // entry id → its oFirst position
	dups   map[EntryID][]int32 // entry id → every position, for an id seen more than once
	ends   map[EntryID][]int32 // turnStart id → positions of its turnEnds
	undos  map[EntryID][]int32 // operation id → positions of its undos
	done   map[EntryID]int32   // operation id → its oFirst done entry
	keys   map[string]int32    // idempotency key → the oFirst entry (not a done entry) with it
	gone   map[store.ID]int32  // snapshot → the oFirst gc entry that dropped it
	gcs    []int32             // positions of gc entries
	ops    []int32             // positions of operations recorded pending (before they changed files)
	trees  []int32             // positions of the conversation tree's entries
	// depth is, per position, how many parents an entry of the tree has
	// (0 for a root entry); -1 for entries outside the tree.
	depth []int32
	// branch holds the branch of the latest history made under the write
	// lock (branchLen entries); the next one, when it only adds to it,
	// appends in place instead of copying it.
	branch    []*Entry
	branchLen int
	// irregular is the oFirst position from which the entries refer to
	// ones not written before them (a parent or turn start lost to a
	// damaged line, or a forged journal), or -1: from there on a history
	// finds its branch by walking the tree as it is (oHistory.bridgeBranch).
	irregular int32
}

func oNewIndex() *oIndex {
	return &oIndex{oFirst: map[EntryID]int32{}, dups: map[EntryID][]int32{}, ends: map[EntryID][]int32{},
		undos: map[EntryID][]int32{}, done: map[EntryID]int32{}, keys: map[string]int32{}, gone: map[store.ID]int32{},
		irregular: -1}
}

// oInTree reports whether entries of kind k are part of the conversation
// tree (done, gc, tool and notice entries are not).
func oInTree(k Kind) bool {
	switch k {
	case KindDone, KindGC, KindTool, KindNotice:
		return false
	}
	return true
}

// add appends entries (ix.mu held for writing).
func (ix *oIndex) add(ents []*Entry) {
	for _, e := range ents {
		p := int32(len(ix.ents))
		ix.ents = append(ix.ents, e)
		if q, ok := ix.oFirst[e.ID]; ok {
			if ix.dups[e.ID] == nil {
				ix.dups[e.ID] = []int32{q}
			}
			ix.dups[e.ID] = append(ix.dups[e.ID], p)
		} else {
			ix.oFirst[e.ID] = p
		}
		if e.Key != "" && e.Kind != KindDone {
			if _, ok := ix.keys[e.Key]; !ok {
				ix.keys[e.Key] = p
			}
		}
		if e.Pending {
			ix.ops = append(ix.ops, p)
		}
		depth := int32(-1)
		switch e.Kind {
		case KindTurnEnd:
			if e.Start != "" {
				ix.ends[e.Start] = append(ix.ends[e.Start], p)
				if q, ok := ix.at(e.Start, p); !ok || q >= p {
					ix.markIrregular(p) // its start is lost: a stand-in takes its place
				}
			}
		case KindUndo:
			if e.Undoes != "" {
				ix.undos[e.Undoes] = append(ix.undos[e.Undoes], p)
			}
		case KindDone:
			if e.Of != "" {
				if _, ok := ix.done[e.Of]; !ok {
					ix.done[e.Of] = p
				}
			}
		case KindGC:
			ix.gcs = append(ix.gcs, p)
			for _, s := range e.Gone {
				if _, ok := ix.gone[s]; !ok {
					ix.gone[s] = p
				}
			}
		}
		if oInTree(e.Kind) {
			ix.trees = append(ix.trees, p)
			depth = 0
			if e.Parent != "" {
				if q, ok := ix.at(e.Parent, p); ok && q < p && ix.depth[q] >= 0 {
					depth = ix.depth[q] + 1
				} else {
					depth = -1
					ix.markIrregular(p)
				}
			}
			if len(ix.dups[e.ID]) > 0 {
				ix.markIrregular(p)
			}
		}
		ix.depth = append(ix.depth, depth)
	}
}

func (ix *oIndex) markIrregular(p int32) {
	if ix.irregular < 0 || p < ix.irregular {
		ix.irregular = p
	}
}

// at is the position of the entry with id among the oFirst n: its last
// occurrence there.
func (ix *oIndex) at(id EntryID, n int32) (int32, bool) {
	if ps := ix.dups[id]; ps != nil {
		for i := len(ps) - 1; i >= 0; i-- {
			if ps[i] < n {
				return ps[i], true
			}
		}
		return 0, false
	}
	p, ok := ix.oFirst[id]
	if !ok || p >= n {
		return 0, false
	}
	return p, true
}

// oLastBefore is the last of the sorted positions ps before n, or -1.
func oLastBefore(ps []int32, n int32) int32 {
	i := sort.Search(len(ps), func(i int) bool { return ps[i] >= n })
	if i == 0 {
		return -1
	}
	return ps[i-1]
}

// oTurn is one turn: its start entry and, once it ended, its end entry.
type oTurn struct {
	Number    int
	Start     *Entry
	End       *Entry
	Abandoned bool // off the active branch
}

// turns of abandoned branches, in journal order.
func (h *oHistory) Turns(all bool) []oTurn {
	var ts []oTurn
	src := h.Branch
	if all {
		src = h.Entries
	}
	for _, e := range src {
		if e.Kind != KindTurnStart {
			continue
		}
		ts = append(ts, oTurn{Number: e.Turn, Start: e, End: h.endOf(e.ID), Abandoned: !h.OnBranch(e.ID)})
	}
	return ts
}

// NextTurn is the number the next turn on the active branch gets.
func (h *oHistory) NextTurn() int { return h.nextTurn }

// OpenTurns are the start entries of the turns open on the active branch,
// oldest oFirst, at most one per session id (one turn may be open per
// session). A turn is open while it has no end entry and no later turn
// of the same session started on the branch (a session whose turn never
// ended, a crash, has moved on).
func (h *oHistory) OpenTurns() []*Entry {
	var out []*Entry
	for _, e := range h.lastStart {
		if h.endOf(e.ID) == nil {
			out = append(out, e)
		}
	}
	if len(out) < 2 {
		return out
	}
	// Oldest oFirst: in the order of the branch.
	at := make(map[*Entry]int, len(out))
	for _, e := range out {
		at[e] = h.branchIndex(e)
	}
	sort.Slice(out, func(i, j int) bool { return at[out[i]] < at[out[j]] })
	return out
}

// branchIndex is where entry e is on the active branch.
func (h *oHistory) branchIndex(e *Entry) int {
	if h.onBranch == nil {
		h.ix.mu.RLock()
		defer h.ix.mu.RUnlock()
		if p, ok := h.ix.at(e.ID, h.n); ok && h.ix.ents[p] == e {
			return int(h.ix.depth[p])
		}
	}
	for i, b := range h.Branch {
		if b == e {
			return i
		}
	}
	return -1
}

// OpenTurn is the start entry of the latest turn open on the active
// branch, whatever its session, or nil when no turn is open.
func (h *oHistory) OpenTurn() *Entry {
	open := h.OpenTurns()
	if len(open) == 0 {
		return nil
	}
	return open[len(open)-1]
}

// OpenTurnOf is the open turn of session id ("" is the turns opened
// without a session: the command line without --session, automatic
// turns), or nil.
func (h *oHistory) OpenTurnOf(session string) *Entry {
	for _, e := range h.OpenTurns() {
		if e.Session == session {
			return e
		}
	}
	return nil
}

// TurnToEnd is the open turn a turn end for session ends: that session's;
// without a session, the turn opened without one, else the latest open
// turn (a person ending "the" turn by hand). nil when there is none.
func (h *oHistory) TurnToEnd(session string) *Entry {
	if e := h.OpenTurnOf(session); e != nil || session != "" {
		return e
	}
	return h.OpenTurn()
}

// Baseline is the last state rewind-lsp recorded for the files (the
// snapshot of the latest entry that captured or changed them); a file that
// differs from it now was edited outside a turn. An operation counts by its
// done entry: the state it led to when it applied, nothing when it did not.
func (h *oHistory) Baseline() Snap {
	for i := len(h.Entries) - 1; i >= 0; i-- {
		e := h.Entries[i]
		switch {
		case e.Kind == KindDone:
			if e.Snapshot.Set {
				return e.Snapshot
			}
		case e.Pending:
			// Its done entry (later in the journal) decides.
		case e.Kind == KindTurnStart, e.Kind == KindTurnEnd, e.Kind == KindCheckpoint, IsOperation(e.Kind):
			if e.Snapshot.Set {
				return e.Snapshot
			}
		}
	}
	return Snap{}
}

// ByKey returns the entry a call with idempotency key made, or nil.
func (h *oHistory) ByKey(key string) *Entry {
	if key == "" {
		return nil
	}
	return oFirst(h, h.ix.keys, key)
}

// Done returns the done entry of operation id, or nil (not completed, or
// recorded before operations had done entries).
func (h *oHistory) Done(id EntryID) *Entry { return oFirst(h, h.ix.done, id) }

// Unfinished lists the operations recorded before they changed files that
// have no done entry: interrupted, unless their process still runs (which
// holds the journal lock while it does).
func (h *oHistory) Unfinished() []*Entry {
	h.ix.mu.RLock()
	var pending []*Entry
	for _, p := range h.ix.ops {
		if p < h.n {
			pending = append(pending, h.ix.ents[p])
		}
	}
	h.ix.mu.RUnlock()
	var out []*Entry
	for _, e := range pending {
		if h.Done(e.ID) == nil {
			out = append(out, e)
		}
	}
	return out
}

// Applied reports whether operation e changed the files as planned: from
// its done entry, or for older journals its own applied field.
func (h *oHistory) Applied(e *Entry) bool {
	if d := h.Done(e.ID); d != nil {
		return d.Applied == nil || *d.Applied
	}
	if e.Pending {
		return false
	}
	return e.Applied == nil || *e.Applied
}

// FailureReason is why operation e did not apply ("" when it did).
func (h *oHistory) FailureReason(e *Entry) string {
	if d := h.Done(e.ID); d != nil {
		return d.FailureReason
	}
	return e.FailureReason
}

// Undone reports whether operation id is undone: an undo of it is itself
// in effect (an undo that was undone in turn — a redo — no longer counts).
func (h *oHistory) Undone(id EntryID) bool { return h.undone(id, map[EntryID]int8{}) }

// undone is Undone with memo holding the answers so far: 1 yes, 2 no, 3
// computing.
func (h *oHistory) undone(id EntryID, memo map[EntryID]int8) bool {
	switch memo[id] {
	case 1:
		return true
	case 2:
		return false
	case 3:
		return false // a cycle (a damaged or crafted journal): not undone
	}
	memo[id] = 3
	res := false
	for _, u := range h.undos(id) {
		// An undo counts only if it comes after what it undoes.
		if h.Applied(u) && h.after(u, id) && !h.undone(u.ID, memo) {
			res = true
			break
		}
	}
	memo[id] = 2
	if res {
		memo[id] = 1
	}
	return res
}

// after reports whether entry e comes after entry id in the journal.
func (h *oHistory) after(e *Entry, id EntryID) bool {
	return h.position(e.ID) > h.position(id)
}

// UndoCandidates are the operations `undo` may take back, best oFirst: the
// rewinds and reverts still in effect, latest oFirst; when none is left,
// the undos still in effect, latest oFirst (undoing an undo is a redo, so
// what a forced undo overwrote stays within reach). Operations the editor
// did not apply are included; the caller checks whether they left traces.
func (h *oHistory) UndoCandidates() []*Entry {
	var ops, undos []*Entry
	memo := map[EntryID]int8{}
	for i := len(h.Entries) - 1; i >= 0; i-- {
		e := h.Entries[i]
		if !IsOperation(e.Kind) || h.undone(e.ID, memo) {
			continue
		}
		if e.Kind == KindUndo {
			if h.Applied(e) {
				undos = append(undos, e)
			}
			continue
		}
		ops = append(ops, e)
	}
	return append(ops, undos...)
}

// oTarget is a resolved rewind target.
type oTarget struct {
	Spec     string // as written
	Entry    *Entry // the entry the target names
	Snapshot Snap   // the files' state to restore
	Turn     int    // turn number, 0 for checkpoints and ids of other entries
	Label    string
	Prompt   string
	// Point is the entry the conversation leaf moves back to ("" = before
	// the oFirst entry).
	Point EntryID
}

// Resolve turns a target string into a Target: "3" or "turn:3" (the state
// when turn 3 started), "turn:3:end" (when it ended), "~1" (the start of
// the latest turn; "~2" the one before), "@label" (a checkpoint), an entry
// id or a unique prefix of at least 6 characters.
func (h *oHistory) Resolve(spec string) (*oTarget, error) {
	s := strings.TrimSpace(spec)
	bad := func(reason string) error { return &UnknownTargetError{Spec: spec, Reason: reason} }
	if s == "" {
		return nil, bad("empty target")
	}
	turnTarget := func(n int, end bool) (*oTarget, error) {
		for _, t := range h.Turns(false) {
			if t.Number != n {
				continue
			}
			if !end {
				if t.Start.Damaged {
					return nil, bad(fmt.Sprintf("the start of turn %d is a damaged journal line (fsck names it); turn:%d:end is intact", n, n))
				}
				return &oTarget{Spec: spec, Entry: t.Start, Snapshot: t.Start.Snapshot, Turn: n, Prompt: t.Start.Prompt, Point: t.Start.Parent}, nil
			}
			if t.End == nil {
				return nil, bad(fmt.Sprintf("turn %d has not ended", n))
			}
			return &oTarget{Spec: spec, Entry: t.End, Snapshot: t.End.Snapshot, Turn: n, Prompt: t.Start.Prompt, Point: t.End.ID}, nil
		}
		return nil, bad(fmt.Sprintf("there is no turn %d on the active branch (%d turns)", n, len(h.Turns(false))))
	}
	switch {
	case strings.HasPrefix(s, "~"):
		k, err := strconv.Atoi(s[1:])
		if err != nil || k < 1 {
			return nil, bad("~N needs a number of at least 1")
		}
		ts := h.Turns(false)
		if k > len(ts) {
			return nil, bad(fmt.Sprintf("only %d turns on the active branch", len(ts)))
		}
		return turnTarget(ts[len(ts)-k].Number, false)
	case strings.HasPrefix(s, "@"):
		label := s[1:]
		if label == "" {
			return nil, bad("@ needs a checkpoint label")
		}
		var found *Entry
		for _, e := range h.Entries {
			if e.Kind == KindCheckpoint && e.Label == label && (found == nil || h.OnBranch(e.ID) || !h.OnBranch(found.ID)) {
				found = e
			}
		}
		if found == nil {
			return nil, bad("no checkpoint has that label")
		}
		return &oTarget{Spec: spec, Entry: found, Snapshot: found.Snapshot, Label: label, Point: found.ID}, nil
	case strings.HasPrefix(s, "turn:"):
		rest := s[len("turn:"):]
		end := strings.HasSuffix(rest, ":end")
		rest = strings.TrimSuffix(rest, ":end")
		n, err := strconv.Atoi(rest)
		if err != nil {
			return nil, bad("turn:N needs a turn number, as in turn:3 or turn:3:end")
		}
		if n < 1 {
			return nil, bad("turn numbers start at 1")
		}
		return turnTarget(n, end)
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 {
			return nil, bad("turn numbers start at 1")
		}
		return turnTarget(n, false)
	}
	if len(s) < 6 {
		return nil, bad("an entry id prefix needs at least 6 characters")
	}
	var matches []*Entry
	for _, e := range h.Entries {
		if strings.HasPrefix(string(e.ID), s) {
			matches = append(matches, e)
		}
	}
	if len(matches) > 1 {
		return nil, bad(oAmbiguous(matches))
	}
	var match *Entry
	if len(matches) == 1 {
		match = matches[0]
	}
	if match == nil {
		return nil, bad("no entry has that id")
	}
	if !match.Snapshot.Set {
		return nil, bad(fmt.Sprintf("entry %s (%s) recorded no state", match.ID, match.Kind))
	}
	t := &oTarget{Spec: spec, Entry: match, Snapshot: match.Snapshot, Turn: match.Turn, Prompt: match.Prompt, Label: match.Label, Point: match.ID}
	if match.Kind == KindTurnStart {
		t.Point = match.Parent
	}
	return t, nil
}

// oAmbiguous says which entries an id prefix matches, so that the user can
// pick one: "the id prefix is ambiguous: it matches 3 entries: 0190… (turn 2,
// turnStart), …; give more characters".
func oAmbiguous(matches []*Entry) string {
	const show = 5
	var b strings.Builder
	fmt.Fprintf(&b, "the id prefix is ambiguous: it matches %d entries:", len(matches))
	for i, e := range matches {
		if i == show {
			fmt.Fprintf(&b, " and %d more", len(matches)-show)
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		what := string(e.Kind)
		if e.Turn > 0 {
			what = fmt.Sprintf("turn %d, %s", e.Turn, e.Kind)
		}
		fmt.Fprintf(&b, " %s (%s)", e.ID, what)
	}
	b.WriteString("; give more characters")
	return b.String()
}

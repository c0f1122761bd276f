package journal

// History: the one way to read the journal (docs/HISTORY.md). Every
// question is answered from the view: a few records and table lookups, and
// the entries it names read from the journal by their offsets — never a
// pass over the whole journal, except where a method says so (Scan).

import (
	"slices"
	"sort"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal/internal/view"
)

// History is the journal as of one moment: its first Len entries. It is
// safe for concurrent use; what is appended later is not seen (read the
// journal's History again).
type History struct {
	v *view.Reader[*Entry]
}

// Len is the number of entries the history holds (a turn start lost to a
// damaged line and stood in for counts).
func (h *History) Len() int { return int(h.v.N) }

// at is the entry at position p (nil when it is not one of h's).
func (h *History) at(p pos) *Entry {
	e, _ := h.v.Entry(p)
	return e
}

// posOf is where entry e is (none when it is not one of h's).
func (h *History) posOf(e *Entry) pos {
	if e == nil {
		return none
	}
	if e.pos > 0 && e.pos-1 < h.v.N {
		return e.pos - 1
	}
	return h.v.LookupID(string(e.ID))
}

// Index is where entry e is in journal order (-1 when it is not one of
// h's): entries on one branch are in the order of the branch.
func (h *History) Index(e *Entry) int { return int(h.posOf(e)) }

// idPos is where the entry with id is (the last one, should an id be
// written twice), or none.
func (h *History) idPos(id EntryID) pos {
	if id == "" {
		return none
	}
	return h.v.LookupID(string(id))
}

// Entry returns the entry with id, or nil.
func (h *History) Entry(id EntryID) *Entry { return h.at(h.idPos(id)) }

// Leaf is the id of the active branch's leaf ("" when the journal is empty).
func (h *History) Leaf() EntryID {
	if e := h.at(h.v.Leaf); e != nil {
		return e.ID
	}
	return ""
}

// OnBranch reports whether entry id is on the active branch (an id
// written twice: either entry).
func (h *History) OnBranch(id EntryID) bool {
	if id == "" {
		return false
	}
	return h.branchPos(id) != none
}

func (h *History) onBranch(p pos) bool {
	return p != none && h.v.Leaf != none && h.v.IsAncestor(p, h.v.Leaf)
}

// Since counts the active-branch entries after point (the ones a
// conversation rewind to point abandons); "" is before the first entry.
func (h *History) Since(point EntryID) int {
	if h.v.Leaf == none {
		return 0
	}
	leaf := h.v.Rec(h.v.Leaf)
	if point == "" {
		return int(leaf.Depth) + 1
	}
	p := h.branchPos(point)
	if p == none {
		return 0
	}
	return int(leaf.Depth - h.v.Rec(p).Depth)
}

// branchPos is where entry id is on the active branch (the nearest to the
// root, should an id be written twice), or none.
func (h *History) branchPos(id EntryID) pos {
	best := none
	for _, p := range h.v.Find(view.ByID, view.Hash(string(id))) {
		if h.onBranch(p) && (best == none || h.v.Rec(p).Depth < h.v.Rec(best).Depth) {
			if e := h.at(p); e != nil && e.ID == id {
				best = p
			}
		}
	}
	return best
}

// Gone reports whether snapshot s was dropped by gc.
func (h *History) Gone(s Snap) bool {
	return s.Set && len(h.v.Find(view.GoneSnaps, s.ID[:])) > 0
}

// GCCount is the number of gc entries, so caches can notice a gc.
func (h *History) GCCount() int { return h.v.GCs }

// SnapshotCount counts the distinct snapshots the journal holds (not gone).
func (h *History) SnapshotCount() int { return h.v.Snaps }

// Last is the entry written last (nil with none).
func (h *History) Last() *Entry { return h.at(h.v.N - 1) }

// Oldest is the time of the first entry (zero with none).
func (h *History) Oldest() time.Time {
	if e := h.at(0); e != nil {
		return e.Time
	}
	return time.Time{}
}

// Baseline is the last state rewind-lsp recorded for the files (the
// snapshot of the latest entry that captured or changed them); a file that
// differs from it now was edited outside a turn. An operation counts by its
// done entry: the state it led to when it applied, nothing when it did not.
func (h *History) Baseline() Snap { return h.v.Base }

// Appended calls fn with the entries written from position since on (a
// history's Len before), in journal order: what changed between two
// histories of one journal.
func (h *History) Appended(since int, fn func(*Entry)) {
	for p := pos(max(since, 0)); p < h.v.N; p++ {
		if e := h.at(p); e != nil {
			fn(e)
		}
	}
}

// Newest is the newest entry a listing shows — the latest turn start or
// checkpoint of the active branch, or rewind or revert of any — or nil.
func (h *History) Newest() *Entry {
	best := h.latestTurn()
	if h.v.Leaf != none {
		for p := h.v.Rec(h.v.Leaf).MarkAt; p != none; {
			r := h.v.Rec(p)
			if r.Kind == view.KindCheckpoint {
				best = max(best, p)
				break
			}
			if r.Parent == none {
				break
			}
			p = h.v.Rec(r.Parent).MarkAt
		}
	}
	best = max(best, h.v.Heads[view.KindRewind], h.v.Heads[view.KindRevert])
	return h.at(best)
}

// Scan calls fn with every entry in journal order until it returns false.
// It reads the whole journal: for maintenance (retention, fsck) only.
func (h *History) Scan(fn func(*Entry) bool) {
	for p := pos(0); p < h.v.N; p++ {
		if e := h.at(p); e != nil && !fn(e) {
			return
		}
	}
}

// Before calls fn with the entries written before e (all of them when e is
// nil), newest first, until it returns false.
func (h *History) Before(e *Entry, fn func(*Entry) bool) {
	p := h.v.N
	if e != nil {
		if p = h.posOf(e); p == none {
			return
		}
	}
	for p--; p >= 0; p-- {
		if x := h.at(p); x != nil && !fn(x) {
			return
		}
	}
}

// After calls fn with the entries written after e, in journal order, until
// it returns false.
func (h *History) After(e *Entry, fn func(*Entry) bool) {
	p := h.posOf(e)
	if p == none {
		return
	}
	for p++; p < h.v.N; p++ {
		if x := h.at(p); x != nil && !fn(x) {
			return
		}
	}
}

// ofKinds calls fn with the entries of the given kinds, newest first,
// down to (not including) position stop, until it returns false.
func (h *History) ofKinds(stop pos, fn func(p pos) bool, kinds ...view.Kind) {
	heads := make([]pos, len(kinds))
	for i, k := range kinds {
		heads[i] = h.v.Heads[k]
	}
	for {
		best := -1
		for i, p := range heads {
			if p != none && p > stop && (best < 0 || p > heads[best]) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		p := heads[best]
		heads[best] = h.v.Rec(p).PrevSame
		if !fn(p) {
			return
		}
	}
}

// Recent calls fn with the rewinds, reverts and undos recorded since t,
// newest first, until it returns false.
func (h *History) Recent(t time.Time, fn func(*Entry) bool) {
	cut := t.UnixNano()
	h.ofKinds(none, func(p pos) bool {
		if h.v.Rec(p).Time < cut {
			return false
		}
		e := h.at(p)
		return e == nil || fn(e)
	}, view.KindRewind, view.KindRevert, view.KindUndo)
}

// ByKey returns the first entry a call with idempotency key made (done
// entries aside), or nil.
func (h *History) ByKey(key string) *Entry {
	for _, e := range h.Keyed(key) {
		return e
	}
	return nil
}

// Keyed lists the entries made under idempotency key, in journal order
// (done entries aside).
func (h *History) Keyed(key string) []*Entry {
	if key == "" {
		return nil
	}
	var out []*Entry
	for _, p := range h.v.Find(view.ByKey, view.Hash(key)) {
		if e := h.at(p); e != nil && e.Key == key {
			out = append(out, e)
		}
	}
	return out
}

// Checkpoints lists the checkpoints labeled label, in journal order.
func (h *History) Checkpoints(label string) []*Entry {
	var out []*Entry
	for _, p := range h.v.Find(view.Labels, view.Hash(label)) {
		if e := h.at(p); e != nil && e.Kind == KindCheckpoint && e.Label == label {
			out = append(out, e)
		}
	}
	return out
}

// ToolCalls lists the tool entries of the turn started by start (and of
// the turn it carries on, Continues), in journal order.
func (h *History) ToolCalls(start *Entry) []*Entry {
	return h.ofTurn(view.Tools, start)
}

// OperationsIn lists the operations an agent ran in its own turn started
// by start (InTurn; and in the turn it carries on), in journal order.
func (h *History) OperationsIn(start *Entry) []*Entry {
	return h.ofTurn(view.InTurn, start)
}

func (h *History) ofTurn(table view.Table, start *Entry) []*Entry {
	var ps []pos
	for _, id := range []EntryID{start.ID, start.Continues} {
		if id != "" {
			ps = append(ps, h.v.Find(table, view.Hash(string(id)))...)
		}
	}
	slices.Sort(ps)
	ps = slices.Compact(ps)
	out := make([]*Entry, 0, len(ps))
	for _, p := range ps {
		if e := h.at(p); e != nil && (table == view.Tools && ofTurn(e.Start, start) || table == view.InTurn && ofTurn(e.InTurn, start)) {
			out = append(out, e)
		}
	}
	return out
}

// ofTurn reports whether id names the turn started by start: its start
// entry, or the one it carries on (Continues).
func ofTurn(id EntryID, start *Entry) bool {
	return id != "" && (id == start.ID || id == start.Continues)
}

// Calls lists the tool entries of one call: session, tool and call id (for
// calls without an id, those of the turn start names), in journal order.
func (h *History) Calls(session, tool, toolUse string, start EntryID) []*Entry {
	key := []string{session, tool, toolUse}
	if toolUse == "" {
		key = append(key, string(start))
	}
	var out []*Entry
	for _, p := range h.v.Find(view.Calls, view.Hash(key...)) {
		if e := h.at(p); e != nil && e.Session == session && e.Tool == tool && e.ToolUse == toolUse && (toolUse != "" || e.Start == start) {
			out = append(out, e)
		}
	}
	return out
}

// ForkedAt lists the turn starts whose conversation stood at marker uuid
// when their prompt was sent (ForkUUID), in journal order.
func (h *History) ForkedAt(uuid string) []*Entry {
	if uuid == "" {
		return nil
	}
	var out []*Entry
	for _, p := range h.v.Find(view.Forks, view.Hash(uuid)) {
		if e := h.at(p); e != nil && e.Kind == KindTurnStart && e.ForkUUID == uuid {
			out = append(out, e)
		}
	}
	return out
}

// SamePrompts counts the turns of start's session before it that had the
// same prompt.
func (h *History) SamePrompts(start *Entry) int {
	at := h.posOf(start)
	n := 0
	for _, p := range h.v.Find(view.Prompts, view.Hash(start.Session, start.Prompt)) {
		if p >= at {
			break
		}
		if e := h.at(p); e != nil && e.Session == start.Session && e.Prompt == start.Prompt {
			n++
		}
	}
	return n
}

// Written reports whether entry e comes after entry id in the journal.
func (h *History) Written(e *Entry, after EntryID) bool {
	return h.posOf(e) > h.idPos(after)
}

// sortByPos sorts entries in journal order.
func (h *History) sortByPos(es []*Entry) {
	ps := make(map[*Entry]pos, len(es))
	for _, e := range es {
		ps[e] = h.posOf(e)
	}
	sort.SliceStable(es, func(i, j int) bool { return ps[es[i]] < ps[es[j]] })
}

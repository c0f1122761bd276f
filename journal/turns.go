package journal

// Turns of a History: on the active branch by number, which are open,
// what a turn end ends.

import (
	"slices"
	"sort"

	"github.com/rewind-lsp/rewind-lsp/journal/internal/view"
)

// Turn is one turn: its start entry and, once it ended, its end entry.
type Turn struct {
	Number    int
	Start     *Entry
	End       *Entry
	Abandoned bool // off the active branch
}

func (h *History) turnAt(p pos) Turn { return h.turnOf(p, false) }

// branchTurnAt is turnAt for a turn start the active branch's chain of turn
// starts gave (turnPositions, turnPos): on the branch, so the walk that
// would say so is spared.
func (h *History) branchTurnAt(p pos) Turn { return h.turnOf(p, true) }

func (h *History) turnOf(p pos, onBranch bool) Turn {
	start := h.at(p)
	if start == nil {
		return Turn{}
	}
	abandoned := !onBranch && !h.onBranch(p) && !h.OnBranch(start.ID) // an id written twice: either entry
	return Turn{Number: int(h.v.Rec(p).Turn), Start: start, End: h.endAt(p), Abandoned: abandoned}
}

// TurnOf is the turn started by start.
func (h *History) TurnOf(start *Entry) Turn {
	if p := h.posOf(start); p != none {
		return h.turnAt(p)
	}
	return Turn{}
}

// endAt is the end entry of the turn started at p (its last), or nil.
func (h *History) endAt(p pos) *Entry {
	id := EntryID(h.v.IDAt(p))
	ends := h.v.Find(view.Ends, view.Hash(string(id)))
	for i := len(ends) - 1; i >= 0; i-- {
		if e := h.at(ends[i]); e != nil && e.Start == id {
			return e
		}
	}
	return nil
}

// EndOf is the end entry of turn start (the last one), or nil.
func (h *History) EndOf(start *Entry) *Entry {
	if p := h.posOf(start); p != none {
		return h.endAt(p)
	}
	return nil
}

// TurnCount is the number of turns on the active branch.
func (h *History) TurnCount() int {
	if t := h.latestTurn(); t != none {
		return int(h.v.Rec(t).TurnDepth)
	}
	return 0
}

// latestTurn is the position of the latest turn start on the active branch.
func (h *History) latestTurn() pos {
	if h.v.Leaf == none {
		return none
	}
	return h.v.Rec(h.v.Leaf).TurnAt
}

// prevTurn is the turn start above turn start p on its branch.
func (h *History) prevTurn(p pos) pos {
	r := h.v.Rec(p)
	if r.Parent == none {
		return none
	}
	return h.v.Rec(r.Parent).TurnAt
}

// Turn is turn n of the active branch.
func (h *History) Turn(n int) (Turn, bool) {
	p := h.turnPos(n)
	if p == none {
		return Turn{}, false
	}
	return h.branchTurnAt(p), true
}

// turnPos is the position of turn n's start on the active branch, or none.
func (h *History) turnPos(n int) pos {
	if h.v.Irregular {
		// Numbers may not rise along the branch: the first from the root
		// with the number, as a walk from the root finds it.
		found := none
		for t := h.latestTurn(); t != none; t = h.prevTurn(t) {
			if h.v.Rec(t).Turn == int32(n) {
				found = t
			}
		}
		return found
	}
	if t := h.turnAtMost(n); t != none && h.v.Rec(t).Turn == int32(n) {
		return t
	}
	return none
}

// turnAtMost is the latest turn start of the active branch numbered n or
// below, found along the jump pointers (numbers rise along a branch).
func (h *History) turnAtMost(n int) pos {
	want := int32(n)
	t := h.latestTurn()
	for t != none {
		r := h.v.Rec(t)
		if r.Turn <= want {
			return t
		}
		if j := h.v.Rec(r.TurnJump); r.TurnJump != t && j.Turn > want {
			t = r.TurnJump
		} else {
			t = h.prevTurn(t)
		}
	}
	return none
}

// Turns lists turns of the active branch, oldest first: the latest limit
// of them (0: every one) numbered below before (0: from the latest).
func (h *History) Turns(limit, before int) []Turn {
	ps := h.turnPositions(limit, before)
	out := make([]Turn, 0, len(ps))
	for _, p := range ps {
		if t := h.branchTurnAt(p); t.Start != nil {
			out = append(out, t)
		}
	}
	return out
}

// turnPositions is Turns as positions.
func (h *History) turnPositions(limit, before int) []pos {
	t := h.latestTurn()
	if before > 0 {
		if h.v.Irregular {
			for t != none && h.v.Rec(t).Turn >= int32(before) {
				t = h.prevTurn(t)
			}
		} else {
			t = h.turnAtMost(before - 1)
		}
	}
	var ps []pos
	for ; t != none && (limit <= 0 || len(ps) < limit); t = h.prevTurn(t) {
		ps = append(ps, t)
	}
	slices.Reverse(ps)
	return ps
}

// AllTurns lists the turns of every branch in journal order (abandoned
// ones marked): the latest limit of them (0: every one).
func (h *History) AllTurns(limit int) []Turn {
	var ps []pos
	h.ofKinds(none, func(p pos) bool {
		ps = append(ps, p)
		return limit <= 0 || len(ps) < limit
	}, view.KindTurnStart)
	slices.Reverse(ps)
	out := make([]Turn, 0, len(ps))
	for _, p := range ps {
		if t := h.turnAt(p); t.Start != nil {
			out = append(out, t)
		}
	}
	return out
}

// NextTurn is the number the next turn on the active branch gets.
func (h *History) NextTurn() int {
	if h.v.Leaf == none {
		return 1
	}
	return int(h.v.Rec(h.v.Leaf).MaxTurn) + 1
}

// OpenTurns are the start entries of the turns open on the active branch,
// oldest first, at most one per session id (one turn may be open per
// session). A turn is open while it has no end entry and no later turn
// of the same session started on the branch (a session whose turn never
// ended, a crash, has moved on).
func (h *History) OpenTurns() []*Entry {
	type open struct {
		p     pos
		depth int32
	}
	var os []open
	for _, o := range h.v.Open {
		if !h.onBranch(o.Pos) || slices.ContainsFunc(o.Super, h.onBranch) {
			continue
		}
		os = append(os, open{o.Pos, h.v.Rec(o.Pos).Depth})
	}
	sort.Slice(os, func(i, j int) bool { return os[i].depth < os[j].depth })
	var out []*Entry
	for _, o := range os {
		if e := h.at(o.p); e != nil {
			out = append(out, e)
		}
	}
	return out
}

// OpenTurn is the start entry of the latest turn open on the active
// branch, whatever its session, or nil when no turn is open.
func (h *History) OpenTurn() *Entry {
	open := h.OpenTurns()
	if len(open) == 0 {
		return nil
	}
	return open[len(open)-1]
}

// OpenTurnOf is the open turn of session id ("" is the turns opened
// without a session: the command line without --session, automatic
// turns), or nil.
func (h *History) OpenTurnOf(session string) *Entry {
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
func (h *History) TurnToEnd(session string) *Entry {
	if e := h.OpenTurnOf(session); e != nil || session != "" {
		return e
	}
	return h.OpenTurn()
}

// TurnsBetween lists the turns from the one started by from up to (not
// including) the one started by to, along to's branch, oldest first; none
// when from is not above to.
func (h *History) TurnsBetween(from, to *Entry) []Turn {
	f, t := h.posOf(from), h.posOf(to)
	if f == none || t == none {
		return nil
	}
	var ps []pos
	found := false
	for p := h.prevTurn(t); p != none && p >= f; p = h.prevTurn(p) {
		ps = append(ps, p)
		if found = p == f; found {
			break
		}
	}
	if !found {
		return nil // from is not above to
	}
	slices.Reverse(ps)
	var out []Turn
	for _, p := range ps {
		out = append(out, h.turnAt(p))
	}
	return out
}

// FileTurns lists the ended turns of the active branch whose end says they
// changed or wrote path (Changed, Wrote), in the order of their starts.
func (h *History) FileTurns(path string) []Turn {
	var out []Turn
	seen := map[pos]bool{}
	for _, p := range h.v.Find(view.Paths, view.Hash(path)) {
		e := h.at(p)
		if e == nil || e.Kind != KindTurnEnd {
			continue
		}
		sp := h.idPos(e.Start)
		if sp == none || seen[sp] || !h.onBranch(sp) {
			continue
		}
		seen[sp] = true
		// A turn ended twice counts by its last end.
		if t := h.turnAt(sp); t.End != nil && mentions(t.End, path) {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return h.posOf(out[i].Start) < h.posOf(out[j].Start) })
	return out
}

func mentions(e *Entry, path string) bool {
	for _, c := range e.Changed {
		if c.Path == path {
			return true
		}
	}
	return slices.Contains(e.Wrote, path)
}

// BranchEntries lists the latest limit entries of the active branch, root
// first (0: every one, which reads the whole branch).
func (h *History) BranchEntries(limit int) []*Entry {
	var out []*Entry
	for p := h.v.Leaf; p != none && (limit <= 0 || len(out) < limit); p = h.v.Rec(p).Parent {
		if e := h.at(p); e != nil {
			out = append(out, e)
		}
	}
	slices.Reverse(out)
	return out
}

// Steps lists the steps of the turn started by start: the tool entries of
// its calls that changed files (Step > 0), in order.
func (h *History) Steps(start *Entry) []*Entry {
	var out []*Entry
	for _, p := range h.v.Find(view.Steps, view.Hash(string(start.ID))) {
		if e := h.at(p); e != nil && e.Kind == KindTool && e.Start == start.ID && e.Step > 0 {
			out = append(out, e)
		}
	}
	return out
}

// StepOf is step k of the turn started by start (nil when it has none),
// read alone: steps are numbered in the order they are recorded, so step
// k is the k-th of the turn's step positions (unless another turn's id
// shares their key, when the positions are read in order).
func (h *History) StepOf(start *Entry, k int) *Entry {
	ps := h.v.Find(view.Steps, view.Hash(string(start.ID)))
	isStep := func(e *Entry) bool { return e != nil && e.Kind == KindTool && e.Start == start.ID && e.Step > 0 }
	if k >= 1 && k <= len(ps) {
		if e := h.at(ps[k-1]); isStep(e) && e.Step == k {
			return e
		}
	}
	for _, p := range ps {
		if e := h.at(p); isStep(e) && e.Step == k {
			return e
		}
	}
	return nil
}

// LastStep is the number of the turn's latest step (0: none yet), read
// from its last step position.
func (h *History) LastStep(start *Entry) int {
	ps := h.v.Find(view.Steps, view.Hash(string(start.ID)))
	for i := len(ps) - 1; i >= 0; i-- {
		if e := h.at(ps[i]); e != nil && e.Kind == KindTool && e.Start == start.ID && e.Step > 0 {
			return e.Step
		}
	}
	return 0
}

package journal

import (
	"slices"

	"github.com/rewind-lsp/rewind-lsp/journal/internal/view"
)

// Listing is one page of the history, as rewind.list and log show it.
type Listing struct {
	Turns []Turn
	// Checkpoints and Summaries of the active branch (of every branch with
	// all), and Rewinds — rewinds and reverts, of every branch: a
	// conversation rewind leaves the branch it came from, but it still
	// happened — recorded among the page's turns; journal order.
	Checkpoints, Summaries, Rewinds []*Entry
	// More says that older turns are left for the next page (before the
	// first turn listed).
	More bool
}

// List is a page of the history: the latest limit turns (0: every one)
// numbered below before (0: from the latest) of the active branch — with
// all, of every branch — and what was recorded among them: from the first
// listed turn's start (from the journal's start on the last page) to turn
// before's start (to the end on the first page). Its cost is the page's,
// not the history's.
func (h *History) List(limit, before int, all bool) *Listing {
	out := &Listing{}
	hi := h.v.N
	if before > 0 {
		if p := h.turnPos(before); p != none {
			hi = p
		} else if before <= h.TurnCount() {
			hi = 0
		}
	}
	var ps []pos
	if all {
		h.ofKinds(none, func(p pos) bool {
			if p < hi {
				ps = append(ps, p)
			}
			return limit <= 0 || len(ps) <= limit
		}, view.KindTurnStart)
		slices.Reverse(ps)
	} else {
		ps = h.turnPositions(limit+1, before)
		if limit <= 0 {
			ps = h.turnPositions(0, before)
		}
	}
	lo := pos(0)
	if limit > 0 && len(ps) > limit {
		out.More = true
		ps = ps[len(ps)-limit:]
		lo = ps[0]
	}
	turn := h.turnAt
	if !all {
		turn = h.branchTurnAt // the active branch's chain gave ps
	}
	for _, p := range ps {
		if t := turn(p); t.Start != nil {
			out.Turns = append(out.Turns, t)
		}
	}
	in := func(p pos) bool { return p >= lo && p < hi }
	collect := func(ps []pos) []*Entry {
		slices.Sort(ps)
		var es []*Entry
		for _, p := range ps {
			if e := h.at(p); e != nil {
				es = append(es, e)
			}
		}
		return es
	}
	var marks []pos
	if all {
		h.ofKinds(lo-1, func(p pos) bool {
			if in(p) {
				marks = append(marks, p)
			}
			return true
		}, view.KindCheckpoint, view.KindSummary)
	} else if h.v.Leaf != none {
		for p := h.v.Rec(h.v.Leaf).MarkAt; p != none && p >= lo; {
			r := h.v.Rec(p)
			if in(p) {
				marks = append(marks, p)
			}
			if r.Parent == none {
				break
			}
			p = h.v.Rec(r.Parent).MarkAt
		}
	}
	var cps, sums []pos
	for _, p := range marks {
		if h.v.Rec(p).Kind == view.KindCheckpoint {
			cps = append(cps, p)
		} else {
			sums = append(sums, p)
		}
	}
	out.Checkpoints, out.Summaries = collect(cps), collect(sums)
	var rws []pos
	h.ofKinds(lo-1, func(p pos) bool {
		if in(p) {
			rws = append(rws, p)
		}
		return true
	}, view.KindRewind, view.KindRevert)
	out.Rewinds = collect(rws)
	return out
}

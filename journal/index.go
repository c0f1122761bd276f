package journal

import (
	"sort"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/store"
)

// index is what a History looks entries up in, for a journal read in
// order: built once and extended as entries are appended, so that a
// history of a long journal costs what the new entries cost, not the whole
// journal again. Several Histories share one index: each sees the first n
// of its entries, and every lookup leaves out what lies past n. Entries are
// only added, under mu.
type index struct {
	mu   sync.RWMutex
	ents []*Entry

	first map[string]int32   // entry id → its first position
	dups  map[string][]int32 // entry id → every position, for an id seen more than once
	ends  map[string][]int32 // turnStart id → positions of its turnEnds
	undos map[string][]int32 // operation id → positions of its undos
	done  map[string]int32   // operation id → its first done entry
	keys  map[string]int32   // idempotency key → the first entry (not a done entry) with it
	gone  map[store.ID]int32 // snapshot → the first gc entry that dropped it
	gcs   []int32            // positions of gc entries
	ops   []int32            // positions of operations recorded pending (before they changed files)
	trees []int32            // positions of the conversation tree's entries
	// depth is, per position, how many parents an entry of the tree has
	// (0 for a root entry); -1 for entries outside the tree.
	depth []int32
	// branch holds the branch of the latest history made under the write
	// lock (branchLen entries); the next one, when it only adds to it,
	// appends in place instead of copying it.
	branch    []*Entry
	branchLen int
	// irregular is the first position from which the entries refer to
	// ones not written before them (a parent or turn start lost to a
	// damaged line, or a forged journal), or -1: from there on a history
	// finds its branch by walking the tree as it is (History.bridgeBranch).
	irregular int32
}

func newIndex() *index {
	return &index{first: map[string]int32{}, dups: map[string][]int32{}, ends: map[string][]int32{},
		undos: map[string][]int32{}, done: map[string]int32{}, keys: map[string]int32{}, gone: map[store.ID]int32{},
		irregular: -1}
}

// inTree reports whether entries of kind k are part of the conversation
// tree (done, gc, tool and notice entries are not).
func inTree(k string) bool {
	switch k {
	case KindDone, KindGC, KindTool, KindNotice:
		return false
	}
	return true
}

// add appends entries (ix.mu held for writing).
func (ix *index) add(ents []*Entry) {
	for _, e := range ents {
		p := int32(len(ix.ents))
		ix.ents = append(ix.ents, e)
		if q, ok := ix.first[e.ID]; ok {
			if ix.dups[e.ID] == nil {
				ix.dups[e.ID] = []int32{q}
			}
			ix.dups[e.ID] = append(ix.dups[e.ID], p)
		} else {
			ix.first[e.ID] = p
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
		if inTree(e.Kind) {
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

func (ix *index) markIrregular(p int32) {
	if ix.irregular < 0 || p < ix.irregular {
		ix.irregular = p
	}
}

// at is the position of the entry with id among the first n: its last
// occurrence there.
func (ix *index) at(id string, n int32) (int32, bool) {
	if ps := ix.dups[id]; ps != nil {
		for i := len(ps) - 1; i >= 0; i-- {
			if ps[i] < n {
				return ps[i], true
			}
		}
		return 0, false
	}
	p, ok := ix.first[id]
	if !ok || p >= n {
		return 0, false
	}
	return p, true
}

// lastBefore is the last of the sorted positions ps before n, or -1.
func lastBefore(ps []int32, n int32) int32 {
	i := sort.Search(len(ps), func(i int) bool { return ps[i] >= n })
	if i == 0 {
		return -1
	}
	return ps[i-1]
}

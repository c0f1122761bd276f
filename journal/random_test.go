package journal

import (
	"fmt"
	"math/rand"

	"github.com/rewind-lsp/rewind-lsp/journal/internal/view"
	"github.com/rewind-lsp/rewind-lsp/store"
)

// randomJournal is a journal of n entries as the writers make them: turns
// of a few sessions (some never ended), checkpoints, rewinds that move the
// leaf back, undos, their done entries, gc, tool and notice entries,
// retried calls' keys. With damage, some lines are lost (a parent, a
// turn's start) and an id appears twice, as in a damaged or forged
// journal.
func randomJournal(r *rand.Rand, n int, damage bool) []*Entry {
	var ents, tree, ops []*Entry
	open := map[string]*Entry{}
	leaf := EntryID("")
	next := 0
	id := func() EntryID { next++; return EntryID(fmt.Sprintf("0190a0b0-0000-7000-8000-%012d", next)) }
	snap := func() Snap { return SnapOf(store.Sum([]byte{byte(r.Intn(40))})) }
	for len(ents) < n {
		e := &Entry{ID: id(), Parent: leaf}
		if r.Intn(6) == 0 {
			e.Key = fmt.Sprintf("key-%d", r.Intn(10))
		}
		sess := []string{"", "a", "b"}[r.Intn(3)]
		switch k := r.Intn(20); {
		case k < 7:
			e.Kind, e.Session, e.Snapshot = KindTurnStart, sess, snap()
			e.Turn = 1 + r.Intn(30)
			open[sess] = e
		case k < 13:
			s := open[sess]
			if s == nil {
				continue
			}
			e.Kind, e.Session, e.Start, e.Turn, e.Snapshot = KindTurnEnd, sess, s.ID, s.Turn, snap()
			if r.Intn(4) > 0 {
				delete(open, sess)
			}
		case k < 14:
			e.Kind, e.Label, e.Snapshot = KindCheckpoint, []string{"x", "y"}[r.Intn(2)], snap()
		case k < 16 && len(tree) > 0:
			e.Kind, e.Pending, e.Snapshot, e.UndoSnapshot = KindRewind, true, snap(), snap()
			e.Parent = tree[r.Intn(len(tree))].ID
			ops = append(ops, e)
		case k < 17 && len(ops) > 0:
			e.Kind, e.Pending, e.Undoes, e.Snapshot = KindUndo, true, ops[r.Intn(len(ops))].ID, snap()
			ops = append(ops, e)
		case k < 18 && len(ops) > 0:
			applied := r.Intn(3) > 0
			e = &Entry{ID: id(), Kind: KindDone, Of: ops[r.Intn(len(ops))].ID, Applied: &applied, Snapshot: snap()}
		case k < 19:
			e = &Entry{ID: id(), Kind: KindGC, Gone: []store.ID{store.Sum([]byte{byte(r.Intn(40))})}}
		default:
			e = &Entry{ID: id(), Kind: []Kind{KindTool, KindNotice}[r.Intn(2)], Key: e.Key}
		}
		ents = append(ents, e)
		if view.InTree(codeOf(e.Kind)) {
			tree = append(tree, e)
			leaf = e.ID
		}
	}
	if damage {
		for i := 0; i < 1+n/30; i++ {
			j := r.Intn(len(ents))
			ents = append(ents[:j], ents[j+1:]...) // a damaged line
		}
		if len(ents) > 4 {
			dup := *ents[r.Intn(len(ents)/2)]
			j := len(ents)/2 + r.Intn(len(ents)/2)
			ents = append(ents[:j], append([]*Entry{&dup}, ents[j:]...)...)
		}
	}
	return ents
}

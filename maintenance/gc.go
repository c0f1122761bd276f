package maintenance

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/store"
	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// gcGrace keeps packs and objects younger than this from being rewritten
// or swept: they may belong to a capture in progress in another process,
// or to a running server's live tree. REWIND_LSP_GC_GRACE (seconds)
// overrides it, for benchmarks that compress hours of turns into minutes.
const gcGrace = 10 * time.Minute

func graceTime() time.Duration {
	if v := os.Getenv("REWIND_LSP_GC_GRACE"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
			return time.Duration(s * float64(time.Second))
		}
	}
	return gcGrace
}

// pinnedRewinds is how many of the latest rewinds keep their undo snapshots.
const pinnedRewinds = 10

// GCReport says what gc dropped.
type GCReport struct {
	// SnapshotsKept counts the snapshots kept.
	SnapshotsKept int `json:"snapshotsKept"`
	// SnapshotsDropped are the snapshots whose content was dropped.
	SnapshotsDropped []store.ID `json:"snapshotsDropped"`
	// ObjectsRemoved counts the objects removed.
	ObjectsRemoved int `json:"objectsRemoved"`
	// BytesFreed is the space freed.
	BytesFreed int64 `json:"bytesFreed"`
	// StoreBytes is the store's size after gc.
	StoreBytes int64 `json:"storeBytes"`
	// Damaged lists objects found damaged while repacking (left out of
	// the new pack, and on the damaged list for the next capture to heal).
	Damaged []store.ID `json:"damaged,omitempty"`
}

// Retention bounds what gc keeps. Pinned snapshots are always kept:
// labeled checkpoints (an agent's only while it is active: pins.go),
// the undo snapshots of the latest rewinds, the open turn's start and the
// last recorded state.
type Retention struct {
	MaxSnapshots int           // the newest N snapshots (0: no limit)
	MaxAge       time.Duration // snapshots referenced within this age (0: no limit)
	// MaxBytes drops the oldest unpinned snapshots until what the kept ones
	// need (their objects, stored size) fits (0: no limit).
	MaxBytes int64
}

// snapRef is one snapshot and the latest time an entry referenced it.
type snapRef struct {
	id     store.ID
	last   time.Time
	pinned bool
}

// Retain drops the content of the snapshots r does not keep (the newest
// MaxSnapshots, those referenced within MaxAge, within MaxBytes; zero: no
// limit). Labeled checkpoints, the undo snapshots of the latest rewinds,
// the open turn's start and the last recorded state are pinned. Journal
// entries stay; a gc entry marks the dropped snapshots gone. What is kept
// is repacked into one pack.
func (m *Maintainer) Retain(r Retention) (*GCReport, error) {
	var rep *GCReport
	err := m.w.Update(context.Background(), "", nil, func(tx *workspace.Tx) error {
		var err error
		rep, err = m.retainLocked(tx, r, true)
		return err
	})
	return rep, err
}

// snapshotRefs lists the snapshots the journal holds (not gone), newest
// first, with whether each is pinned.
func (m *Maintainer) snapshotRefs(h *journal.History) []*snapRef {
	refs := map[store.ID]*snapRef{}
	ref := func(sn journal.Snap, t time.Time, pin bool) {
		if !sn.Set || h.Gone(sn) {
			return
		}
		id := sn.ID
		r := refs[id]
		if r == nil {
			r = &snapRef{id: id}
			refs[id] = r
		}
		if t.After(r.last) {
			r.last = t
		}
		r.pinned = r.pinned || pin
	}
	// Retention reads the whole journal (it weighs every snapshot).
	var ops []*journal.Entry // the latest operations, whose undo snapshots are pinned
	agents := &agentPins{latest: map[string]*journal.Entry{}, rewoundTo: map[journal.EntryID]bool{}}
	h.Scan(func(e *journal.Entry) bool {
		agents.see(h, e)
		pin := e.Kind == journal.KindCheckpoint && e.Label != "" && !isAgentCheckpoint(e)
		ref(e.Snapshot, e.Time, pin)
		ref(e.UndoSnapshot, e.Time, false)
		if journal.IsOperation(e.Kind) { // undoable: rewinds, reverts, undos (a redo)
			if ops = append(ops, e); len(ops) > pinnedRewinds {
				ops = ops[1:]
			}
		}
		if e.Kind == journal.KindDone && e.Applied != nil && !*e.Applied {
			// An operation that changed nothing (the editor refused it, a
			// conflict) leaves nothing to undo: it takes no place among
			// the latest.
			ops = slices.DeleteFunc(ops, func(op *journal.Entry) bool { return op.ID == e.Of })
		}
		return true
	})
	for _, e := range ops {
		ref(e.UndoSnapshot, e.Time, true)
	}
	for _, e := range agents.ckps {
		if agents.active(m, h, e) {
			ref(e.Snapshot, e.Time, true)
		}
	}
	if b := h.Baseline(); b.Set {
		ref(b, time.Time{}, true)
	}
	for _, open := range h.OpenTurns() {
		ref(open.Snapshot, time.Time{}, true)
	}
	all := slices.Collect(maps.Values(refs))
	sort.Slice(all, func(i, j int) bool {
		if !all[i].last.Equal(all[j].last) {
			return all[i].last.After(all[j].last)
		}
		return bytes.Compare(all[i].id[:], all[j].id[:]) < 0
	})
	return all
}

// retainLocked drops what r does not keep; full repacks everything kept
// into one pack (gc), else packs that stay mostly alive are left alone
// (automatic retention).
func (m *Maintainer) retainLocked(tx *workspace.Tx, r Retention, full bool) (*GCReport, error) {
	rep := &GCReport{SnapshotsDropped: []store.ID{}}
	all := m.snapshotRefs(tx.History())
	now := time.Now()
	reach := snapshot.NewReach()
	var keptBytes int64
	// need gathers the objects snapshot id needs beyond those kept already,
	// and their stored bytes, in a child set kept only if id is (keepSnap).
	need := func(id store.ID) (*snapshot.Reach, int64, error) {
		added := reach.Child()
		var n int64
		err := added.Add(m.w.Objects(), id, func(oid snapshot.ID, _ bool) error {
			n += m.w.Objects().Size(oid)
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("gc: snapshot %s is damaged, nothing swept (run fsck): %w", id, err)
		}
		return added, n, nil
	}
	keep := map[store.ID]bool{}
	keepSnap := func(id store.ID, added *snapshot.Reach, n int64) {
		added.Commit()
		keptBytes += n
		keep[id] = true
	}
	// Pinned snapshots first: they stay whatever the budget.
	for _, ref := range all {
		if ref.pinned {
			added, n, err := need(ref.id)
			if err != nil {
				return nil, err
			}
			keepSnap(ref.id, added, n)
		}
	}
	unpinned := 0
	spent := false // the budget is spent: older snapshots are dropped
	limit := r.MaxBytes
	if !full && limit > 0 {
		// Automatic retention brings the store to three quarters of its
		// budget, or, when the pinned snapshots alone come near that, to
		// halfway between them and the budget, so that recent history
		// survives a budget the pinned snapshots nearly fill.
		limit = max(r.MaxBytes/4*3, keptBytes+(r.MaxBytes-keptBytes)/2)
	}
	grace := graceTime()
	for _, ref := range all {
		if ref.pinned {
			continue
		}
		if !full && now.Sub(ref.last) < grace {
			// Automatic retention keeps what the journal named within
			// the grace (the state a turn just ended in, the last
			// capture) whatever the budget, as it keeps the objects of
			// that age, so that what was just recorded can be rewound
			// to. A gc the person runs drops what its limits say.
			added, n, err := need(ref.id)
			if err != nil {
				return nil, err
			}
			keepSnap(ref.id, added, n)
			unpinned++
			continue
		}
		ok := !spent && (r.MaxSnapshots <= 0 || unpinned < r.MaxSnapshots) && (r.MaxAge <= 0 || now.Sub(ref.last) <= r.MaxAge)
		if ok {
			added, n, err := need(ref.id)
			if err != nil {
				return nil, err
			}
			if limit > 0 && keptBytes+n > limit {
				ok, spent = false, true
			} else {
				keepSnap(ref.id, added, n)
				unpinned++
			}
		}
		if !ok {
			rep.SnapshotsDropped = append(rep.SnapshotsDropped, ref.id)
		}
	}
	rep.SnapshotsKept = len(keep)
	if len(rep.SnapshotsDropped) > 0 {
		sort.Slice(rep.SnapshotsDropped, func(i, j int) bool {
			return bytes.Compare(rep.SnapshotsDropped[i][:], rep.SnapshotsDropped[j][:]) < 0
		})
		if err := tx.Append(journal.NewGC(rep.SnapshotsDropped)); err != nil {
			return nil, err
		}
	}
	repack := m.w.Objects().RepackSome
	if full {
		repack = m.w.Objects().Repack
	}
	rp, err := repack(reach.Has, grace)
	if err != nil {
		return nil, fmt.Errorf("gc: %w", err)
	}
	rep.ObjectsRemoved = rp.ObjectsRemoved
	rep.BytesFreed = max(0, rp.BytesBefore-rp.BytesAfter)
	rep.Damaged = append(rep.Damaged, rp.Damaged...)
	m.w.ResetCaches()
	rep.StoreBytes = StoreBytes(m.w.Dir())
	return rep, nil
}

// Problem is one piece of damage fsck found.
type Problem struct {
	What  string `json:"what"`  // "journal", "object", "snapshot"
	Where string `json:"where"` // a line, an object path, an entry
	// Err says what is wrong.
	Err string `json:"error"`
}

func (p Problem) String() string { return fmt.Sprintf("%s %s: %s", p.What, p.Where, p.Err) }

// FsckReport is what fsck found: damage, and notes that are no damage (a
// torn pack tail a crash left, which is ignored; a torn journal line an
// append set aside, named once).
type FsckReport struct {
	// Problems are the damage found.
	Problems []Problem `json:"problems"`
	Notes    []string  `json:"notes,omitempty"`
}

// FsckReport verifies every journal line, the view, every stored object
// against its ID, and that every snapshot the journal needs is whole.
func (m *Maintainer) FsckReport() (*FsckReport, error) {
	rep := &FsckReport{}
	ents, bad, err := m.w.Journal().ReadAll()
	if err != nil {
		return nil, err
	}
	for _, b := range bad {
		rep.Problems = append(rep.Problems, Problem{What: "journal", Where: fmt.Sprintf("%s line %d", m.w.Journal().Path(), b.Line), Err: b.Err.Error()})
	}
	repairs, err := m.w.Journal().Repairs()
	if err != nil {
		return nil, err
	}
	for _, r := range repairs {
		rep.Notes = append(rep.Notes, fmt.Sprintf("journal %s: repaired: a last line torn by a crash (%d bytes from byte %d) was set aside by the next append; its bytes are in %s",
			m.w.Journal().Path(), r.Bytes, r.Offset, r.File))
	}
	// The view must say what the journal says (it is built again when it
	// does not).
	vprobs, vnotes, err := m.w.Journal().CheckView()
	if err != nil {
		return nil, err
	}
	for _, p := range vprobs {
		rep.Problems = append(rep.Problems, Problem{What: "view", Where: m.w.Journal().Path(), Err: p})
	}
	rep.Notes = append(rep.Notes, vnotes...)
	h, err := m.w.Journal().History()
	if err != nil {
		return nil, err
	}
	vr, err := m.w.Objects().Verify()
	if err != nil {
		return nil, err
	}
	damaged := map[snapshot.ID]bool{}
	for _, p := range vr.Problems {
		if !p.ID.IsZero() {
			damaged[p.ID] = true
		}
		rep.Problems = append(rep.Problems, Problem{What: "object", Where: p.Where, Err: p.Err})
	}
	rep.Notes = append(rep.Notes, vr.Notes...)
	checked := map[store.ID]bool{}
	reach := snapshot.NewReach()
	for _, e := range ents {
		for _, sn := range []journal.Snap{e.Snapshot, e.UndoSnapshot} {
			if !sn.Set || checked[sn.ID] || h.Gone(sn) {
				continue
			}
			checked[sn.ID] = true
			err := reach.Add(m.w.Objects(), sn.ID, func(oid snapshot.ID, isTree bool) error {
				if !isTree && !m.w.Objects().Has(oid) {
					return &snapshot.DamagedError{ID: oid, Path: m.w.Objects().Dir(), Err: fmt.Errorf("missing")}
				}
				if damaged[oid] {
					return fmt.Errorf("needs damaged object %s", oid)
				}
				return nil
			})
			if err != nil {
				if de, ok := err.(*snapshot.DamagedError); ok && damaged[de.ID] {
					err = fmt.Errorf("needs damaged object %s", de.ID)
				}
				rep.Problems = append(rep.Problems, Problem{What: "snapshot", Where: fmt.Sprintf("%s (entry %s, %s)", sn.String()[:12], e.ID, e.Kind), Err: err.Error()})
			}
		}
	}
	return rep, nil
}

// StoreBytes is the disk space the store uses.
func StoreBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

package session

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// gcGrace keeps objects younger than this from being swept: they may
// belong to a capture in progress in another process.
const gcGrace = 10 * time.Minute

// pinnedRewinds is how many of the latest rewinds keep their undo snapshots.
const pinnedRewinds = 10

// GCReport says what gc dropped.
type GCReport struct {
	SnapshotsKept    int      `json:"snapshotsKept"`
	SnapshotsDropped []string `json:"snapshotsDropped"`
	ObjectsRemoved   int      `json:"objectsRemoved"`
	BytesFreed       int64    `json:"bytesFreed"`
}

// snapRef is one snapshot and the latest time an entry referenced it.
type snapRef struct {
	id     string
	last   time.Time
	pinned bool
}

// GC drops the content of snapshots beyond maxSnapshots (newest kept; 0 =
// no limit) or older than maxAge (0 = no limit). Labeled checkpoints, the
// undo snapshots of the latest rewinds, the open turn's start and the last
// recorded state are pinned. Journal entries stay; a gc entry marks the
// dropped snapshots gone.
func (s *Session) GC(maxSnapshots int, maxAge time.Duration) (*GCReport, error) {
	rep := &GCReport{SnapshotsDropped: []string{}}
	err := s.locked(func(l *Lock, h *History) error {
		refs := map[string]*snapRef{}
		ref := func(id string, t time.Time, pin bool) {
			if id == "" || h.Gone(id) {
				return
			}
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
		rewinds := 0
		for i := len(h.Entries) - 1; i >= 0; i-- {
			e := h.Entries[i]
			pin := e.Kind == KindCheckpoint && e.Label != ""
			ref(e.Snapshot, e.Time, pin)
			undoPin := false
			if e.Kind == KindRewind && rewinds < pinnedRewinds {
				rewinds++
				undoPin = true
			}
			ref(e.UndoSnapshot, e.Time, undoPin)
		}
		if b := h.Baseline(); b != "" {
			ref(b, time.Time{}, true)
		}
		for _, open := range h.OpenTurns() {
			ref(open.Snapshot, time.Time{}, true)
		}
		all := make([]*snapRef, 0, len(refs))
		for _, r := range refs {
			all = append(all, r)
		}
		sort.Slice(all, func(i, j int) bool { return all[i].last.After(all[j].last) })
		var keep []string
		now := time.Now()
		for i, r := range all {
			ok := r.pinned ||
				((maxSnapshots <= 0 || i < maxSnapshots) && (maxAge <= 0 || now.Sub(r.last) <= maxAge))
			if ok {
				keep = append(keep, r.id)
			} else {
				rep.SnapshotsDropped = append(rep.SnapshotsDropped, r.id)
			}
		}
		rep.SnapshotsKept = len(keep)
		if len(rep.SnapshotsDropped) > 0 {
			sort.Strings(rep.SnapshotsDropped)
			if err := l.Append(&Entry{Kind: KindGC, Gone: rep.SnapshotsDropped}); err != nil {
				return err
			}
		}
		// Mark what the kept snapshots reach, then sweep the rest.
		reach := map[snapshot.ID]bool{}
		for _, k := range keep {
			id, err := snapshot.ParseID(k)
			if err != nil {
				continue
			}
			err = snapshot.TreeObjects(s.objects, id, reach, func(snapshot.ID, bool) error { return nil })
			if err != nil {
				return fmt.Errorf("gc: snapshot %s is damaged, nothing swept (run fsck): %w", k, err)
			}
		}
		cutoff := now.Add(-gcGrace)
		err := s.objects.Walk(func(id snapshot.ID, size int64) error {
			if reach[id] {
				return nil
			}
			fi, err := os.Stat(s.objects.Path(id))
			if err != nil || fi.ModTime().After(cutoff) {
				return nil
			}
			if err := s.objects.Remove(id); err != nil {
				return fmt.Errorf("gc: %w", err)
			}
			rep.ObjectsRemoved++
			rep.BytesFreed += size
			return nil
		})
		if err != nil {
			return err
		}
		s.objects.Forget()
		s.capturer.Reset()
		return nil
	})
	return rep, err
}

// Problem is one piece of damage fsck found.
type Problem struct {
	What  string `json:"what"`  // "journal", "object", "snapshot"
	Where string `json:"where"` // a line, an object path, an entry
	Err   string `json:"error"`
}

func (p Problem) String() string { return fmt.Sprintf("%s %s: %s", p.What, p.Where, p.Err) }

// Fsck verifies every journal line, every stored object against its ID,
// and that every snapshot the journal needs is whole.
func (s *Session) Fsck() ([]Problem, error) {
	var probs []Problem
	ents, bad, err := s.journal.ReadAll()
	if err != nil {
		return nil, err
	}
	for _, b := range bad {
		probs = append(probs, Problem{What: "journal", Where: fmt.Sprintf("%s line %d", s.journal.Path(), b.Line), Err: b.Err.Error()})
	}
	h := NewHistory(ents)
	damaged := map[snapshot.ID]bool{}
	err = s.objects.Walk(func(id snapshot.ID, size int64) error {
		if _, err := s.objects.Get(id); err != nil {
			damaged[id] = true
			probs = append(probs, Problem{What: "object", Where: s.objects.Path(id), Err: err.Error()})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	checked := map[string]bool{}
	seen := map[snapshot.ID]bool{}
	for _, e := range h.Entries {
		for _, sn := range []string{e.Snapshot, e.UndoSnapshot} {
			if sn == "" || checked[sn] || h.Gone(sn) {
				continue
			}
			checked[sn] = true
			id, err := snapshot.ParseID(sn)
			if err != nil {
				probs = append(probs, Problem{What: "snapshot", Where: "entry " + e.ID, Err: err.Error()})
				continue
			}
			err = snapshot.TreeObjects(s.objects, id, seen, func(snapshot.ID, bool) error { return nil })
			if err != nil {
				if de, ok := err.(*snapshot.DamagedError); ok && damaged[de.ID] {
					err = fmt.Errorf("needs damaged object %s", de.ID)
				}
				probs = append(probs, Problem{What: "snapshot", Where: fmt.Sprintf("%s (entry %s, %s)", sn[:12], e.ID, e.Kind), Err: err.Error()})
			}
		}
	}
	return probs, nil
}

// StoreBytes is the disk space the store uses.
func (s *Session) StoreBytes() int64 {
	var n int64
	filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// SnapshotCount counts the distinct snapshots the journal holds (not gone).
func (h *History) SnapshotCount() int {
	set := map[string]bool{}
	for _, e := range h.Entries {
		for _, sn := range []string{e.Snapshot, e.UndoSnapshot} {
			if sn != "" && !h.gone[sn] {
				set[sn] = true
			}
		}
	}
	return len(set)
}

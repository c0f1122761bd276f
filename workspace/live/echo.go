package live

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// Telling an agent's changes from everyone else's: the editor's saves, a
// rewind's writes (and the editor's echoes of them), and changes a capture
// already recorded.

// expectation is the content a rewind or undo is about to give a path.
type expectation struct {
	gone   bool
	id     snapshot.ID
	kind   snapshot.Kind
	before snapshot.ID // the content before the rewind (zero: there was none)
	window time.Time   // until then the states on the way are the rewind's
	until  time.Time   // until then the target content is the rewind's
	// reached: the file was seen at its target (or the rewind wrote it
	// there itself); whatever it becomes next is someone's new change.
	reached bool
}

// decide opens or extends an automatic turn for a batch of changes.
func (t *Tracker) decide(b batch) {
	if b.full {
		t.pollCheck()
		return
	}
	agent := t.agentPaths(b.paths)
	isAgent := map[string]bool{}
	for _, p := range agent {
		isAgent[p] = true
	}
	t.mu.Lock()
	for _, p := range b.paths {
		if t.newest[p] != b.n {
			continue // a later batch brings it again: that one decides
		}
		delete(t.newest, p)
		if !isAgent[p] {
			t.cleared[p] = true
		}
	}
	t.mu.Unlock()
	if len(agent) > 0 {
		t.agentChanged(agent)
	}
}

// agentPaths keeps the paths whose current content is a new change (not
// what the latest capture saw, nor what a rewind or undo wrote) that the
// editor did not save either.
func (t *Tracker) agentPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		if t.agentChange(p) {
			out = append(out, p)
		}
	}
	return out
}

// writeSettle is how long an empty file is watched for the rest of a
// write: editors save in place (the file truncated, then written), and a
// change seen in between is no one's yet.
const writeSettle = 500 * time.Millisecond

// agentChange judges rel's content now. A file caught empty is looked at
// again until it fills (or writeSettle passes); a file that changes
// between two reads is judged again on what it became, so a save caught
// half-way is judged by what the editor saved.
func (t *Tracker) agentChange(rel string) bool {
	data, kind, isDir, ok := t.settledRead(rel)
	for i := 0; ; i++ {
		if !ok || !t.isNew(rel, data, kind, isDir) {
			return false
		}
		if !isDir && t.opts.IsEditor != nil && data != nil && !t.modeOnly(rel, data, kind) && t.opts.IsEditor(rel, data) {
			return false
		}
		// IsEditor may have waited: look again at what is there now.
		d2, k2, dir2, ok2 := t.settledRead(rel)
		if i == 3 || ok2 == ok && dir2 == isDir && k2 == kind && bytes.Equal(d2, data) {
			return ok2 && t.isNew(rel, d2, k2, dir2)
		}
		data, kind, isDir, ok = d2, k2, dir2, ok2
	}
}

// modeOnly reports whether rel holds what the latest capture recorded but
// with another kind (a chmod): no editor's save, whatever its buffer holds.
func (t *Tracker) modeOnly(rel string, data []byte, kind snapshot.Kind) bool {
	e, ok, err := snapshot.Lookup(t.s.Objects(), t.lastCaptured(), rel)
	return err == nil && ok && e.Kind != snapshot.KindSkipped && e.Kind != kind && e.ID == snapshot.Sum(data)
}

// settledRead is read, waiting (up to writeSettle) while rel is an empty
// file: most likely a write in progress.
func (t *Tracker) settledRead(rel string) (data []byte, kind snapshot.Kind, isDir, ok bool) {
	deadline := time.Now().Add(writeSettle)
	for {
		data, kind, isDir, ok = t.read(rel)
		if !ok || isDir || data == nil || len(data) > 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// read returns rel's content (a link's target; nil when it is gone) and
// kind (the executable bit counts: a chmod is a change), or that it is a
// folder; ok is false for an unreadable file.
func (t *Tracker) read(rel string) (data []byte, kind snapshot.Kind, isDir, ok bool) {
	if !snapshot.UnderFolders(t.s.Root(), rel) {
		return nil, 0, false, true // below a link: not in the workspace
	}
	abs := filepath.Join(t.s.Root(), filepath.FromSlash(rel))
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, false, true
	case err != nil:
		return nil, 0, false, false
	case fi.IsDir():
		return nil, 0, true, true
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		return []byte(target), snapshot.KindSymlink, false, err == nil
	}
	kind = snapshot.KindFile
	if fi.Mode()&0o111 != 0 {
		kind = snapshot.KindExec
	}
	data, err = os.ReadFile(abs)
	return data, kind, false, err == nil
}

// sameFile reports whether a recorded entry holds data with kind (a
// skipped entry's content is unknown: never the same).
func sameFile(e snapshot.Entry, data []byte, kind snapshot.Kind) bool {
	return data != nil && e.Kind != snapshot.KindSkipped && e.Kind == kind && e.ID == snapshot.Sum(data)
}

// isNew reports whether rel (data, or a folder) is a change nobody has
// recorded. A folder that came is new when a file in it is (snapshots hold
// no empty folder, and the files made in it before the watcher reached it
// have no event of their own), or when it took the place of a file whose
// removal is new; one that went, unless a rewind or undo removed files in
// it. A file that took the place of a folder is judged by its content, as
// any file is (the folder's files gone are changes of their own): that a
// rewind wrote in the folder says nothing of who made the file.
func (t *Tracker) isNew(rel string, data []byte, kind snapshot.Kind, isDir bool) bool {
	last := t.lastCaptured()
	wasDir := snapshot.IsDir(t.s.Objects(), last, rel)
	switch {
	case isDir && wasDir:
		return false
	case isDir:
		if t.newFileIn(rel) {
			return true
		}
		_, wasFile, err := snapshot.Lookup(t.s.Objects(), last, rel)
		return err == nil && wasFile && t.fileIsNew(last, rel, nil, 0)
	case wasDir && data == nil:
		return !t.rewindRemoves(rel)
	}
	return t.fileIsNew(last, rel, data, kind)
}

// fileIsNew is isNew for a file's content (data; nil: the file is gone),
// last being the latest capture.
func (t *Tracker) fileIsNew(last snapshot.ID, rel string, data []byte, kind snapshot.Kind) bool {
	if t.expectedWrite(rel, data, kind) || t.recorded(last, rel, data, kind) {
		return false
	}
	if h, err := t.s.History(); err == nil {
		// Another process — a second server, a hook, the command line —
		// may have recorded it already: the journal's last recorded state
		// holds it, though this process's last capture does not.
		if b := h.Baseline(); b.Set && b.ID != last && t.recorded(b.ID, rel, data, kind) {
			return false
		}
		if t.isRewindEcho(h, rel, data, kind) {
			return false
		}
	}
	return true
}

// newFileIn reports whether folder rel holds a file that is a new change
// (each judged as its own change would be), looking no further than the
// first.
func (t *Tracker) newFileIn(rel string) bool {
	found := false
	base := filepath.Join(t.s.Root(), filepath.FromSlash(rel))
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		sub, err := filepath.Rel(t.s.Root(), p)
		if err != nil {
			return nil
		}
		sub = filepath.ToSlash(sub)
		if data, kind, isDir, ok := t.read(sub); ok && !isDir && t.isNew(sub, data, kind, false) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// recorded reports whether rel already holds what the latest capture saw:
// a change a turn's end (or any capture) recorded before this batch was
// looked at is no new change.
func (t *Tracker) recorded(last snapshot.ID, rel string, data []byte, kind snapshot.Kind) bool {
	if last.IsZero() {
		return false
	}
	same, _ := t.holds(last, rel, data, kind)
	return same
}

// holds reports whether snapshot id holds data with kind at rel (data nil:
// nothing there); known is false when the snapshot cannot be read.
func (t *Tracker) holds(id snapshot.ID, rel string, data []byte, kind snapshot.Kind) (same, known bool) {
	e, ok, err := snapshot.Lookup(t.s.Objects(), id, rel)
	switch {
	case err != nil:
		return false, false
	case !ok:
		return data == nil, true
	}
	return sameFile(e, data, kind), true
}

// expect notes what a rewind or undo of this process is about to write, so
// those changes (and the editor's echoes of them) are never an agent's.
// Called again once the rewind is applied (done), the files already at
// their target are marked reached: an editor that applies a rewind later
// (it saves after it answered) still passes through the states on the way,
// a file written by the server itself does not. When every file is at its
// target, the rewind's writes become part of the last capture: a file put
// back as it was before is a change from the rewind's state.
func (t *Tracker) Expect(ops []snapshot.FileOp, done bool) {
	var at map[string]bool
	if done {
		at = map[string]bool{}
		changes := map[string]*snapshot.Entry{}
		for _, op := range ops {
			data, kind, isDir, ok := t.read(op.Path)
			if !ok || isDir {
				continue
			}
			if op.Change == fileop.Delete && data == nil {
				at[op.Path], changes[op.Path] = true, nil
				continue
			}
			e := snapshot.Entry{Kind: op.AfterKind, ID: snapshot.Sum(op.After), Size: int64(len(op.After))}
			if op.Change != fileop.Delete && sameFile(e, data, kind) {
				at[op.Path], changes[op.Path] = true, &e
			}
		}
		if len(at) == len(ops) {
			t.capMu.Lock()
			if id, ok := t.s.Capturer().Patch(changes); ok {
				t.Walked(id)
			}
			t.capMu.Unlock()
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	maps.DeleteFunc(t.expected, func(_ string, e expectation) bool { return now.After(e.until) })
	for _, op := range ops {
		e := expectation{gone: op.Change == fileop.Delete, id: snapshot.Sum(op.After), kind: op.AfterKind,
			window: now.Add(echoWindow), until: now.Add(time.Minute)}
		if op.Before != nil {
			e.before = snapshot.Sum(op.Before)
		}
		e.reached = at[op.Path]
		t.expected[op.Path] = e
	}
}

// echoWindow is how long after a rewind the states a file passes through
// while an editor applies it are taken for the rewind's own: an editor
// applies a rewind in steps (creates an empty file, fills its buffer, saves
// it later), so the file may still hold what it held before, be empty, or
// be gone for a while. Any other content is someone's new change — an
// agent writing the file right after the rewind — even within the window.
const echoWindow = 5 * time.Second

// EditorSaved tells the tracker that the editor saved rel (root-relative)
// with data: a file a rewind of this process gave the editor to apply is
// then at its target, and the states on the way are over, however late
// the change's decision comes (an agent deleting the file right after is
// the agent's).
func (t *Tracker) EditorSaved(rel string, data []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.expected[rel]; ok && !e.gone && e.id == snapshot.Sum(data) {
		e.reached = true
		t.expected[rel] = e
	}
}

// captured ends the expectations of paths a capture just recorded (all of
// them after a walk) whose rewind is done (reached): the capture holds
// whatever the file is now, and the file coming back to the rewind's
// target later is someone's new change (a chmod undone, say).
func (t *Tracker) captured(paths []string, full bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if full {
		maps.DeleteFunc(t.expected, func(_ string, e expectation) bool { return e.reached })
		return
	}
	for _, p := range paths {
		if e, ok := t.expected[p]; ok && e.reached {
			delete(t.expected, p)
		}
	}
}

// Ran notes that this process runs operation id (a journal entry's), so
// that its writes are judged by their expectations, not by the journal.
func (t *Tracker) Ran(id journal.EntryID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	maps.DeleteFunc(t.ranOps, func(_ journal.EntryID, at time.Time) bool { return now.Sub(at) > time.Minute })
	t.ranOps[id] = now
}

// ranHere reports whether this process ran operation id lately.
func (t *Tracker) ranHere(id journal.EntryID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.ranOps[id]
	return ok
}

func (t *Tracker) expectedWrite(rel string, data []byte, kind snapshot.Kind) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.expected[rel]
	if !ok || time.Now().After(e.until) {
		return false
	}
	if e.gone && data == nil || !e.gone && sameFile(snapshot.Entry{Kind: e.kind, ID: e.id}, data, kind) {
		e.reached = true
		t.expected[rel] = e
		return true
	}
	// The editor is still applying it.
	return !e.reached && time.Now().Before(e.window) && onTheWay(data, e.before)
}

// onTheWay reports whether data (nil: the file is gone) is a state a file
// passes through while an editor applies a rewind to it: still what it held
// before (before; zero when there was nothing), empty (created, not yet
// filled), or gone (deleted, not yet written). The target itself is
// checked by the caller.
func onTheWay(data []byte, before snapshot.ID) bool {
	return len(data) == 0 || !before.IsZero() && snapshot.Sum(data) == before
}

// rewindRemoves reports whether a recent rewind or undo (this process's
// or, from the journal, another's) removes files below folder rel, so the
// folder going is its doing. One that only writes files there does not
// remove the folder: a folder that goes (or becomes a file) after it is
// someone else's change.
func (t *Tracker) rewindRemoves(rel string) bool {
	prefix := rel + "/"
	now := time.Now()
	t.mu.Lock()
	for p, e := range t.expected {
		if e.gone && strings.HasPrefix(p, prefix) && now.Before(e.until) {
			t.mu.Unlock()
			return true
		}
	}
	t.mu.Unlock()
	h, err := t.s.History()
	if err != nil {
		return false
	}
	removes := false
	h.Recent(now.Add(-30*time.Second), func(e *journal.Entry) bool {
		if !e.Snapshot.Set || t.ranHere(e.ID) {
			return true // this process's own: its expectations know more
		}
		for _, f := range e.Files {
			if !strings.HasPrefix(f, prefix) {
				continue
			}
			if _, ok, err := snapshot.Lookup(t.s.Objects(), e.Snapshot.ID, f); err == nil && !ok {
				removes = true
				break
			}
		}
		return !removes
	})
	return removes
}

// isRewindEcho reports whether rel holds what a recent rewind or undo
// (from any process) made it, so the change is that rewind's, not an
// agent's. Only the files an operation changed are its echoes: a file it
// left alone that now matches its target (a file made since and deleted
// again, say) was changed by someone else.
func (t *Tracker) isRewindEcho(h *journal.History, rel string, data []byte, kind snapshot.Kind) bool {
	echo := false
	h.Recent(time.Now().Add(-30*time.Second), func(e *journal.Entry) bool {
		if !e.Snapshot.Set || !slices.Contains(e.Files, rel) {
			return true
		}
		if t.ranHere(e.ID) {
			return true // this process's own: its expectations know more
		}
		if time.Since(e.Time) < echoWindow {
			// Another process's rewind, perhaps still being applied.
			var before snapshot.ID
			if e.UndoSnapshot.Set {
				if ent, ok, err := snapshot.Lookup(t.s.Objects(), e.UndoSnapshot.ID, rel); err == nil && ok {
					before = ent.ID
				}
			}
			if onTheWay(data, before) {
				echo = true
				return false
			}
		}
		var known bool
		echo, known = t.holds(e.Snapshot.ID, rel, data, kind)
		return !known // its snapshot unreadable: an older operation may tell
	})
	return echo
}

package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// An operation is anything that changes files for the user: a rewind, a
// revert or an undo. Every operation takes the same path (run):
//
//  1. the state before it is captured (its undo snapshot) and the state it
//     leads to is stored, both before any file changes;
//  2. the operation is appended to the journal as pending (its intent);
//  3. the files change (the editor's WorkspaceEdit, or Writer on disk);
//  4. a done entry records how it ended.
//
// A crash between 2 and 4 leaves a pending operation without a done entry.
// The next command on the root (or a server start) finds it under the
// journal lock and finishes it (recover): the files still in their state
// from before are written, the ones already changed are left, and
// temporary files are removed. So an interrupted operation is never half
// done, never lost for undo, and never makes false conflicts.

// ApplyFunc carries out the file part of an operation. tag is a short name
// for the operation's temporary files. It returns a *NotAppliedError when
// the editor or the disk did not apply it.
type ApplyFunc func(ctx context.Context, label string, ops []snapshot.FileOp, tag string) error

// ApplyOnDisk is the ApplyFunc of the command line: Writer on the disk,
// then one sync.
func ApplyOnDisk(root string) ApplyFunc {
	return func(ctx context.Context, label string, ops []snapshot.FileOp, tag string) error {
		tr := snapshot.NewTracer("disk writes")
		defer tr.Done()
		w, err := snapshot.OpenWriter(root, tag)
		if err != nil {
			return err
		}
		defer w.Close()
		if err := w.Apply(ops); err != nil {
			return err
		}
		tr.Mark(fmt.Sprintf("%d files", len(ops)))
		err = w.Sync()
		tr.Mark("sync")
		return err
	}
}

// run carries out operation e (its kind and conversation fields filled
// in) for ops, from the current state res: steps 1–4 above. It fills out's
// Entry, Applied and FailureReason. An error means the outcome could not be
// recorded; a failure to apply is recorded and reported in out.
func (s *Workspace) run(tx *Tx, res *snapshot.Result, ops []snapshot.FileOp, e *journal.Entry,
	label string, apply ApplyFunc, out *Outcome) error {
	ctx := tx.ctx
	e.UndoSnapshot = journal.SnapOf(res.ID)
	e.Files = e.Files[:0]
	for _, op := range ops {
		e.Files = append(e.Files, op.Path)
	}
	after, err := s.patched(res.ID, ops)
	if err != nil {
		return err
	}
	tr := snapshot.NewTracer(string(e.Kind) + " steps")
	defer tr.Done()
	tr.Mark("target stored")
	e.Snapshot = journal.SnapOf(after)
	e.Pending = true
	if err := tx.Append(e); err != nil {
		return err
	}
	out.Entry = e
	tr.Mark("intent recorded")

	if t := s.Live(); t != nil {
		t.Ran(e.ID)
		t.Expect(ops, false)
		// The editor may take its time; the echoes come after.
		defer t.Expect(ops, true)
	}
	applyErr := apply(ctx, label, ops, string(e.ID[len(e.ID)-8:]))
	tr.Mark("applied")
	if err := fault("applied", e); err != nil {
		return err
	}
	var na *NotAppliedError
	switch {
	case applyErr == nil:
		out.Applied = true
		return tx.Append(journal.NewDone(e, true, e.Snapshot, ""))
	case errors.As(applyErr, &na):
		out.FailureReason = na.Reason
		return tx.Append(journal.NewDone(e, false, journal.Snap{}, na.Reason))
	case ctx.Err() == nil:
		if err := tx.Append(journal.NewDone(e, false, journal.Snap{}, applyErr.Error())); err != nil {
			return err
		}
	}
	// Failed, and recorded so; or cancelled (the process is stopping):
	// left to recovery, which finishes it from the intent.
	return fmt.Errorf("%s: %w", lower(label), applyErr)
}

// patched is snapshot id with ops applied (their after states): the state
// an operation leads to.
func (s *Workspace) patched(id snapshot.ID, ops []snapshot.FileOp) (snapshot.ID, error) {
	changes := map[string]*snapshot.Entry{}
	for _, op := range ops {
		if op.Change == fileop.Delete {
			changes[op.Path] = nil
			continue
		}
		oid, err := s.objects.Put(op.After)
		if err != nil {
			return snapshot.ID{}, err
		}
		changes[op.Path] = &snapshot.Entry{Kind: op.AfterKind, ID: oid, Size: int64(len(op.After))}
	}
	p, err := snapshot.PatchTree(s.objects, id, changes)
	if err != nil {
		return snapshot.ID{}, err
	}
	return p, s.objects.Sync()
}

func lower(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// recover finishes every interrupted operation (pending, no done entry)
// at the start of transaction tx: the files it changes that are still as
// they were before it are written, those already in their new state are
// left, and so are files someone else changed since (they show up as
// conflicts later, as any edit would). The operation is then recorded as
// done.
func (s *Workspace) recover(tx *Tx) error {
	for _, e := range tx.h.Unfinished() {
		if err := s.recoverOne(tx, e); err != nil {
			return fmt.Errorf("finish the interrupted %s %s: %w", e.Kind, e.ID, err)
		}
		tx.finished++
	}
	return nil
}

func (s *Workspace) recoverOne(tx *Tx, e *journal.Entry) error {
	h := tx.h
	done := journal.NewDone(e, true, e.Snapshot, "")
	done.Actor, done.Recovered = "recovery", true
	if !e.UndoSnapshot.Set || !e.Snapshot.Set || h.Gone(e.Snapshot) || h.Gone(e.UndoSnapshot) {
		f := false
		done.Applied, done.FailureReason, done.Snapshot = &f, "interrupted, and its snapshots are unreadable", journal.Snap{}
		return tx.Append(done)
	}
	before, after := e.UndoSnapshot.ID, e.Snapshot.ID
	res, err := s.capturer.Capture(tx.ctx, nil)
	if err != nil {
		return err
	}
	if t := s.Live(); t != nil {
		t.Walked(res.ID)
	}
	d, err := snapshot.Compare(s.objects, res.ID, after, &before, only(e.Files))
	if err != nil {
		return err
	}
	s.skipRefusedLinks(d)
	// Compare marks as conflicts the files that differ from the state
	// before the operation: those are in their new state already, or
	// someone changed them; either way they are left.
	var todo []snapshot.FileOp
	for _, op := range d.Ops {
		// An empty file where the operation writes content is its own
		// write half done: an editor's CreateFile before the text, an
		// editor's save cut short (saves write in place), or a file whose
		// new name reached the disk before its content did (the power went
		// before the operation's sync; Writer's contents are written out
		// only then).
		halfDone := op.Change == fileop.Modify && len(op.Before) == 0 && op.BeforeKind != snapshot.KindSymlink
		if !op.Conflict || halfDone {
			todo = append(todo, op)
		}
	}
	w, err := snapshot.OpenWriter(s.root, string(e.ID[len(e.ID)-8:]))
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.RemoveTemps(e.Files); err != nil {
		return err
	}
	if err := w.Apply(todo); err != nil {
		f := false
		done.Applied, done.FailureReason = &f, "interrupted, and finishing it failed: "+err.Error()
	} else {
		// A delete done before the interruption may have left its folders
		// (they are pruned just after the file goes).
		for _, p := range e.Files {
			if _, inAfter, err := snapshot.Lookup(s.objects, after, p); err == nil && !inAfter {
				if err := w.Prune(p); err != nil {
					return err
				}
			}
		}
	}
	if err := w.Sync(); err != nil {
		return err
	}
	if done.Applied != nil {
		done.Snapshot = journal.Snap{}
	}
	return tx.Append(done)
}

// One skeleton for every operation: a rewind, an undo, a revert and the
// completion of an agent's own rewind differ only in what they plan.
//
//  1. under the journal's lock (an operation a killed process left half
//     done finished first), a call already recorded under the request's
//     idempotency key answers what was recorded, without running again;
//     what the request asks is checked against the history (Check) before
//     anything is captured or recorded;
//  2. the current state is captured, with the editor's buffers;
//  3. every open turn ends with that state as its end, so each session's
//     work is recorded before files change — except the caller's own
//     turn (ownturn.go), which stays open;
//  4. the operation plans itself against the history and that state;
//  5. a plan refused (conflicts) records nothing; one with file changes
//     runs (run: pending, applied, done); one without is recorded as is;
//     what follows it (a report, a turn carried on) is appended after.

// opRequest is what every operation's request has.
type opRequest struct {
	Caller
	// Made accepts the entry this operation records (Kinds): a call whose
	// key names an earlier such entry was made already.
	Made func(*journal.Entry) bool
	// Own is the agent session whose open turn the operation may run in
	// (ownturn.go); Mode decides whether it does.
	Own  string
	Mode journal.Mode
	// EndTurns is false for what records no file change (a dry run, a
	// plan, a report).
	EndTurns bool
	// Check, when set, checks the request against the history before
	// anything happens: an error refuses it, skip does nothing.
	Check   func(h *journal.History) (skip bool, err error)
	Overlay snapshot.Overlay
	Apply   ApplyFunc
	// Then appends what follows operation e once it is recorded (a
	// report, a turn carried on), unless the journal holds it already: a
	// call retried after it was cut short completes it.
	Then func(tx *Tx, e *journal.Entry, out *Outcome) error
}

// opPlan is what one kind of operation decides under the lock.
type opPlan struct {
	out *Outcome
	// own is the agent's turn the operation runs in, which stays open
	// (InTurn), or nil.
	own *journal.Entry
	// entry is what to record (its kind, parent, target and mode); nil
	// records nothing.
	entry *journal.Entry
	label string // the title of the editor's edit
	// refused is why nothing is done (conflicts): out says so.
	refused string
}

// operate runs one operation (see above). plan is called in the
// transaction with the history, the current state, and the caller's own
// open turn (or nil); it returns nil for nothing to do.
func (s *Workspace) operate(ctx context.Context, r opRequest, plan func(tx *Tx, h *journal.History, res *snapshot.Result, own *journal.Entry) (*opPlan, error)) (*Outcome, error) {
	var out *Outcome
	tr := snapshot.NewTracer("operation")
	defer tr.Done()
	err := s.Update(ctx, r.Key, r.Made, func(tx *Tx) error {
		tr.Mark("lock and journal")
		h := tx.History()
		if e := tx.Recorded(); e != nil {
			if out = s.recorded(h, e, r.Via); r.Then != nil {
				return r.Then(tx, e, out)
			}
			return nil
		}
		if r.Check != nil {
			if skip, err := r.Check(h); skip || err != nil {
				return err
			}
		}
		res, err := tx.Capture(r.Overlay)
		if err != nil {
			return err
		}
		tr.Mark("capture")
		own := ownTurn(h, r.Own, r.Mode)
		if r.EndTurns {
			if err := tx.EndOpenTurns(res, r.Actor, func(open *journal.Entry) bool { return own == nil || open.ID != own.ID }); err != nil {
				return err
			}
		}
		p, err := plan(tx, tx.History(), res, own)
		tr.Mark("plan")
		if err != nil || p == nil {
			return err
		}
		out = p.out
		if p.refused != "" {
			out.FailureReason = p.refused
			return nil
		}
		e := p.entry
		if e == nil {
			return nil
		}
		e.Actor = r.Actor
		if p.own != nil && journal.IsOperation(e.Kind) && e.InTurn == "" {
			e.InTurn = p.own.ID
		}
		if out.Diff != nil && len(out.Diff.Ops) > 0 {
			if err := s.run(tx, res, out.Diff.Ops, e, p.label, r.Apply, out); err != nil {
				return err
			}
		} else {
			out.Applied, out.Entry = true, e
			if err := tx.Append(e); err != nil {
				return err
			}
		}
		if r.Then != nil {
			return r.Then(tx, e, out)
		}
		return nil
	})
	return out, err
}

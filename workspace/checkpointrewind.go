package workspace

import (
	"context"
	"fmt"
	"sort"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// An agent's own checkpoint tools, completed. oh-my-pi's checkpoint and
// rewind tools take its conversation back to the checkpoint and touch no
// file. Its hook records the checkpoint as the session's agent checkpoint
// (Checkpoint with Agent and Session) when checkpoint runs; when rewind
// runs, RewindToCheckpoint restores the files as the agent's own rewind:
//
//   - back to the session's active checkpoint (its latest agent checkpoint
//     on the branch that no rewind went back to yet);
//   - only the files the session's own tool calls changed since then: what
//     someone else changed alone is not the agent's to take back;
//   - a file someone else changed after the agent last wrote it (the
//     person, another session; an editor's save or unsaved buffer since
//     the checkpoint) is left alone and listed (Kept);
//   - recorded as an ordinary rewind with the agent's report (undoable,
//     announced, told to other sessions) in the session's open turn,
//     which stays open (ownturn.go).

// CheckpointRewindRequest asks for the files of session Session back at
// its active checkpoint.
type CheckpointRewindRequest struct {
	Session string
	Report  string
	Caller
}

// CheckpointRewindOutcome is what RewindToCheckpoint did: the plan (the
// files restored), the checkpoint gone back to (nil: the session had no
// active checkpoint, and nothing happened), and the files left alone.
type CheckpointRewindOutcome struct {
	Outcome
	Checkpoint *journal.Entry
	Kept       []string
}

// RewindToCheckpoint restores the files session req.Session changed since
// its active checkpoint (see above).
func (s *Workspace) RewindToCheckpoint(ctx context.Context, req CheckpointRewindRequest, overlay snapshot.Overlay, apply ApplyFunc) (*CheckpointRewindOutcome, error) {
	var cp *journal.Entry
	var kept []string
	r := opRequest{Caller: req.Caller, Made: Kinds(journal.KindRewind, journal.KindSummary),
		Own: req.Session, Mode: journal.ModeCode, EndTurns: true, Overlay: overlay, Apply: apply,
		Check: func(h *journal.History) (bool, error) {
			cp = activeCheckpoint(h, req.Session)
			if cp != nil && (!cp.Snapshot.Set || h.Gone(cp.Snapshot)) {
				return false, fmt.Errorf("checkpoint @%s of session %s: its snapshot was dropped by gc", cp.Label, req.Session)
			}
			return cp == nil, nil
		}}
	r.Then = func(tx *Tx, e *journal.Entry, out *Outcome) error {
		return appendSummary(tx, out, e, req.Report, req.Actor)
	}
	out, err := s.operate(ctx, r, func(_ *Tx, h *journal.History, res *snapshot.Result, own *journal.Entry) (*opPlan, error) {
		last := sessionWritesSince(h, cp, req.Session)
		d, err := snapshot.Compare(s.objects, res.ID, cp.Snapshot.ID, nil, func(p string) bool { _, ok := last[p]; return ok })
		if err != nil {
			return nil, fmt.Errorf("rewind to checkpoint @%s: %w", cp.Label, err)
		}
		var ops []snapshot.FileOp
		for _, op := range d.Ops {
			now, err := s.entryAt(res.ID, op.Path)
			if err != nil {
				return nil, err
			}
			wrote, err := s.entryAt(last[op.Path], op.Path)
			if err != nil {
				return nil, err
			}
			if now != wrote || req.Touched != nil && req.Touched(op.Path, cp.Time) {
				kept = append(kept, op.Path)
				continue
			}
			op.Conflict = false
			ops = append(ops, op)
		}
		sort.Strings(kept)
		spec := "@" + cp.Label
		t := &journal.Target{Spec: spec, Entry: cp, Snapshot: cp.Snapshot, Label: cp.Label, Prompt: cp.Goal}
		out := &Outcome{Target: t, Mode: journal.ModeCode, Diff: &snapshot.Diff{Ops: ops}}
		req.Via.decide(out.Diff)
		e := journal.NewRewind(h.Leaf(), spec, cp.ID, journal.ModeCode)
		e.Report, e.Kept = req.Report, kept
		return &opPlan{out: out, entry: e, label: label(t), own: own}, nil
	})
	if out == nil || err != nil {
		return nil, err
	}
	if out.Recorded {
		cp, kept = out.Target.Entry, out.Entry.Kept // retried: what the first call did
		out.Target.Prompt = cp.Goal
	}
	return &CheckpointRewindOutcome{Outcome: *out, Checkpoint: cp, Kept: kept}, nil
}

// activeCheckpoint is session sid's active checkpoint: its latest agent
// checkpoint on the branch that no rewind went back to since, or nil.
func activeCheckpoint(h *journal.History, sid string) *journal.Entry {
	cps := h.Session(sid, journal.KindCheckpoint)
	for i := len(cps) - 1; i >= 0; i-- {
		cp := cps[i]
		if !h.OnBranch(cp.ID) {
			continue
		}
		done := false
		h.After(cp, func(e *journal.Entry) bool {
			done = e.Kind == journal.KindRewind && e.TargetEntry == cp.ID && h.Applied(e)
			return !done
		})
		if done {
			return nil
		}
		return cp
	}
	return nil
}

// sessionWritesSince maps each file the tool calls of session sid changed
// after entry since to the state the session's last such call recorded.
func sessionWritesSince(h *journal.History, since *journal.Entry, sid string) map[string]snapshot.ID {
	last := map[string]snapshot.ID{}
	for _, e := range h.Session(sid, journal.KindTool) {
		if h.Index(e) <= h.Index(since) || e.Phase == journal.PhasePre || !e.Snapshot.Set || h.Gone(e.Snapshot) {
			continue
		}
		for _, p := range e.Files {
			last[p] = e.Snapshot.ID
		}
	}
	return last
}

package workspace

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/textdiff"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// RewindRequest describes a rewind.
type RewindRequest struct {
	Target string
	Mode   journal.Mode // "" = code
	Paths  []string     // root-relative; empty = all
	// Lines, when set (with exactly one path), limits the rewind to the
	// changed hunks touching lines Lines[0]..Lines[1] (0-based protocol
	// lines, as an LSP range counts them, in the
	// current content).
	Lines  *[2]int
	Force  bool
	Report string
	// OwnSince, an entry id, makes the changes since that entry the
	// caller's own (an agent rewinding to its checkpoint): they are no
	// conflicts, except files Touched says the editor saved since or holds
	// unsaved.
	OwnSince journal.EntryID
	Caller
}

// Outcome is a plan and, for a rewind, what happened.
type Outcome struct {
	Target          *journal.Target
	Mode            journal.Mode
	Diff            *snapshot.Diff
	EntriesAffected int
	Entry           *journal.Entry // the rewind or undo entry (nil when nothing was recorded)
	Applied         bool
	FailureReason   string
	// Recorded is set when the outcome comes from the journal: the call
	// was made before (same idempotency key) and is not run again.
	Recorded bool
}

// plan computes the outcome of req without changing anything; res is the
// current state, captured with the editor's buffers.
func (s *Workspace) plan(h *journal.History, res *snapshot.Result, req RewindRequest) (*Outcome, error) {
	t, mode, err := s.target(h, req)
	if err != nil {
		return nil, err
	}
	tid := t.Snapshot.ID
	var keep func(string) bool
	if len(req.Paths) > 0 {
		for _, p := range req.Paths {
			if !s.known(res.ID, p) && !s.known(tid, p) {
				return nil, &ArgError{Field: "paths", Msg: fmt.Sprintf("%s is not a file or folder of the current state nor of %s", p, req.Target)}
			}
		}
		// A folder stands for every file below it.
		named := only(req.Paths)
		keep = func(p string) bool {
			for q := p; ; q = path.Dir(q) {
				if named(q) {
					return true
				}
				if q == "." || q == "/" || !strings.Contains(q, "/") {
					return false
				}
			}
		}
	}
	out := &Outcome{Target: t, Mode: mode, Diff: &snapshot.Diff{}}
	if mode != journal.ModeConversation && mode != journal.ModeSummarize {
		d, err := snapshot.Compare(s.objects, res.ID, tid, baseline(h), keep)
		if err != nil {
			return nil, fmt.Errorf("plan rewind to %s: %w", req.Target, err)
		}
		out.Diff = d
	}
	if since := h.Entry(req.OwnSince); since != nil { // target checked it names one
		for i := range out.Diff.Ops {
			op := &out.Diff.Ops[i]
			// Whatever a recorded state says (an automatic turn may have
			// taken the person's save into its start), a file the editor
			// saved or holds unsaved since is theirs.
			op.Conflict = req.Touched != nil && req.Touched(op.Path, since.Time)
		}
	}
	ownConflicts(h, ownTurn(h, req.Session, mode), out.Diff, req.Touched)
	if req.Lines != nil {
		limitToHunks(out.Diff, req.Lines[0], req.Lines[1])
	}
	s.skipRefusedLinks(out.Diff)
	req.Via.decide(out.Diff)
	if mode != journal.ModeCode {
		out.EntriesAffected = h.Since(t.Point)
	}
	return out, nil
}

// target resolves a rewind's target, and checks what can be checked of
// the request before the current state is known.
func (s *Workspace) target(h *journal.History, req RewindRequest) (*journal.Target, journal.Mode, error) {
	mode, err := journal.ParseMode(string(req.Mode))
	if err != nil {
		return nil, mode, err
	}
	t, err := h.Resolve(req.Target)
	if err != nil {
		return nil, mode, err
	}
	if t.Step > 0 && mode.MovesConversation() {
		return nil, mode, &journal.UnknownTargetError{Spec: req.Target, Reason: fmt.Sprintf(
			"a step is inside its turn, and a conversation goes back to a turn's start or end: use mode code, or turn:%d / turn:%d:end", t.Turn, t.Turn)}
	}
	if h.Gone(t.Snapshot) {
		return nil, mode, fmt.Errorf("target %s: its snapshot was dropped by gc", req.Target)
	}
	if !t.Snapshot.Set {
		return nil, mode, fmt.Errorf("target %s recorded no state", req.Target)
	}
	if req.Lines != nil && len(req.Paths) != 1 {
		return nil, mode, fmt.Errorf("a range needs exactly one path (got %d)", len(req.Paths))
	}
	if req.OwnSince != "" && h.Entry(req.OwnSince) == nil {
		return nil, mode, &journal.UnknownTargetError{Spec: string(req.OwnSince), Reason: "ownSince names no entry"}
	}
	return t, mode, nil
}

// known reports whether snapshot id holds rel, as a file or a folder.
func (s *Workspace) known(id snapshot.ID, rel string) bool {
	if _, ok, err := snapshot.Lookup(s.objects, id, rel); err == nil && ok {
		return true
	}
	return snapshot.IsDir(s.objects, id, rel)
}

// limitToHunks keeps only the changed hunks overlapping the lines.
func limitToHunks(d *snapshot.Diff, first, last int) {
	var ops []snapshot.FileOp
	for _, op := range d.Ops {
		if op.Change != fileop.Modify || op.Binary || op.BeforeKind != op.AfterKind || op.AfterKind == snapshot.KindSymlink {
			continue // a hunk of a created, deleted, binary or link file is the whole file
		}
		cur := string(op.Before)
		after := textdiff.RevertHunks(op.Before, op.After,
			textdiff.LineOfProtocolLine(cur, first), textdiff.LineOfProtocolLine(cur, last))
		if string(after) == string(op.Before) {
			continue
		}
		op.After = after
		snapshot.FillOp(&op)
		ops = append(ops, op)
	}
	d.Ops = ops
}

// Preview returns the plan of req. overlay gives open editor buffers.
func (s *Workspace) Preview(ctx context.Context, req RewindRequest, overlay snapshot.Overlay) (*Outcome, error) {
	var out *Outcome
	tr := snapshot.NewTracer("preview")
	defer tr.Done()
	err := s.Update(ctx, "", nil, func(tx *Tx) error {
		tr.Mark("lock and journal")
		res, err := tx.Capture(overlay)
		if err != nil {
			return err
		}
		tr.Mark("capture")
		out, err = s.plan(tx.History(), res, req)
		tr.Mark("plan")
		return err
	})
	return out, err
}

// label is the title of a rewind's edit in the editor: "Rewind to turn 3
// (fix auth)", naming the target as the plan does.
func label(t *journal.Target) string {
	if t.Entry == nil && t.Turn == 0 && t.Label == "" {
		return "Rewind to " + t.Spec
	}
	kind, id := "", ""
	if t.Entry != nil {
		kind, id = string(t.Entry.Kind), string(t.Entry.ID)
		if t.Step > 0 {
			return "Rewind to " + words.StepTarget(t.Turn, t.Step, t.Entry.Tool, t.Entry.Detail)
		}
	}
	return "Rewind to " + words.Target(kind, t.Turn, t.Label, t.Prompt, id)
}

// Rewind rewinds files and/or the conversation, as its mode says. Open
// turns end first, so the agents' work is recorded, except the caller's
// own (ownturn.go). Conflicts refuse the rewind unless req.Force; the
// outcome then says why.
func (s *Workspace) Rewind(ctx context.Context, req RewindRequest, overlay snapshot.Overlay, apply ApplyFunc) (*Outcome, error) {
	mode, err := journal.ParseMode(string(req.Mode))
	if err != nil {
		return nil, err
	}
	r := opRequest{Caller: req.Caller, Made: Kinds(journal.KindRewind, journal.KindSummary),
		Own: req.Session, Mode: mode, EndTurns: mode != journal.ModeSummarize && mode != journal.ModePlan,
		Overlay: overlay, Apply: apply, Check: func(h *journal.History) (bool, error) { _, _, err := s.target(h, req); return false, err }}
	r.Then = func(tx *Tx, e *journal.Entry, out *Outcome) error {
		return appendSummary(tx, out, e, req.Report, req.Actor)
	}
	return s.operate(ctx, r, func(_ *Tx, h *journal.History, res *snapshot.Result, own *journal.Entry) (*opPlan, error) {
		out, err := s.plan(h, res, req)
		if err != nil || out.Mode == journal.ModePlan {
			return &opPlan{out: out}, err
		}
		t, leaf := out.Target, h.Leaf()
		if out.Mode == journal.ModeSummarize {
			e := journal.NewSummary(leaf, req.Target, t.Entry.ID, req.Report)
			e.EntriesAffected, e.Mode = out.EntriesAffected, out.Mode
			return &opPlan{out: out, entry: e}, nil
		}
		if out.Mode.ChangesFiles() {
			if cs := out.Diff.Conflicts(); len(cs) > 0 && !req.Force {
				return &opPlan{out: out, refused: conflictReason(cs)}, nil
			}
			if out.Mode == journal.ModeCode && len(out.Diff.Ops) == 0 {
				out.Applied = true // already there: nothing to change or record
				return &opPlan{out: out}, nil
			}
		}
		e := journal.NewRewind(leaf, req.Target, t.Entry.ID, out.Mode)
		e.Report, e.EntriesAffected, e.Turn, e.Step = req.Report, out.EntriesAffected, t.Turn, t.Step
		if out.Mode.MovesConversation() {
			e.Parent, e.PrevLeaf = t.Point, leaf
		}
		if !out.Mode.ChangesFiles() {
			out.Diff.Ops = nil // the conversation alone
		}
		return &opPlan{out: out, entry: e, label: label(t), own: own}, nil
	})
}

// appendSummary records, after operation e when it was applied, its
// report on the target it went back to.
func appendSummary(tx *Tx, out *Outcome, e *journal.Entry, report, actor string) error {
	if e.Kind != journal.KindRewind || !out.Applied || report == "" || follower(tx.History(), e, journal.KindSummary) != nil {
		return nil
	}
	sum := journal.NewSummary(e.ID, e.Target, e.TargetEntry, report)
	sum.Actor = actor
	return tx.Append(sum)
}

// recorded is the outcome of an operation the journal already holds (a
// call retried with the same idempotency key): what it did then, read back
// from the journal and its snapshots, without doing it again.
func (s *Workspace) recorded(h *journal.History, e *journal.Entry, via *ViaPolicy) *Outcome {
	out := &Outcome{Mode: e.Mode, Diff: &snapshot.Diff{}, Entry: e, Applied: true, Recorded: true}
	if e.Agent == "" {
		out.EntriesAffected = e.EntriesAffected // an agent's own rewind's plan says none
	}
	if journal.IsOperation(e.Kind) {
		out.Applied, out.FailureReason = h.Applied(e), h.FailureReason(e)
		for _, p := range e.Files {
			out.Diff.Ops = append(out.Diff.Ops, snapshot.FileOp{Path: p})
		}
		if e.UndoSnapshot.Set && e.Snapshot.Set && len(e.Files) > 0 {
			if d, err := snapshot.Compare(s.objects, e.UndoSnapshot.ID, e.Snapshot.ID, nil, only(e.Files)); err == nil {
				s.skipRefusedLinks(d)
				via.decide(d)
				out.Diff = d
			}
		}
	}
	out.Target = &journal.Target{Spec: e.Target, Entry: e, Snapshot: e.Snapshot, Turn: e.Turn}
	if op := h.Entry(e.Undoes); op != nil {
		out.Target = &journal.Target{Spec: op.UndoSnapshot.String(), Entry: op, Snapshot: op.UndoSnapshot, Turn: op.Turn}
	} else if t, err := h.Resolve(string(e.TargetEntry)); err == nil && e.TargetEntry != "" {
		t.Spec, out.Target = e.Target, t
	}
	return out
}

// follower is the entry of kind after operation e that names it as its
// parent (what the operation appends once it is recorded: a report, a turn
// carried on), or nil.
func follower(h *journal.History, e *journal.Entry, kind journal.Kind) (f *journal.Entry) {
	h.After(e, func(x *journal.Entry) bool {
		if x.Kind == kind && x.Parent == e.ID {
			f = x
		}
		return f == nil
	})
	return f
}

// baseline is the last recorded state, the base conflicts are told
// against (nil when there is none, or gc dropped it).
func baseline(h *journal.History) *snapshot.ID {
	if b := h.Baseline(); b.Set && !h.Gone(b) {
		return &b.ID
	}
	return nil
}

// only keeps the paths of files.
func only(files []string) func(string) bool {
	set := map[string]bool{}
	for _, p := range files {
		set[p] = true
	}
	return func(p string) bool { return set[p] }
}

func conflictReason(paths []string) string {
	sort.Strings(paths)
	shown := paths
	if len(shown) > 5 {
		shown = shown[:5]
	}
	more := ""
	if len(paths) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(paths)-len(shown))
	}
	noun := "file was"
	if len(paths) > 1 {
		noun = "files were"
	}
	return fmt.Sprintf("conflict: %d %s edited since rewind-lsp last recorded them (%s%s); rewind with force to overwrite them (undo can bring them back)",
		len(paths), noun, strings.Join(shown, ", "), more)
}

// UndoRequest describes an undo. An agent's own undo keeps its turn open;
// the editor's saves (Touched) stay conflicts.
type UndoRequest struct {
	Force bool
	Caller
}

// Undo takes back the latest operation still in effect (History.
// UndoCandidates: the latest rewind or revert, or when none is left the
// latest undo — a redo): its files go back to its undo snapshot and a
// conversation it moved goes back too. Files edited since the operation are
// conflicts, refused unless force. An undo is an operation itself, with its
// own undo snapshot. Open turns end first, as for a rewind, except the
// caller's own (ownturn.go).
func (s *Workspace) Undo(ctx context.Context, req UndoRequest, overlay snapshot.Overlay, apply ApplyFunc) (*Outcome, error) {
	r := opRequest{Caller: req.Caller, Made: Kinds(journal.KindUndo), Own: req.Session,
		Mode: journal.ModeCode, EndTurns: true, Overlay: overlay, Apply: apply}
	r.Check = func(h *journal.History) (bool, error) {
		any := false
		h.UndoCandidates(func(c *journal.Entry) bool {
			any = !(c.Kind == journal.KindRewind && c.Agent != "" && len(c.Files) == 0)
			return any
		})
		if !any {
			return false, errNothingToUndo
		}
		return false, nil
	}
	return s.operate(ctx, r, func(tx *Tx, h *journal.History, res *snapshot.Result, own *journal.Entry) (*opPlan, error) {
		var op *journal.Entry
		h.UndoCandidates(func(c *journal.Entry) bool {
			if !h.Applied(c) && !s.leftTrace(res, c) {
				return false // none of it was applied: nothing to undo there
			}
			if c.Kind == journal.KindRewind && c.Agent != "" && len(c.Files) == 0 {
				return false // an agent's own conversation rewind: not rewind-lsp's to undo
			}
			op = c
			return true
		})
		if op == nil {
			return nil, errNothingToUndo
		}
		out := &Outcome{Mode: op.Mode, Diff: &snapshot.Diff{}, Target: &journal.Target{Spec: op.UndoSnapshot.String(), Entry: op, Snapshot: op.UndoSnapshot, Turn: op.Turn}}
		// An undo moves the conversation back too, except an agent's own
		// rewind's: rewind-lsp cannot move the agent's conversation back.
		// Moving it takes it away from the caller's turn too: that turn
		// ends as well.
		moveLeaf := op.PrevLeaf != "" && op.Agent == ""
		if moveLeaf && own != nil {
			if err := tx.EndOpenTurns(res, req.Actor, nil); err != nil {
				return nil, err
			}
			h, own = tx.History(), nil
		}
		e := journal.NewUndo(h.Leaf(), op)
		if moveLeaf {
			e.Parent, e.PrevLeaf = op.PrevLeaf, h.Leaf()
		}
		p := &opPlan{out: out, entry: e, label: words.Undo(string(op.Kind), op.Turn, op.Step), own: own}
		if !op.UndoSnapshot.Set || len(op.Files) == 0 {
			return p, nil
		}
		if h.Gone(op.UndoSnapshot) {
			return nil, fmt.Errorf("undo: the undo snapshot of %s %s was dropped by gc", op.Kind, op.ID)
		}
		// Conflicts: files that differ from the last recorded state.
		d, err := snapshot.Compare(s.objects, res.ID, op.UndoSnapshot.ID, baseline(h), only(op.Files))
		if err != nil {
			return nil, fmt.Errorf("undo: %w", err)
		}
		ownConflicts(h, own, d, req.Touched)
		s.skipRefusedLinks(d)
		req.Via.decide(d)
		out.Diff = d
		if cs := d.Conflicts(); len(cs) > 0 && !req.Force {
			p.refused = conflictReason(cs)
		}
		return p, nil
	})
}

var errNothingToUndo = &RefusedError{Msg: "nothing to undo: no rewind, revert or undo is left that was not undone"}

// leftTrace reports whether an operation the editor did not (fully)
// apply left a trace: one of its files now holds what the operation would
// have written and not what it held before. A file changed since by
// anything else (a later turn) is no trace, and neither is anything when
// the snapshots to tell are gone.
func (s *Workspace) leftTrace(res *snapshot.Result, r *journal.Entry) bool {
	if !r.UndoSnapshot.Set || !r.Snapshot.Set || len(r.Files) == 0 {
		return false
	}
	fromTarget, err := snapshot.Compare(s.objects, res.ID, r.Snapshot.ID, nil, only(r.Files))
	if err != nil {
		return false
	}
	fromBefore, err := snapshot.Compare(s.objects, res.ID, r.UndoSnapshot.ID, nil, only(r.Files))
	if err != nil {
		return false
	}
	offTarget := map[string]bool{}
	for _, op := range fromTarget.Ops {
		offTarget[op.Path] = true
	}
	for _, op := range fromBefore.Ops {
		if !offTarget[op.Path] {
			return true // as the operation would have left it
		}
	}
	return false
}

package workspace

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/filehistory"
	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// ModeRevert is the mode a revert's plan reports.
const ModeRevert = "revert"

// RevertRequest describes a revert: the changes of one turn (Target) or of
// every turn of one agent session (Session) are taken back, and everything
// that happened after them is kept.
type RevertRequest struct {
	Target  string // a turn: "3", "turn:3", "~1", or its start or end entry id
	Session string // instead of Target: every ended turn of this session
	Paths   []string
	// Lines, with exactly one path, limits the revert to the turn's hunks
	// touching lines Lines[0]..Lines[1] (0-based protocol lines of the
	// current content).
	Lines  *[2]int
	DryRun bool
	// Caller's Session is the agent session the request comes from: not
	// the session whose turns are reverted, which is Session.
	Caller
}

// RevertConflict is a file of a revert that later changes overlap.
type RevertConflict struct {
	Path   string
	Change fileop.Change // what reverting it would do: modify, create or delete
	// Overlaps names who overlapped the turn's change: "turn N" or "user".
	Overlaps []string
}

// RevertOutcome is the plan of a revert and, once run, what happened.
type RevertOutcome struct {
	Outcome
	Turns     []filehistory.Span // the reverted turns (or the one step), oldest first
	Conflicts []RevertConflict
}

// revertTurns selects the spans of req, oldest first: its turns, or the
// one step it names. A turn still open is taken up to res (the current
// state): its end is not recorded yet (with res nil it is left without a
// state after it).
func revertTurns(h *journal.History, res *snapshot.Result, req RevertRequest) ([]filehistory.Span, *journal.Target, error) {
	var now *journal.Snap
	if res != nil {
		snap := journal.SnapOf(res.ID)
		now = &snap
	}
	if req.Session != "" {
		var ts []filehistory.Span
		var last *journal.Entry
		for _, start := range h.Session(req.Session, journal.KindTurnStart) {
			if h.OnBranch(start.ID) {
				ts, last = append(ts, filehistory.TurnSpan(h.TurnOf(start), now)), start
			}
		}
		if len(ts) == 0 {
			return nil, nil, &ArgError{Field: "session", Msg: fmt.Sprintf("no turn on the active branch belongs to session %q", req.Session)}
		}
		return ts, &journal.Target{Spec: "session:" + req.Session, Entry: last, Snapshot: ts[0].Before}, nil
	}
	t, err := h.Resolve(req.Target)
	if err != nil {
		return nil, nil, err
	}
	if t.Step > 0 {
		// One step: its changes, from the state before it to its own.
		sp := filehistory.StepSpan(t.Turn, t.Prompt, t.Entry)
		return []filehistory.Span{sp}, &journal.Target{Spec: req.Target, Entry: t.Entry, Snapshot: sp.Before, Turn: t.Turn, Step: t.Step, Prompt: t.Prompt}, nil
	}
	if t.Turn == 0 || t.Entry == nil || (t.Entry.Kind != journal.KindTurnStart && t.Entry.Kind != journal.KindTurnEnd) {
		return nil, nil, &journal.UnknownTargetError{Spec: req.Target, Reason: "a revert takes back one turn or one step: name a turn (3, turn:3, ~1), a step (3.2) or a session"}
	}
	if x, ok := h.Turn(t.Turn); ok {
		return []filehistory.Span{filehistory.TurnSpan(x, now)}, &journal.Target{Spec: req.Target, Entry: x.Start, Snapshot: x.Start.Snapshot, Turn: x.Number, Prompt: x.Start.Prompt}, nil
	}
	return nil, nil, &journal.UnknownTargetError{Spec: req.Target, Reason: "that turn is not on the active branch"}
}

// planRevert computes the revert of req against res (the current state,
// with the editor's buffers) without changing anything; Revert checked
// req's range first.
func (s *Workspace) planRevert(h *journal.History, res *snapshot.Result, req RevertRequest) (*RevertOutcome, error) {
	turns, target, err := revertTurns(h, res, req)
	if err != nil {
		return nil, err
	}
	for _, t := range turns {
		if t.Gone(h) {
			return nil, fmt.Errorf("turn %d: its snapshots were dropped by gc", t.Turn)
		}
	}
	// What each turn changed, limited to req.Paths.
	want := only(req.Paths)
	changed := make([][]string, len(turns))
	all := map[string]bool{}
	for i, t := range turns {
		ds, err := snapshot.DiffTrees(s.objects, t.Before.ID, t.After.ID)
		if err != nil {
			return nil, fmt.Errorf("revert turn %d: %w", t.Turn, err)
		}
		for _, d := range ds {
			if t.Attributed() && !t.Wrote(d.Path) {
				continue // another session's or the person's, during the turn
			}
			if len(req.Paths) == 0 || want(d.Path) {
				changed[i] = append(changed[i], d.Path)
				all[d.Path] = true
			}
		}
	}
	for _, p := range req.Paths {
		if !all[p] {
			return nil, &ArgError{Field: "paths", Msg: fmt.Sprintf("%s is not a file %s changed", p, turnsName(turns))}
		}
	}

	// Take the turns back newest first, each against what the newer ones
	// left, so a session's later turns never count against its earlier ones.
	now := map[string]filehistory.Version{}
	orig := map[string]filehistory.Version{}
	current := func(p string) (filehistory.Version, error) {
		if v, ok := now[p]; ok {
			return v, nil
		}
		v, err := filehistory.Load(s.objects, res.ID, p)
		if err != nil {
			return v, fmt.Errorf("revert %s: current content: %w", p, err)
		}
		now[p], orig[p] = v, v
		return v, nil
	}
	conflicted := map[string]*RevertConflict{}
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		for _, p := range changed[i] {
			if conflicted[p] != nil {
				continue
			}
			ours, err := current(p)
			if err != nil {
				return nil, err
			}
			base, err := filehistory.Load(s.objects, t.After.ID, p)
			if err != nil {
				return nil, fmt.Errorf("revert %s: content at the end of turn %d: %w", p, t.Turn, err)
			}
			theirs, err := filehistory.Load(s.objects, t.Before.ID, p)
			if err != nil {
				return nil, fmt.Errorf("revert %s: content at the start of turn %d: %w", p, t.Turn, err)
			}
			merged, regions, ok := filehistory.RevertFile(base, ours, theirs, req.Lines)
			if ok {
				now[p] = merged
				continue
			}
			c := &RevertConflict{Path: p, Change: filehistory.ChangeOf(ours, theirs)}
			c.Overlaps, err = filehistory.Overlappers(s.objects, h, p, t, regions, orig[p])
			if err != nil {
				return nil, err
			}
			conflicted[p] = c
		}
	}

	out := &RevertOutcome{Outcome: Outcome{Target: target, Mode: ModeRevert, Diff: &snapshot.Diff{}}, Turns: turns}
	for _, p := range slices.Sorted(maps.Keys(now)) {
		if c := conflicted[p]; c != nil {
			out.Conflicts = append(out.Conflicts, *c)
			continue
		}
		before, after := orig[p], now[p]
		if before.Same(after) {
			continue
		}
		op := snapshot.FileOp{Path: p, Before: before.Data, After: after.Data, BeforeKind: before.Kind, AfterKind: after.Kind}
		switch {
		case !before.Exists:
			op.Change, op.Before, op.BeforeKind = fileop.Create, nil, 0
		case !after.Exists:
			op.Change, op.After, op.AfterKind = fileop.Delete, nil, 0
		default:
			op.Change = fileop.Modify
		}
		snapshot.FillOp(&op)
		out.Diff.Ops = append(out.Diff.Ops, op)
	}
	if len(out.Conflicts) > 0 {
		out.FailureReason = revertConflictReason(turns, out.Conflicts)
	}
	return out, nil
}

// turnsName names the reverted turns for messages.
func turnsName(ts []filehistory.Span) string {
	if len(ts) == 1 && ts[0].Step > 0 {
		return words.StepName(ts[0].Turn, ts[0].Step, "", "")
	}
	nums := make([]int, len(ts))
	for i, t := range ts {
		nums[i] = t.Turn
	}
	return words.Turns(nums)
}

// revertConflictReason is the failureReason of a revert refused for
// conflicts: each file and who overlapped it.
func revertConflictReason(ts []filehistory.Span, cs []RevertConflict) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s (changed since by %s)", c.Path, strings.Join(c.Overlaps, ", "))
	}
	noun := "file"
	if len(cs) > 1 {
		noun = "files"
	}
	return fmt.Sprintf("conflict: later changes overlap what %s changed in %d %s: %s; nothing was changed (narrow the revert with paths or a range)",
		turnsName(ts), len(cs), noun, strings.Join(parts, "; "))
}

// revertLabel is the title of a revert's edit in the editor.
func revertLabel(ts []filehistory.Span, sessionID string) string {
	if sessionID != "" {
		return fmt.Sprintf("Revert %s (%s)", words.SessionTurns(sessionID), turnsName(ts))
	}
	if t := ts[0]; t.Step > 0 {
		return "Revert " + words.StepName(t.Turn, t.Step, t.End.Tool, t.End.Detail)
	}
	return "Revert " + words.Target(string(journal.KindTurnStart), ts[0].Turn, "", ts[0].Prompt, string(ts[0].ID))
}

// Revert takes back the changes of one turn, or of every turn of one
// session, keeping everything that happened after them. Any overlap with a
// later change refuses the whole revert (the outcome names the files and
// who overlapped them); otherwise it is an operation like a rewind
// (operation.go): every open turn is ended first, the current state
// becomes the undo snapshot, the revert entry is recorded as pending before
// the files change through apply, and undo takes it back. With DryRun only
// the plan is computed.
func (s *Workspace) Revert(ctx context.Context, req RevertRequest, overlay snapshot.Overlay, apply ApplyFunc) (*RevertOutcome, error) {
	var out *RevertOutcome
	r := opRequest{Caller: req.Caller, Made: Kinds(journal.KindRevert), Own: req.Caller.Session,
		Mode: journal.ModeCode, EndTurns: !req.DryRun, Overlay: overlay, Apply: apply}
	if req.DryRun {
		r.Key = "" // a dry run records nothing, and is never a retry
	}
	r.Check = func(h *journal.History) (bool, error) {
		if req.Lines != nil && len(req.Paths) != 1 {
			return false, &ArgError{Field: "range", Msg: fmt.Sprintf("needs exactly one path (got %d)", len(req.Paths))}
		}
		_, _, err := revertTurns(h, &snapshot.Result{}, req)
		return false, err
	}
	o, err := s.operate(ctx, r, func(_ *Tx, h *journal.History, res *snapshot.Result, own *journal.Entry) (*opPlan, error) {
		var err error
		if out, err = s.planRevert(h, res, req); err != nil {
			return nil, err
		}
		s.skipRefusedLinks(out.Diff)
		req.Via.decide(out.Diff)
		p := &opPlan{out: &out.Outcome, own: own}
		if req.DryRun || len(out.Conflicts) > 0 {
			return p, nil // the reason of a refusal is the plan's
		}
		if len(out.Diff.Ops) == 0 {
			out.Applied = true // already taken back: nothing to change or record
			return p, nil
		}
		t := out.Turns[len(out.Turns)-1]
		e := journal.NewRevert(h.Leaf(), out.Target.Spec, t.ID)
		e.Session = req.Session
		if req.Session == "" {
			e.Turn, e.Step = t.Turn, t.Step
		}
		p.entry, p.label = e, revertLabel(out.Turns, req.Session)
		return p, nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		// Made before (the same idempotency key): what it did then.
		return &RevertOutcome{Outcome: *o}, nil
	}
	return out, nil
}

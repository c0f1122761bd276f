package workspace

import (
	"context"
	"fmt"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// An agent's own rewind, completed. Claude Code rewinds its conversation
// (and, if asked, the files its Edit and Write tools wrote) without telling
// anyone: no hook runs. The next prompt is noticed continuing from an
// earlier point of the session (agent.OwnRewinder); its turn is open by
// then. CompleteAgentRewind records what happened and finishes the job:
//
//   - a rewind entry (Agent set) moves the conversation back to the start
//     of the earliest dropped turn, in the session that continues: the
//     same one, or a fork of it (Claude Code's --fork-session, /branch),
//     whose dropped turns are the original session's; the open turn carries on after it as a
//     new turn start (Continues), the same prompt, so later turns number
//     from there as in the agent;
//   - if the agent restored its tracked files (one of them was changed by
//     the dropped turns and is back at the dropped turn's start), the rest
//     of what the session's dropped turns changed — shell edits included —
//     is restored too, as an ordinary operation (undo snapshot, pending
//     intent, done entry): files someone else changed since (the person,
//     another session, the new prompt) are left alone and listed (Kept);
//   - if it restored nothing, no file changes: Offered lists the files a
//     code rewind to that turn would restore, for the editors to offer.

// AgentRewindRequest describes an agent's own rewind noticed at a hook
// event of session Session.
type AgentRewindRequest struct {
	Agent   string
	Session string
	// Turn is the session's open turn (its start entry), whose prompt
	// continues from the earlier point; Dropped is the start entry of the
	// earliest turn whose prompt the rewind dropped: a turn of the session,
	// or, when the session is a fork, of the agent's session it was
	// forked from.
	Turn, Dropped journal.EntryID
	// Tracked are the root-relative files the agent itself restores at the
	// dropped turn (Claude Code: the dropped prompt's file-history
	// snapshot).
	Tracked []string
	// RestoresAll says the agent restores every file the dropped turns
	// changed, shell edits included (opencode's and Kilo's undo restore
	// their own snapshot of the worktree): they are its tracked files.
	RestoresAll bool
	Caller
}

// AgentRewindOutcome is what CompleteAgentRewind recorded.
type AgentRewindOutcome struct {
	Outcome
	// Restored says whether the agent had restored its own files (then
	// Diff holds what rewind-lsp restored besides).
	Restored bool
	// Turn is the turn start that carries the session's open turn on.
	Turn *journal.Entry
}

// CompleteAgentRewind records and completes an agent's own rewind (see
// above). It does nothing (nil outcome) when the session's open turn is no
// longer req.Turn, or when the rewind was recorded already.
func (s *Workspace) CompleteAgentRewind(ctx context.Context, req AgentRewindRequest, overlay snapshot.Overlay, apply ApplyFunc) (*AgentRewindOutcome, error) {
	var restored bool
	var turn *journal.Entry
	// The session's turn stays open (the agent is in it), as an agent's
	// own operation's does; other sessions' turns end first, as for any
	// conversation rewind: the branch they are on is left.
	r := opRequest{Caller: req.Caller, Made: AgentRewound, Own: req.Session, Mode: journal.ModeCode,
		EndTurns: true, Overlay: overlay, Apply: apply}
	r.Check = func(h *journal.History) (bool, error) {
		open, dropped := h.OpenTurnOf(req.Session), h.Entry(req.Dropped)
		if open == nil || open.ID != req.Turn || open.Continues != "" {
			return true, nil // moved on, or done already
		}
		if dropped == nil || dropped.Kind != journal.KindTurnStart || dropped.Session != req.Session && (req.Agent == "" || dropped.Agent != req.Agent) || !h.OnBranch(dropped.ID) ||
			dropped.Turn >= open.Turn || !dropped.Snapshot.Set || h.Gone(dropped.Snapshot) {
			return false, fmt.Errorf("agent rewind of session %s: %s is not an earlier turn of that session or of the one it was forked from", req.Session, req.Dropped)
		}
		return false, nil
	}
	r.Then = func(tx *Tx, e *journal.Entry, out *Outcome) error {
		// The open turn carries on after the rewind: its start state is
		// the one it had, with what the rewind restored. (A call retried
		// may not name it: it is the session's last turn before the rewind.)
		h := tx.History()
		open := h.Entry(req.Turn)
		for _, t := range h.Session(req.Session, journal.KindTurnStart) {
			if req.Turn == "" && h.Index(t) < h.Index(e) {
				open = t
			}
		}
		if turn = follower(h, e, journal.KindTurnStart); open == nil || turn != nil {
			return nil
		}
		start := open.Snapshot.ID
		if out.Applied && len(out.Diff.Ops) > 0 {
			var err error
			if start, err = s.patched(start, out.Diff.Ops); err != nil {
				return err
			}
		}
		turn = journal.NewTurnStart(e.ID, tx.History().NextTurn(), open.Session, open.Source, journal.SnapOf(start))
		turn.Actor, turn.Prompt, turn.Agent, turn.Transcript = req.Actor, open.Prompt, open.Agent, open.Transcript
		turn.ForkPoint, turn.PromptID, turn.Continues = open.ForkPoint, open.PromptID, open.ID
		return tx.Append(turn)
	}
	out, err := s.operate(ctx, r, func(_ *Tx, h *journal.History, res *snapshot.Result, open *journal.Entry) (*opPlan, error) {
		dropped := h.Entry(req.Dropped)
		scope := droppedWrites(h, dropped, open)
		before := stateBefore(h, open)
		target := dropped.Snapshot.ID
		var err error
		tracked := req.Tracked
		if req.RestoresAll {
			for p := range scope {
				tracked = append(tracked, p)
			}
		}
		if restored, err = s.agentRestored(tracked, before, open.Snapshot, target); err != nil {
			return nil, err
		}
		keep := func(p string) bool { return scope[p] }
		d, err := snapshot.Compare(s.objects, res.ID, target, before, keep)
		if err != nil {
			return nil, fmt.Errorf("agent rewind to turn %d: %w", dropped.Turn, err)
		}
		// The target is written as the dropped turn's entry id: after this
		// rewind its number names the new prompt.
		out := &Outcome{Target: &journal.Target{Spec: string(dropped.ID), Entry: dropped, Snapshot: dropped.Snapshot, Turn: dropped.Turn,
			Prompt: dropped.Prompt, Point: dropped.Parent}, Diff: &snapshot.Diff{}, Mode: journal.ModeConversation}
		e := journal.NewRewind(dropped.Parent, string(dropped.ID), dropped.ID, journal.ModeConversation)
		e.PrevLeaf, e.Agent, e.Session, e.Turn, e.EntriesAffected = h.Leaf(), req.Agent, req.Session, dropped.Turn, h.Since(dropped.Parent)
		var ops []snapshot.FileOp
		for _, op := range d.Ops {
			switch {
			case !restored:
				e.Offered = append(e.Offered, op.Path)
			case op.Conflict:
				e.Kept = append(e.Kept, op.Path)
			default:
				ops = append(ops, op)
			}
		}
		if restored {
			e.Mode, out.Mode = journal.ModeBoth, journal.ModeBoth
			out.Diff.Ops = ops
			req.Via.decide(out.Diff)
		}
		return &opPlan{out: out, entry: e, label: agentLabel(req.Agent, dropped)}, nil
	})
	if out == nil || err != nil {
		return nil, err
	}
	if out.Recorded {
		restored = out.Entry.Mode == journal.ModeBoth // retried: what the first call did
	}
	return &AgentRewindOutcome{Outcome: *out, Restored: restored, Turn: turn}, nil
}

// AgentRewound accepts the entries of agents' own rewinds.
func AgentRewound(e *journal.Entry) bool { return e.Kind == journal.KindRewind && e.Agent != "" }

// agentLabel is the title of the edit that completes an agent's rewind.
func agentLabel(agent string, dropped *journal.Entry) string {
	return words.CompleteRewind(agent, words.Target(string(dropped.Kind), dropped.Turn, "", dropped.Prompt, string(dropped.ID)))
}

// droppedWrites is the set of files the turns from dropped up to open
// (exclusive) of dropped's session and of open's (a fork's own turns before
// its rewind) wrote, on the active branch.
func droppedWrites(h *journal.History, dropped, open *journal.Entry) map[string]bool {
	scope := map[string]bool{}
	for _, t := range h.TurnsBetween(dropped, open) {
		if t.Start.Session != dropped.Session && t.Start.Session != open.Session || t.End == nil {
			continue
		}
		if t.End.Attributed {
			for _, p := range t.End.Wrote {
				scope[p] = true
			}
			continue
		}
		for _, c := range t.End.Changed {
			scope[c.Path] = true
		}
	}
	return scope
}

// stateBefore is the last state recorded before open's prompt that is not
// open's own start state (a turn that ends at the next prompt ends with the
// same capture): the files as the dropped turns left them, before the
// agent's rewind. nil when nothing was recorded.
func stateBefore(h *journal.History, open *journal.Entry) *snapshot.ID {
	var out *snapshot.ID
	h.Before(open, func(e *journal.Entry) bool {
		if !e.Snapshot.Set || e.Snapshot == open.Snapshot || h.Gone(e.Snapshot) || e.Pending {
			return true
		}
		switch {
		case e.Kind == journal.KindDone && (e.Applied == nil || *e.Applied),
			e.Kind == journal.KindTurnStart, e.Kind == journal.KindTurnEnd, e.Kind == journal.KindCheckpoint,
			e.Kind == journal.KindTool, journal.IsOperation(e.Kind) && h.Done(e.ID) == nil:
			id := e.Snapshot.ID
			out = &id
			return false
		}
		return true
	})
	return out
}

// agentRestored reports whether the agent restored its own files: one of
// tracked that the dropped turns had changed (before differs from target)
// is back at the target in the open turn's start state (the state right
// after the agent's rewind, when the new prompt was sent).
func (s *Workspace) agentRestored(tracked []string, before *snapshot.ID, start journal.Snap, target snapshot.ID) (bool, error) {
	if before == nil {
		return false, nil
	}
	for _, p := range tracked {
		b, err := s.entryAt(*before, p)
		if err != nil {
			return false, err
		}
		t, err := s.entryAt(target, p)
		if err != nil {
			return false, err
		}
		if b == t {
			continue // the dropped turns left it as it was
		}
		now, err := s.entryAt(start.ID, p)
		if err != nil {
			return false, err
		}
		if now == t {
			return true, nil
		}
	}
	return false, nil
}

// entryAt is rel's entry in snapshot id (the zero Entry when it is absent).
func (s *Workspace) entryAt(id snapshot.ID, rel string) (snapshot.Entry, error) {
	e, ok, err := snapshot.Lookup(s.objects, id, rel)
	if err != nil || !ok {
		return snapshot.Entry{}, err
	}
	return e, nil
}

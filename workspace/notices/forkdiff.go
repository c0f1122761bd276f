package notices

import (
	"context"
	"slices"

	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/words"
	"github.com/rewind-lsp/rewind-lsp/workspace"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// A conversation fork resumes an agent's conversation from an earlier
// point. After a rewind of mode conversation the files stayed as they
// were, so the fork's first prompt is told which files differ on disk from
// its fork point and who changed them — "turn N" (any session's turn, on
// whatever branch), "rewind", "revert" or "undo", else "user" — so the
// agent re-reads them. After mode both the files were restored with it and
// there is normally nothing to tell.

// ForkDiff is what changed on disk since a fork's fork point.
type ForkDiff struct {
	// Target is the fork point: the start or the end of a turn.
	Target *journal.Entry
	// Files are the paths that differ now from the fork point, sorted; By
	// names, for each, who changed it since, in order.
	Files []string
	By    map[string][]string
}

// RecordFork appends the session entry of a conversation fork made by
// rewind (a rewind of mode conversation or both): a new agent session
// whose conversation continues from the rewind's target.
func RecordFork(w Updater, sessionID, actor, agent, transcript string, rewind *journal.Entry) (*journal.Entry, error) {
	var out *journal.Entry
	err := w.Update(context.Background(), "", nil, func(tx *workspace.Tx) error {
		out = journal.NewSession(tx.History().Leaf(), sessionID, journal.SourceRewindFork)
		out.Actor, out.Agent, out.Transcript, out.TargetEntry, out.Mode = actor, agent, transcript, rewind.TargetEntry, rewind.Mode
		return tx.Append(out)
	})
	return out, err
}

// forkDiff compares the state at fork's fork point with the state at the
// latest turn start of session sid (its first prompt, just recorded), or
// the last recorded state when it has none.
func forkDiff(objs *snapshot.Objects, h *journal.History, fork *journal.Entry, sid string) (*ForkDiff, error) {
	target := h.Entry(fork.TargetEntry)
	if target == nil || !target.Snapshot.Set || h.Gone(target.Snapshot) {
		return nil, nil
	}
	now := h.Baseline()
	if last := h.SessionLast(sid, journal.KindTurnStart); last != nil {
		now = last.Snapshot
	}
	if !now.Set || h.Gone(now) {
		return nil, nil
	}
	files, err := workspace.ChangedPaths(objs, target.Snapshot.ID, now.ID)
	if err != nil || len(files) == 0 {
		return nil, err
	}
	by, err := changedBy(objs, h, target, now, files)
	if err != nil {
		return nil, err
	}
	return &ForkDiff{Target: target, Files: files, By: by}, nil
}

// changedBy names who changed each of files between the state of entry
// from and the state now, following every recorded state after from in
// journal order (all branches: the disk has one history). A change seen at
// a turn's end is that turn's; one seen at an operation's completion is the
// operation's; one seen anywhere else goes to the latest turn open then,
// else to the user.
func changedBy(objs *snapshot.Objects, h *journal.History, from *journal.Entry, now journal.Snap, files []string) (map[string][]string, error) {
	want := map[string]bool{}
	for _, p := range files {
		want[p] = true
	}
	by := map[string][]string{}
	note := func(p, who string) {
		if !slices.Contains(by[p], who) {
			by[p] = append(by[p], who)
		}
	}
	prev := from.Snapshot
	var open []*journal.Entry // the turns open at each point of the walk
	if from.Kind == journal.KindTurnStart {
		open = append(open, from)
	}
	step := func(next journal.Snap, who string) error {
		if !next.Set || h.Gone(next) || next == prev {
			return nil
		}
		changed, err := workspace.ChangedPaths(objs, prev.ID, next.ID)
		if err != nil {
			return err
		}
		if who == "" {
			who = words.User
			if len(open) > 0 {
				who = words.Turn(open[len(open)-1].Turn)
			}
		}
		for _, p := range changed {
			if want[p] {
				note(p, who)
			}
		}
		prev = next
		return nil
	}
	var err error
	h.After(from, func(e *journal.Entry) bool {
		switch {
		case e.Kind == journal.KindTurnStart:
			err = step(e.Snapshot, "")
			open = append(open, e)
		case e.Kind == journal.KindTurnEnd:
			err = step(e.Snapshot, words.Turn(e.Turn))
			open = slices.DeleteFunc(open, func(o *journal.Entry) bool { return o.ID == e.Start })
		case e.Kind == journal.KindDone:
			if op := h.Entry(e.Of); op != nil {
				err = step(e.Snapshot, string(op.Kind))
			}
		case e.Kind == journal.KindCheckpoint, e.Kind == journal.KindTool:
			err = step(e.Snapshot, "")
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if err := step(now, ""); err != nil {
		return nil, err
	}
	return by, nil
}

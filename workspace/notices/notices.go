package notices

import (
	"context"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// Updater is what notices need of a workspace (a *workspace.Workspace):
// its transactions.
type Updater interface {
	Update(ctx context.Context, key string, made func(*journal.Entry) bool, fn func(tx *workspace.Tx) error) error
}

// noticeable reports whether an agent session should be told of entry e:
// a rewind, revert or undo that changed files, a rewind carrying a report,
// or a report recorded with mode summarize.
func noticeable(h *journal.History, e *journal.Entry) bool {
	switch e.Kind {
	case journal.KindRewind:
		return h.Applied(e) && (len(e.Files) > 0 || e.Report != "")
	case journal.KindUndo, journal.KindRevert:
		return h.Applied(e) && len(e.Files) > 0
	case journal.KindSummary:
		return e.Mode == journal.ModeSummarize && e.Report != ""
	}
	return false
}

// Notices is what an agent session has not been told yet.
type Notices struct {
	// Entries are the noticeable entries since the session last heard
	// from rewind-lsp (journal order), and History the history they were
	// read from.
	Entries []*journal.Entry
	History *journal.History
	// Fork is set at the first prompt of a conversation fork (a session
	// recorded by RecordFork): the files that differ on disk from its fork
	// point and who changed them (forkdiff.go).
	Fork *ForkDiff
}

// Empty reports whether there is nothing to tell.
func (n *Notices) Empty() bool {
	return n == nil || len(n.Entries) == 0 && (n.Fork == nil || len(n.Fork.Files) == 0)
}

// Take returns what agent session sid has not been told yet, and
// records that it now has been (a notice entry), so each thing reaches the
// session once. A session is told only of what happened after the journal
// first saw it (its session entry, a turn or a tool call); one the journal
// never saw gets nothing. The first prompt of a conversation fork is also
// told which files differ from its fork point (ForkDiff). key is the
// call's idempotency key: a call retried with the key of one that recorded
// its notice (its answer was lost) is told the same again, instead of
// nothing.
func Take(w Updater, sid, key string) (*Notices, error) {
	out := &Notices{}
	if sid == "" {
		return out, nil
	}
	told := func(e *journal.Entry) bool { return e.Kind == journal.KindNotice && e.Session == sid }
	err := w.Update(context.Background(), key, told, func(tx *workspace.Tx) error {
		h := tx.History()
		out.History = h
		// A retry reads the journal as the first call did: up to the
		// notice it recorded. The key may be shared with the call's other
		// commands (a hook opens a turn and takes its notice under one).
		cut := tx.Recorded()
		retry := cut != nil
		// What the session was told last, where it first appears and
		// whether it has more than one turn, each read from the session's
		// end that answers it (a long session is never read whole).
		beforeCut := func(e *journal.Entry) bool { return cut == nil || h.Index(e) < h.Index(cut) }
		through := func(n *journal.Entry) *journal.Entry { // what notice n told of, or nil
			if t := h.Entry(n.Through); t != nil && h.Index(t) <= h.Index(n) {
				return t
			}
			return nil
		}
		var from, fork *journal.Entry
		told, turns := false, 0
		for n := range h.SessionNewest(sid, journal.KindNotice) {
			if !beforeCut(n) {
				continue
			}
			told = true
			if from = through(n); from != nil {
				break
			}
		}
		if first := h.SessionFirst(sid, journal.KindSession, journal.KindTurnStart, journal.KindTool); first != nil && beforeCut(first) {
			toldBefore := false // a notice before the session's first entry
			for n := range h.SessionEntries(sid, journal.KindNotice) {
				if h.Index(n) >= h.Index(first) {
					break
				}
				toldBefore = toldBefore || through(n) != nil
			}
			if from == nil {
				from = first
			}
			if !toldBefore && first.Kind == journal.KindSession && first.TargetEntry != "" {
				fork = first
			}
		}
		for s := range h.SessionEntries(sid, journal.KindTurnStart) {
			if turns == 2 || !beforeCut(s) {
				break // only whether there is more than one counts
			}
			turns++
		}
		if from == nil {
			return nil
		}
		before := journal.EntryID("")
		if cut != nil {
			before = cut.ID
		}
		h.OperationsBetween(from.ID, before, func(e *journal.Entry) {
			if noticeable(h, e) {
				out.Entries = append(out.Entries, e)
			}
		})
		if fork != nil && !told && turns <= 1 {
			var err error
			if out.Fork, err = forkDiff(tx.Objects(), h, fork, sid); err != nil {
				return err
			}
		}
		if out.Empty() || retry {
			return nil
		}
		return tx.Append(journal.NewNotice(sid, h.Last().ID))
	})
	return out, err
}

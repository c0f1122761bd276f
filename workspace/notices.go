package workspace

import "github.com/rewind-lsp/rewind-lsp/journal"

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
		return e.Mode == ModeSummarize && e.Report != ""
	}
	return false
}

// TakeNotices returns the entries agent session sid has not been told of
// yet (noticeable, journal order) with the history they were read from,
// and records that it now has been told (a notice entry), so each reaches
// the session once. A session is told only of what happened after the
// journal first saw it (its session entry, a turn or a tool call); one the
// journal never saw gets nothing.
func (s *Workspace) TakeNotices(sid string) ([]*journal.Entry, *journal.History, error) {
	if sid == "" {
		return nil, nil, nil
	}
	var out []*journal.Entry
	var hist *journal.History
	err := s.locked(func(l *journal.Lock, h *journal.History) error {
		hist = h
		from := -1
		for i, e := range h.Entries {
			if e.Session != sid {
				continue
			}
			switch e.Kind {
			case journal.KindSession, journal.KindTurnStart, journal.KindTool:
				if from < 0 {
					from = i
				}
			case journal.KindNotice:
				for j := i; j >= 0; j-- {
					if h.Entries[j].ID == e.Through {
						from = j
						break
					}
				}
			}
		}
		if from < 0 {
			return nil
		}
		for _, e := range h.Entries[from+1:] {
			if noticeable(h, e) {
				out = append(out, e)
			}
		}
		if len(out) == 0 {
			return nil
		}
		last := h.Entries[len(h.Entries)-1]
		return l.Append(&journal.Entry{Kind: journal.KindNotice, Session: sid, Through: last.ID})
	})
	return out, hist, err
}

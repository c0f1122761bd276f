package lsp

import (
	"context"
	"sort"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/watch"
)

// journalWatcher sends rewind/didChange whenever a folder's journal changes,
// whoever changed it: this server, another server, the command line, a hook.
type journalWatcher struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (w *journalWatcher) stop() {
	w.cancel()
	<-w.done
}

// watchJournal starts the watcher of f's journal (watch.File: notifications
// on the journal's folder, stat checks as the fallback). rewind/didChange is a
// custom notification, so only a client that declared it handles it
// (initializationOptions.rewindDidChange, as the VS Code extension and the
// Neovim plugin do) is watched for: a plain LSP client (lsp-mode, Helix)
// would warn "unknown notification" on every journal change.
func (s *Server) watchJournal(f *folder) *journalWatcher {
	ctx, cancel := context.WithCancel(s.baseCtx)
	w := &journalWatcher{cancel: cancel, done: make(chan struct{})}
	if !s.opts.RewindDidChange {
		close(w.done)
		return w
	}
	journal := f.svc.JournalPath()
	if journal == "" {
		s.log.Printf("folder %s: the service names no journal; rewind/didChange is off", f.path)
		close(w.done)
		return w
	}
	stopped := watch.File(ctx, journal, func() { s.sendJournalChange(ctx, f) }, func(msg string) {
		s.log.Printf("folder %s: %s", f.path, msg)
	})
	go func() {
		<-stopped
		close(w.done)
	}()
	return w
}

// sendJournalChange sends rewind/didChange {root, turns, latest}: the number
// of turns on the active branch and the id of the newest entry the journal
// lists (turn, checkpoint or rewind). Each folder's watcher calls it from
// its one goroutine, so a folder's notifications go out in order.
func (s *Server) sendJournalChange(ctx context.Context, f *folder) {
	n := didChangeJournal{Root: f.svc.Root()}
	list, err := f.svc.List(ctx, commands.ListArgs{})
	if err != nil {
		s.log.Printf("rewind/didChange for %s: listing: %v", f.path, err)
	} else if list != nil {
		n.Turns = len(list.Turns)
		var ids []string
		for _, t := range list.Turns {
			ids = append(ids, t.Entry)
		}
		for _, c := range list.Checkpoints {
			ids = append(ids, c.Entry)
		}
		for _, r := range list.Rewinds {
			ids = append(ids, r.Entry)
		}
		sort.Strings(ids) // UUIDv7: the newest sorts last
		if len(ids) > 0 {
			n.Latest = ids[len(ids)-1]
		}
	}
	if err := s.conn.Notify(ctx, "rewind/didChange", n); err != nil {
		s.log.Printf("rewind/didChange: %v", err)
	}
}

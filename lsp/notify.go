package lsp

import (
	"context"

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
	// Agents' own rewinds recorded before this server started were
	// announced by whoever ran then: the watcher starts from the journal
	// as it is.
	since := 0
	if c, err := f.svc.JournalChange(1 << 30); err == nil {
		since = c.Len
	}
	stopped := watch.File(ctx, journal, func() {
		since = s.sendJournalChange(ctx, f, since)
	}, func(msg string) {
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
// lists (turn, checkpoint or rewind); and rewind/agentRewind once for each
// agent's own rewind (Claude Code's Esc Esc, completed by its hook)
// recorded since the journal held since entries: the editors tell the
// person what the agent rewound, what rewind-lsp restored besides, and,
// when the agent restored no file, offer the rewind of the files
// (docs/PROTOCOL.md, "Agents"). Both are made from what was appended, so
// they cost the same at any length of history. Each folder's watcher calls
// it from its one goroutine, so a folder's notifications go out in order.
// It returns the number of entries the journal holds now.
func (s *Server) sendJournalChange(ctx context.Context, f *folder, since int) int {
	n := didChangeJournal{Root: f.svc.Root()}
	c, err := f.svc.JournalChange(since)
	if err != nil {
		s.log.Printf("rewind/didChange for %s: %v", f.path, err)
	} else {
		n.Turns, n.Latest = c.Turns, string(c.Latest)
	}
	if err := s.conn.Notify(ctx, "rewind/didChange", n); err != nil {
		s.log.Printf("rewind/didChange: %v", err)
	}
	if c == nil {
		return since
	}
	for _, r := range c.AgentRewinds {
		n := agentRewindParams{Root: f.svc.Root(), Entry: string(r.Entry), Agent: r.Agent, Session: r.Session, Turn: r.Turn,
			Prompt: r.Prompt, Target: r.Target, Mode: string(r.Mode), Files: nonNil(r.Files), Kept: nonNil(r.Kept), Offered: nonNil(r.Offered),
			SessionLabel: r.SessionLabel, Title: r.Title, Message: r.Message, Actions: agentRewindActions(r)}
		if err := s.conn.Notify(ctx, "rewind/agentRewind", n); err != nil {
			s.log.Printf("rewind/agentRewind: %v", err)
		}
	}
	return c.Len
}

// agentRewindActions are what an editor offers after an agent's own
// rewind: the rewind of the files the agent did not restore and their
// diff, or the undo of what rewind-lsp restored for it.
func agentRewindActions(r commands.RewindInfo) []agentRewindAction {
	switch {
	case len(r.Offered) > 0:
		return []agentRewindAction{{ID: "rewindFiles", Title: "Rewind the Files"}, {ID: "showDiff", Title: "Show Diff"}}
	case len(r.Files) > 0:
		return []agentRewindAction{{ID: "undo", Title: "Undo"}}
	}
	return []agentRewindAction{}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

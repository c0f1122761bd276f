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
	// Agents' own rewinds recorded before this server started were
	// announced by whoever ran then.
	seen := map[string]bool{}
	if list, err := f.svc.List(ctx, commands.ListArgs{}); err == nil {
		for _, r := range list.Rewinds {
			seen[r.Entry] = true
		}
	}
	stopped := watch.File(ctx, journal, func() {
		list := s.sendJournalChange(ctx, f)
		s.announceAgentRewinds(ctx, f, list, seen)
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
// lists (turn, checkpoint or rewind). Each folder's watcher calls it from
// its one goroutine, so a folder's notifications go out in order. It
// returns the listing it sent (nil when listing failed).
func (s *Server) sendJournalChange(ctx context.Context, f *folder) *commands.ListResult {
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
	return list
}

// announceAgentRewinds sends rewind/agentRewind once for each agent's own
// rewind (Claude Code's Esc Esc, completed by its hook) that list holds and
// seen does not: the editors tell the person what the agent rewound, what
// rewind-lsp restored besides, and, when the agent restored no file, offer
// the rewind of the files (docs/PROTOCOL.md, "Agents").
func (s *Server) announceAgentRewinds(ctx context.Context, f *folder, list *commands.ListResult, seen map[string]bool) {
	if list == nil {
		return
	}
	for _, r := range list.Rewinds {
		if seen[r.Entry] {
			continue
		}
		seen[r.Entry] = true
		if r.Agent == "" {
			continue
		}
		n := agentRewindParams{Root: f.svc.Root(), Entry: r.Entry, Agent: r.Agent, Session: r.Session, Turn: r.Turn,
			Prompt: r.Prompt, Target: r.Target, Mode: r.Mode, Files: nonNil(r.Files), Kept: nonNil(r.Kept), Offered: nonNil(r.Offered),
			SessionLabel: r.SessionLabel, Title: r.Title, Message: r.Message, Actions: agentRewindActions(r)}
		if err := s.conn.Notify(ctx, "rewind/agentRewind", n); err != nil {
			s.log.Printf("rewind/agentRewind: %v", err)
		}
	}
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

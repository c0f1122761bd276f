package lsp

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rewind-lsp/rewind-lsp/commands"
)

const (
	// journalPoll is the stat-polling fallback's period: a journal change
	// made by another process reaches the client within about a second
	// even when file-system notifications are missing.
	journalPoll = 400 * time.Millisecond
	// journalSafetyPoll is the period of the check made even while
	// notifications work.
	journalSafetyPoll = 30 * time.Second
	// journalDebounce groups the bursts of writes of one append.
	journalDebounce = 50 * time.Millisecond
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

// journalStamp identifies a journal state cheaply.
type journalStamp struct {
	size  int64
	mtime time.Time
	ok    bool
}

func stampOf(p string) journalStamp {
	fi, err := os.Stat(p)
	if err != nil {
		return journalStamp{}
	}
	return journalStamp{size: fi.Size(), mtime: fi.ModTime(), ok: true}
}

// watchJournal starts the watcher of f's journal: fsnotify on the journal's
// folder for speed, stat polling as the fallback. rewind/didChange is a
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
	go func() {
		defer close(w.done)
		s.runJournalWatch(ctx, f, journal)
	}()
	return w
}

func (s *Server) runJournalWatch(ctx context.Context, f *folder, journal string) {
	var events chan fsnotify.Event
	var fw *fsnotify.Watcher
	watching := false
	addWatch := func() {
		if watching || fw == nil {
			return
		}
		if err := fw.Add(filepath.Dir(journal)); err == nil {
			watching = true
		}
	}
	if w, err := fsnotify.NewWatcher(); err == nil {
		fw = w
		defer fw.Close()
		events = fw.Events
		addWatch()
	} else {
		s.log.Printf("folder %s: no file-system notifications (%v); polling the journal", f.path, err)
	}
	last := stampOf(journal)
	// Polling is the fallback: with notifications, a rare check only picks
	// up a store folder that appeared later, and an idle server stays idle.
	period := journalPoll
	if fw != nil {
		period = journalSafetyPoll
	}
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	var debounce <-chan time.Time
	check := func() {
		if st := stampOf(journal); st != last {
			last = st
			s.sendJournalChange(ctx, f)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if filepath.Clean(ev.Name) == filepath.Clean(journal) && debounce == nil {
				debounce = time.After(journalDebounce)
			}
		case <-debounce:
			debounce = nil
			check()
		case <-ticker.C:
			addWatch() // the store folder may appear after the server started
			check()
		}
	}
}

var journalSendMu sync.Mutex

// sendJournalChange sends rewind/didChange {root, turns, latest}: the number
// of turns on the active branch and the id of the newest entry the journal
// lists (turn, checkpoint or rewind).
func (s *Server) sendJournalChange(ctx context.Context, f *folder) {
	journalSendMu.Lock()
	defer journalSendMu.Unlock()
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

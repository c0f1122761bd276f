package maintenance

// Agent checkpoints. An agent marks a point before it tries something
// (MCP's checkpoint tool), then rewinds to it with a report, or moves on.
// Its checkpoint is pinned — kept whatever the store's budget — only while
// it is the agent's active one: not yet rewound to, not followed by a newer
// checkpoint of the same connection, and its connection still open (an MCP
// server holds a lock in the store while it runs: HoldConnection) or, for
// one made in the agent's own turn, that turn still open. After that it is
// kept like a turn's states, within the budget and the age bound. A person's
// labeled checkpoints stay pinned.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// isAgentCheckpoint reports whether e is an agent's checkpoint: made as one,
// or (journals from before) labeled agent-N through MCP.
func isAgentCheckpoint(e *journal.Entry) bool {
	return e.Kind == journal.KindCheckpoint && (e.Conn != "" || e.Actor == "mcp" && strings.HasPrefix(e.Label, journal.AgentLabelPrefix))
}

func connsDir(store string) string { return filepath.Join(store, "conns") }

// HoldConnection marks a connection of an agent (an MCP server) as open
// for as long as this process runs, or until release: a lock on a file of
// the store named by the returned id, which the system lets go when the
// process ends, however it ends.
func HoldConnection(store string) (id string, release func(), err error) {
	dir := connsDir(store)
	if err := osfile.MkdirPrivate(dir); err != nil {
		return "", nil, fmt.Errorf("connection lock: %w", err)
	}
	id = string(journal.NewID())
	path := filepath.Join(dir, id)
	f, err := osfile.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", nil, fmt.Errorf("connection lock: %w", err)
	}
	if ok, err := osfile.TryLock(f, osfile.Exclusive); !ok || err != nil {
		f.Close()
		return "", nil, fmt.Errorf("connection lock %s: held already (%v)", path, err)
	}
	fmt.Fprintf(f, "pid %d\n", os.Getpid())
	return id, func() {
		osfile.Unlock(f)
		f.Close()
		osfile.Remove(path)
	}, nil
}

// connectionOpen reports whether connection id still holds its lock. A
// connection whose file is gone, or whose lock can be taken, has ended (and
// its file goes).
func (m *Maintainer) connectionOpen(id string) bool {
	if id == "" || strings.ContainsAny(id, `/\`) {
		return false
	}
	path := filepath.Join(connsDir(m.w.Dir()), id)
	f, err := osfile.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true // cannot tell: keep it
	}
	defer f.Close()
	ok, err := osfile.TryLock(f, osfile.Exclusive)
	if err != nil {
		return true
	}
	if !ok {
		return true // held: the connection runs
	}
	osfile.Unlock(f)
	osfile.Remove(path)
	return false
}

// agentPins tells, while retention reads the journal, which agents'
// checkpoints are still active.
type agentPins struct {
	ckps      []*journal.Entry          // agents' checkpoints, journal order
	latest    map[string]*journal.Entry // connection → its latest checkpoint
	rewoundTo map[journal.EntryID]bool  // entries an applied rewind went to
}

// see takes entry e into account (journal order).
func (a *agentPins) see(h *journal.History, e *journal.Entry) {
	switch {
	case isAgentCheckpoint(e):
		a.ckps = append(a.ckps, e)
		if e.Conn != "" {
			a.latest[e.Conn] = e
		}
	case e.Kind == journal.KindRewind && e.TargetEntry != "" && h.Applied(e):
		a.rewoundTo[e.TargetEntry] = true
	}
}

// active reports whether agent checkpoint e is pinned (see above).
func (a *agentPins) active(m *Maintainer, h *journal.History, e *journal.Entry) bool {
	if a.rewoundTo[e.ID] {
		return false
	}
	if e.Conn != "" {
		return a.latest[e.Conn] == e && m.connectionOpen(e.Conn)
	}
	return e.InTurn != "" && slices.ContainsFunc(h.OpenTurns(), func(open *journal.Entry) bool { return open.ID == e.InTurn })
}

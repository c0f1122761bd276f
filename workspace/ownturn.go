package workspace

import (
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// An agent's own operation. A rewind, revert or undo that an agent runs
// during its own turn — through its MCP server, or with the command line
// from its shell — is part of that turn, not the end of it. The request
// names the agent session it comes from (CallerSession: the agent's
// environment names it, see docs/PROTOCOL.md, "Agents"); when that session
// has a turn open on the active branch, the operation is the agent's own:
//
//   - that turn stays open (other sessions' open turns end first, as for
//     any operation), so what the agent writes afterwards in the same
//     prompt belongs to it, and the turn's changes at its end are the net
//     change from its start;
//   - the operation's entry names the turn (InTurn), and the files it
//     changed count as written by the turn's session (attribute), for
//     blame and revert --session;
//   - files the session's own tool calls wrote during the turn are no
//     conflict for it, unless an editor saved them or holds them unsaved
//     since the turn started.
//
// A conversation or both rewind moves the conversation away from the turn,
// so it ends the turn as before.

// ownTurn is the open turn of caller that an operation of mode runs in, or
// nil when the operation is not the agent's own.
func ownTurn(h *journal.History, caller string, mode journal.Mode) *journal.Entry {
	if caller == "" || mode == journal.ModeConversation || mode == journal.ModeBoth || mode == journal.ModeSummarize || mode == journal.ModePlan {
		return nil
	}
	return h.OpenTurnOf(caller)
}

// turnWrites lists the files the turn started by start wrote so far: what
// its session's tool calls wrote (tool entries) and what its own
// operations changed (applied rewinds, reverts and undos run in the turn).
// A Bash call still running (a "pre" without its "post") adds nothing yet.
func turnWrites(h *journal.History, start *journal.Entry) []string {
	files := ownOpFiles(h, start)
	for _, e := range h.ToolCalls(start) {
		if e.Phase != journal.PhasePre {
			files = append(files, e.Files...)
		}
	}
	return sortedSet(files)
}

// ownConflicts clears the conflict of each op whose file the agent's own
// turn wrote, unless touched says an editor saved it or holds it unsaved
// since the turn started (touched is nil on the command line).
func ownConflicts(h *journal.History, own *journal.Entry, d *snapshot.Diff, touched func(rel string, since time.Time) bool) {
	if own == nil {
		return
	}
	mine := only(turnWrites(h, own))
	for i := range d.Ops {
		op := &d.Ops[i]
		if op.Conflict && mine(op.Path) && (touched == nil || !touched(op.Path, own.Time)) {
			op.Conflict = false
		}
	}
}

// ownOpFiles lists the files of the applied operations run in the turn
// started by start (they count as written by its session).
func ownOpFiles(h *journal.History, start *journal.Entry) []string {
	var files []string
	for _, e := range h.OperationsIn(start) {
		if h.Applied(e) {
			files = append(files, e.Files...)
		}
	}
	return files
}

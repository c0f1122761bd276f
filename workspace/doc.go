// Package session keeps the journal of one workspace root: turns,
// checkpoints, rewinds, reverts, undos and summaries as immutable entries
// with parent links, the active branch of the conversation, rewind targets
// and modes, conflicts, undo, retention (gc) and verification (fsck); and
// what the journal tells about one file: which turn wrote each line (blame)
// and how to take one turn back keeping the later ones (revert).
//
// Every change to the journal happens under an exclusive file lock, with the
// journal read again under it, so several processes (editors, hooks, the
// command line) can record at once without losing or duplicating entries.
//
// In a running server, live tracking (tracker.go, autoturn.go, echo.go)
// takes what changed on disk from package watch, narrows captures to it,
// and decides which changes are an agent's: those open automatic turns.
package workspace

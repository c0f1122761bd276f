// Package workspace is the handle of one workspace root (Workspace): it
// records turns, checkpoints and the state of the files into the root's
// journal and snapshots, and carries out rewinds, reverts and undos with
// their modes and conflicts, retention (gc) and verification (fsck); it
// tells what the journal knows of one file: which turn wrote each line
// (blame) and how to take one turn back keeping the later ones (revert).
//
// Every change to the journal happens under the journal's exclusive lock,
// with the journal read again under it, so several processes can record at
// once.
//
// In a running server, live tracking (tracker.go, autoturn.go, echo.go)
// takes what changed on disk from package watch, narrows captures to it,
// and decides which changes are an agent's: those open automatic turns.
package workspace

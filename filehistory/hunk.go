package filehistory

import (
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// RevertHunkApplies reports whether reverting span sp (a turn or a step) in
// file rel, limited to its hunks touching protocol lines
// first..last of current (the file's content now; exists false when it is
// missing), would change the file without a conflict: the "Revert turn N
// here" action is offered exactly when the revert it runs goes through and
// does something.
func RevertHunkApplies(objs *snapshot.Objects, h *journal.History, rel string, current []byte, exists bool, sp Span, first, last int) (bool, error) {
	if !sp.Wrote(rel) || sp.Gone(h) {
		return false, nil // a turn still open has nothing recorded to revert yet
	}
	base, err := Load(objs, sp.After.ID, rel)
	if err != nil {
		return false, err
	}
	theirs, err := Load(objs, sp.Before.ID, rel)
	if err != nil {
		return false, err
	}
	ours := Version{Exists: exists, Kind: base.Kind, Data: current, ID: snapshot.Sum(current)}
	if exists && !base.Exists {
		ours.Kind = snapshot.KindFile
	}
	got, _, ok := RevertFile(base, ours, theirs, &[2]int{first, last})
	return ok && !got.Same(ours), nil
}

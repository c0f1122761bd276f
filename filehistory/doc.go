// Package filehistory tells what the journal knows of one file: its chain
// of recorded states and the turn that led to each (Chain), who wrote each
// line of its current content (Blamer), and how one turn's or one step's
// change of it — a Span, the states just before and just after — is taken
// back keeping the later ones: a three-way merge per file (RevertFile),
// who overlapped a hunk that cannot be (Overlappers), and whether a hunk's
// revert goes through (RevertHunkApplies). It reads the journal through a
// History and contents through the object store, and costs what the file's
// own turns cost, never the whole history.
package filehistory

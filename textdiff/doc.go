// Package textdiff compares and merges text by lines: the hunks between two
// texts, their line counts and unified diff text, applying or taking back
// some hunks, and the three-way merge that keeps later changes when one
// turn is taken back. It knows nothing of files, trees or snapshots.
package textdiff

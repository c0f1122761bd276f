// Package view is the journal's storage engine: everything derived from
// the journal that a command needs, built entry by entry in journal order
// and kept beside it in the store's view/ folder, so that a process reads
// only the journal's tail (docs/HISTORY.md).
//
// Each entry gets a position and a fixed-size Record (its line's place in
// the journal, its kind, its place in the conversation tree and on the
// chain of turn starts); Tables map fixed-width keys to positions; a small
// State holds the rest. Records and pairs live in immutable segment files
// (package segfile's format) named by a manifest, and, after them, in
// memory for the lines this process read since. A Store loads, extends,
// persists, merges and heals them; a Reader answers as of one moment.
//
// The view knows entries only through a Schema: how a line is decoded and
// what the view takes of an entry (Facts). What the questions mean — turns,
// targets, listings — is the journal package's, above it, as jj keeps its
// index segments apart from revsets.
package view

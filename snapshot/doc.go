// Package snapshot captures a workspace root into a content-addressed
// object store and restores it exactly.
//
// A snapshot is a tree of objects, one per folder, like git's: its ID is the
// SHA-256 of the root tree, so equal states have equal IDs and an unchanged
// folder costs nothing to store again. Objects live in package store (packs,
// verified reads, healing); large folder trees are stored as deltas against
// the folder's previous tree. A stat cache keeps capture from reading files
// whose size, times, inode and mode did not change. Which paths are
// skipped is package gitignore's decision.
package snapshot

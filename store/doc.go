// Package store keeps rewind-lsp's content-addressed objects: file contents
// and folder trees, each named by the SHA-256 of its uncompressed bytes.
//
// New objects go into pack files: a capture appends its objects to one
// pack (zstd-compressed records, each with a CRC), fsyncs it once and
// writes a sorted index beside it. Every read is verified (record CRC,
// then the content against its ID); a record torn by a crash is ignored
// and reported, never used. Small packs are merged as they accumulate,
// and Repack (gc) rewrites what is kept into one pack. Stores written
// before packs existed (one zstd file per object, objects/ab/cdef…) are
// read as they are and repacked by gc. The objects folder carries a format
// version; a newer format than this binary knows is refused.
//
// The store knows one kind of derived object, the delta: content rebuilt
// from a base object by a function the caller provides (snapshot stores
// large folder trees as deltas against the folder's previous tree).
//
// Damage is remembered (a list of known-damaged IDs in the store): the next
// Put of that content writes a good copy, and a reader may fall back to a
// caller-provided source of the content (the file on disk, when it still
// hashes right) and heal the object from it.
//
// It imports nothing of rewind-lsp but osfile (locks, file identity and
// the atomic write of its small files); snapshot builds on it.
package store

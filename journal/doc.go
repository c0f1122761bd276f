// Package journal keeps the record of one workspace root: the append-only
// journal file of immutable entries (turns, checkpoints, rewinds, reverts,
// undos, summaries, gc) and History, the read-only view of it (the active
// branch, turns, open turns, rewind targets, undo candidates).
//
// Each line of the journal is "<crc32c hex> <json>\n"; appends hold an
// exclusive file lock, so several processes (editors, hooks, the command
// line) can record at once without losing or duplicating entries. A damaged
// or torn line loses that entry only. The package imports nothing of
// rewind-lsp but store, whose ids name snapshots.
package journal

// Package journal keeps the record of one workspace root: the append-only
// journal file of immutable entries (turns, checkpoints, rewinds, reverts,
// undos, summaries, gc), its view — everything derived from it that a
// command needs, persisted beside it so that a process reads only the
// journal's tail — and History, the one way to read both (the active
// branch, turns, open turns, rewind targets, undo candidates, a file's
// turns, an agent session's entries). docs/HISTORY.md describes the view.
//
// Each line of the journal is "<crc32c hex> <json>\n"; appends hold an
// exclusive file lock, so several processes (editors, hooks, the command
// line) can record at once without losing or duplicating entries. A damaged
// or torn line loses that entry only. The package imports nothing of
// rewind-lsp but store, whose ids name snapshots, osfile, and fileop, whose
// Change says what a turn did to a file.
package journal

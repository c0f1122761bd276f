// Package fileop names what a file operation does to one file — its Change:
// created, modified or deleted — once, for every layer that plans, records
// or reports one: package snapshot plans file operations (snapshot.FileOp),
// package journal records what a turn changed (journal.Change), and the
// command set reports both (docs/PROTOCOL.md, "The plan"). It imports
// nothing.
package fileop

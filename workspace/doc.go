// Package workspace is the handle of one workspace root (Workspace): it
// opens the root's store, records turns, tool calls, checkpoints and agent
// sessions into the root's journal with the state of the files, and
// carries out the operations — rewinds, undos, reverts and the completion
// of an agent's own rewind — through one skeleton (operation.go: the
// request checked, the state captured, open turns ended, the plan, then a
// refusal, or the change recorded as pending, applied, and done).
//
// Every change to the journal is one transaction (tx.go: Update and Tx):
// under the journal's exclusive lock, with the journal read again under
// it, so several processes can record at once; the call's idempotency key
// is checked there, once.
//
// Around it: workspace/live (a running server's live tracking, behind the
// Live interface), workspace/notices (what agent sessions are told) and
// package maintenance (retention, gc, fsck, behind the Retainer
// interface), which record through a Tx too; package filehistory (one
// file's history: blame and the per-file revert) and package rootpath
// (where a root's store lives).
package workspace

// Package notices tells an agent session what happened since it last heard
// from rewind-lsp: the rewinds, reverts, undos and reports recorded since
// (Take, which records that the session was told, so each thing reaches it
// once), and, at the first prompt of a conversation fork, which files
// differ on disk from the fork point and who changed them. RecordFork
// records such a fork. package agent words the notice in each agent's
// shape.
package notices

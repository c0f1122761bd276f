// Package live is a running server's live tracking of a root: it takes
// what changed on disk from package watch, narrows the workspace's
// captures to it (workspace.Live), tells a rewind's own writes and the
// editor's saves from anyone else's (echo.go), and opens an automatic turn
// for changes that came from neither, ended after a quiet period
// (autoturn.go).
package live

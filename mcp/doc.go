// Package mcp serves rewind-lsp to the agent itself as a Model Context
// Protocol server: the tools checkpoint, rewind, turns and diff,
// over stdio, on the official Go SDK. An agent checkpoints before it
// explores and rewinds with a report after; the files really come back,
// every rewind is an ordinary journal entry (listed, undoable, seen by the
// editors), and a rewind is never forced: files someone else changed since
// are conflicts, refused.
//
// It is an adapter like package lsp: it turns tool calls into calls of the
// command set (the registry's commands through a commands.Client, named by
// their Tool) and results into text for the model, and holds only the
// state of one connection (its latest checkpoint).
package mcp

// Package commands is rewind-lsp's command set: the typed arguments and
// results of every command (checkpoint, turns, list, preview, rewind, undo,
// revert, blame, file history, status), one Service that runs them on one
// workspace root, and the Client that the command line, hooks and the MCP
// server call, in this process or forwarded over the root's socket to the
// language server running for it.
//
// The language server and the command line both go through this package,
// so a command behaves the same from an editor, a terminal or an agent.
// The names, arguments and results are the wire contract (docs/PROTOCOL.md,
// "Commands").
package commands

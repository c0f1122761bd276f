// Package commands is rewind-lsp's command set: one registry of typed
// commands (entries.go; checkpoint, turns, list, preview, rewind, undo,
// revert, blame, file history, status, and the command line's internal
// ones), the Service that runs them on one workspace root, and the Clients
// that call them — a Service in this process, or Auto, which forwards to
// the language server running for the root over the root's socket.
//
// Everything that names a command is made from the registry: the language
// server's dispatch and advertised list, the socket, the command line's
// verbs, the MCP tools, the editors' protocol files and docs/PROTOCOL.md
// (go generate), so a command behaves the same from an editor, a terminal
// or an agent. The names, arguments and results are the wire contract
// (docs/PROTOCOL.md, "Commands").
package commands

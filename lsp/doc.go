// Package lsp is rewind-lsp's Language Server: the adapter between the
// Language Server Protocol (JSON-RPC 2.0 over stdio) and the typed command
// set of package commands.
//
// It owns the transport (framing, an ordered dispatcher, cancellation and the
// lifecycle), the editor's open documents (which are the current content of
// those files for plans, conflicts and edits), the workspace folders (one
// commands.Service per folder), and the translation of a rewind into one
// workspace/applyEdit: minimal line-level TextEdits in the negotiated
// position encoding, resource operations when the client supports them, and
// files written by the server itself when an edit cannot carry them.
//
// Protocol types stop at this package's boundary: the domain packages never
// import lsp.
package lsp

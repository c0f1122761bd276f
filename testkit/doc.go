// Package testkit is what rewind-lsp's tests drive the real product with:
// a Sandbox (a root, its store and a private home and environment), the
// binary built once per test process (Binary), an LSP client over any
// stream (Conn), the server started as an editor starts it (StartServer),
// and a fake Editor that keeps buffers and applies the server's
// WorkspaceEdits the way VS Code, Neovim, eglot or a plain client does, in
// UTF-16, checking every position strictly.
//
// It is an ordinary package that imports nothing of rewind-lsp, so every
// package's tests (lsp's internal ones too) and bench/live can use it.
package testkit

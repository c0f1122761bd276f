// Package e2e holds the whole-product tests: they build the rewind-lsp
// binary (testkit.Binary) and drive it as a person, an editor or an agent
// would — the command line, hooks, the language server, the MCP server
// and the ACP proxy, the real agents where they are installed — and check
// the files, the store and what each is told. A package's own tests stay
// beside its code; this folder has no code of its own.
package e2e

// Command rewind-lsp records an AI agent's turns in a workspace and rewinds
// them: a Language Server on stdio for editors, and a command line for
// hooks, scripts and people (docs/PROTOCOL.md).
package main

// Package copilot connects rewind-lsp to GitHub's Copilot CLI: its hook
// events, its session folder (events.jsonl, workspace.yaml), the cut copy
// of that folder a conversation rewind writes, and its hooks file.
package copilot

// Package claudecode connects rewind-lsp to Claude Code: its hook
// events, its transcript (JSON Lines threaded by uuid) and the fork point
// read from it, the fork of that transcript a conversation rewind writes,
// its own rewind (Esc Esc, /rewind, a fork's first prompt) found in the
// transcripts afterwards, and its hooks in .claude/settings.json.
package claudecode

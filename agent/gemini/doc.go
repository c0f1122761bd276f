// Package gemini connects rewind-lsp to Google's Gemini CLI: its hook
// events, its session file and the fork point read from it, the cut copy
// a conversation rewind writes, where its sessions live behind ACP, and
// its hooks in the user's settings.json.
package gemini

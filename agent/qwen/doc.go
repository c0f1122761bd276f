// Package qwen connects rewind-lsp to Qwen Code: its hook events (Claude
// Code's), its transcript (threaded by uuid like Claude Code's), the cut
// copy a conversation rewind writes, its own rewind (Esc Esc) found in the
// transcript by the next prompt with the files its file history restores,
// and its hooks in ~/.qwen/settings.json.
package qwen

// Package codex connects rewind-lsp to OpenAI's Codex CLI: its hook
// events, the id of the last turn of its rollout as the fork point, the
// conversation fork Codex itself makes (codex app-server, thread/fork),
// where its sessions live behind codex-acp, and its hooks in hooks.json,
// trusted through the app server.
package codex

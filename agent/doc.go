// Package agent connects rewind-lsp to the coding agents themselves —
// Claude Code, Codex, Gemini CLI, Copilot CLI, Factory droid and Cline, one
// file each behind the one Agent interface: it reads their hook events
// (which turn, which session, which files a tool call wrote), says where
// each session's conversation stands at a turn boundary, forks that
// conversation so the agent continues from an earlier turn (the
// conversation half of a rewind), words the notices that tell an agent its
// files were rewound in the shape its hooks hand to the model, and
// installs the hooks where each agent runs them.
//
// It knows the agents' formats and nothing of the store: the journal and
// the command set (packages workspace and commands) decide when; this
// package says how. Conversation files are treated as opaque JSON Lines:
// only the fields named here are read, and only session ids are ever
// changed, in a copy; an agent's own files are never written. What each
// agent's real binary wrote is kept in testdata/<agent>/ (and driven live
// by package testkit/agents).
package agent

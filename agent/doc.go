// Package agent connects rewind-lsp to the coding agents themselves: what
// every agent is to rewind-lsp (the Agent interface and the capabilities
// some have, each an interface found by type assertion: Prompter,
// EventNoticer, OwnTools, OwnRewinder, ACPAgent), a hook event in one shape
// for all of them, the requests and refusals of a conversation fork, the
// notices that tell an agent its files were rewound, and the session a
// process runs under.
//
// Each agent is a package of its own below this one — claudecode, codex,
// gemini (Gemini CLI), copilot (Copilot CLI), qwen (Qwen Code), droid,
// cline, pi (pi and oh-my-pi) and opencode (opencode and Kilo) — that reads
// its hook events (which turn, which session, which files a tool call
// wrote), says where each session's conversation stands at a turn boundary
// (a journal.ForkPoint in its conversation file), forks that conversation
// so the agent continues from an earlier turn (the conversation half of a
// rewind), words its notices in the shape its hooks hand to the model, and
// installs its hooks where the agent runs them. Package agents lists them;
// callers ask an agent for a capability, never for its name.
//
// It knows the agents' formats and nothing of the store: the journal and
// the command set (packages workspace and commands) decide when; these
// packages say how. Conversation files are treated as opaque JSON Lines:
// only the fields named here are read, and only session ids are ever
// changed, in a copy; an agent's own files are never written. What each
// agent's real binary wrote is kept in testdata/<agent>/ (and driven live
// by package testkit/agents).
package agent

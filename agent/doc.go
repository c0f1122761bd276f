// Package agent connects rewind-lsp to the coding agents themselves: it
// reads Claude Code hook events (which turn, which session, which files a
// tool call wrote), finds the fork point of a Claude Code transcript and
// writes a forked transcript that `claude --resume` continues (the
// conversation half of a rewind), and words the notices that tell an agent
// its files were rewound.
//
// It knows the agents' formats and nothing of the store: the journal and
// the command set (packages session and commands) decide when; this
// package says how. A transcript is treated as opaque JSON Lines: only the
// fields named here are read, and only `sessionId` is ever changed, in a
// copy; the original is never written.
package agent

// Package gitnotes turns what the journal knows about the lines of a
// commit into the git notes other tools read: for one commit, which
// committed lines it added or changed against its first parent, and which
// agent session, turn and step wrote each of them (Attest); the Git AI
// authorship log written on refs/notes/ai and read back (WriteGitAI,
// ParseGitAI); the Agent Trace record written on refs/notes/agent-trace
// (TraceRecord), both put on the commit by Write; a commit's provenance
// read back from its notes (Explain); and the repository's hooks
// that writes them (InstallHooks, RemoveHooks).
//
// Git is driven through its own commands (Repo), never a copy of its
// object format, so every repository git reads — SHA-1 or SHA-256, a
// worktree, a core.hooksPath — is read the same way. A line no recorded
// turn wrote is left out, never guessed. Nothing here writes a ref other
// than the two notes refs. docs/PROVENANCE.md is the whole story.
package gitnotes

// Package agents runs the real coding agents (Claude Code, Codex, Gemini
// CLI, Copilot CLI) in tests: each non-interactively, in a fresh home
// folder, against a scripted model on 127.0.0.1 (package fakemodel), in a
// given workspace, with given hooks, and tells what it did — its exit,
// its output, the session it used, and every hook run with its payload
// and timing.
//
// The agents come from scripts/agents/install.sh, which installs the
// pinned versions from npm into a cache and prints the folder of their
// commands; REWIND_LSP_AGENTS names that folder. A test that needs an
// agent is skipped, with the reason, only when that variable is unset and
// the default cache holds no agents: the test script sets it, so in CI
// the agents' tests can fail but never silently skip.
//
// Nothing here stands in for an agent: only the model is scripted.
package agents

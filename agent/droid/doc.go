// Package droid connects rewind-lsp to Factory's droid CLI: its hook
// events (Claude Code's, but no prompt event in droid exec, so the prompt
// is read from its session file: agent.Prompter), the cut copy a
// conversation rewind writes, and its hooks in ~/.factory/settings.json.
package droid

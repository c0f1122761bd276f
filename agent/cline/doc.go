// Package cline connects rewind-lsp to the Cline CLI: its hook events
// (executable files named after them; the prompt read from its messages
// file: agent.Prompter), the cut copy of its task a conversation rewind
// writes, and its hook files in the user's Cline hooks folder.
package cline

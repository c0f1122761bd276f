// Package acp is the adapter between the Agent Client Protocol and the
// command set: `rewind-lsp acp -- COMMAND` stands between an editor and
// any ACP agent, passes every message both ways as it is, and turns what
// it sees into registry commands — a turn per session/prompt, a step per
// tool call that changed files — through the same client the hooks and
// the command line use. It answers /rewind, /undo, /revert and /turns
// itself, writes a rewind's text files through the editor's
// fs/write_text_file when it offers it, and tells the agent at its next
// prompt what changed. The design, and what each agent allows, is in
// docs/ACP.md.
package acp

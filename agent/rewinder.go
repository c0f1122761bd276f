package agent

import (
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// OwnRewinder is an agent that takes its conversation back by itself and
// runs no hook for it (Claude Code's Esc Esc, Qwen Code's /rewind,
// opencode's and Kilo's /undo). The rewind shows afterwards, at a later
// hook event of the session, in what the agent wrote; rewind-lsp then
// records it and completes it (commands.AgentRewind).
type OwnRewinder interface {
	// OwnRewindShows reports whether hook event ev may show a rewind the
	// session made since its previous prompt: rewind-lsp looks only there.
	OwnRewindShows(ev *Event) bool
	// FindOwnRewind reports whether the session's open turn (its start
	// entry, open) continues from an earlier point of its conversation
	// than the end of the turns before it. promptID is the event's id of
	// the prompt, for a turn whose start recorded none; past is what the
	// journal knows of the turns before. It is nil when the prompt
	// continues from the end, or the rewind does not show yet.
	FindOwnRewind(open *journal.Entry, promptID string, past Past) (*OwnRewind, error)
}

// Past is what the journal knows of the turns before a session's open
// one, as an agent's own rewind is looked for among them. Each lists turn
// starts on the active branch, oldest first, never the open turn.
type Past interface {
	// Session lists the open turn's session's own turns.
	Session() []*journal.Entry
	// Earlier lists the turns whose prompt the open one may have dropped
	// when it continues from the conversation's entry parent: the
	// session's own and, should the session be a fork of an older one of
	// the same agent, that session's turns from the one whose prompt was
	// sent where the open prompt hangs, recorded before the fork first
	// appears.
	Earlier(parent string) []*journal.Entry
}

// OwnRewind is a session's own rewind, seen at a later prompt.
type OwnRewind struct {
	// Dropped is the start of the earliest turn the rewind dropped (the
	// new prompt is its sibling).
	Dropped *journal.Entry
	// Tracked are the absolute paths of the files the agent tracks at the
	// dropped prompts: the ones its rewind restores.
	Tracked []string
	// RestoresAll says that the agent restored every file the dropped
	// turns changed, the shell's changes too (opencode's and Kilo's undo):
	// rewind-lsp restores nothing more.
	RestoresAll bool
}

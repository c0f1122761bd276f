package agent

import (
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Prompter is an agent whose hooks cannot be trusted to say when a prompt
// is sent or what it says: its prompt event does not fire in every mode
// (droid exec), or runs detached, so that it may come after the prompt's
// first tool call, and carries another text than the person's (Cline). Its
// turn opens at whichever of its prompt, tool and turn-end events comes
// first for a prompt the session has no turn for yet, with the prompt read
// from the agent's own record of the conversation; its turn-end event
// ends only that prompt's turn.
type Prompter interface {
	// CurrentPrompt reads the prompt the session is answering at ev: nil
	// when the conversation holds none yet.
	CurrentPrompt(ev *Event) (*PromptAt, error)
}

// PromptAt is a prompt as an agent's conversation records it.
type PromptAt struct {
	// ID is the agent's id of the prompt's message.
	ID string
	// Text is the person's prompt.
	Text string
	// Transcript and Point are the conversation just before the prompt:
	// where a conversation rewind to its turn cuts it.
	Transcript string
	Point      journal.ForkPoint
}

// EventNoticer is an agent whose model hears a hook's output at other
// events than its prompt event (or only there).
type EventNoticer interface {
	// NoticeAt is the exact stdout of event ev that hands text to the
	// model, nil when ev's output does not reach it. A notice is taken
	// (and so marked as heard) only at an event that can carry it.
	NoticeAt(ev *Event, text string) []byte
}

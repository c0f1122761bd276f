package agent

import (
	"fmt"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// ForkRequest asks for a conversation that continues session from a turn
// boundary.
type ForkRequest struct {
	Session string
	// Transcript and Point are the position recorded at that turn's start
	// (the fork ends before its prompt) or, with End, at its end (the
	// fork keeps the turn).
	Transcript string
	Point      journal.ForkPoint
	End        bool
	// Prompt is the turn's prompt, and Nth how many earlier prompts of the
	// session had the same text: agents whose files can only be cut at a
	// prompt find the turn by them.
	Prompt string
	Nth    int
	// Dir is the folder the agent works in (the workspace root).
	Dir string
}

// Forked is a conversation written by a fork.
type Forked struct {
	Session    string // the new session id
	Transcript string // the new conversation file
	Resume     string // the command that continues it
}

// Refusal is a conversation rewind that cannot be done, with the reason
// for the user; nothing was written.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Refusef makes a *Refusal.
func Refusef(format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

// FirstTurn is the refusal of a fork before a session's first prompt.
var FirstTurn = &Refusal{Reason: "there is no conversation before that prompt to resume (it was the session's first); start a new session instead"}

// NoEnd is the refusal of a fork at the end of a turn whose end recorded
// no position.
var NoEnd = &Refusal{Reason: "the end of that turn recorded no position in the agent's conversation; rewind to the turn's start instead"}

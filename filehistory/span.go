package filehistory

import "github.com/rewind-lsp/rewind-lsp/journal"

// Span is what one turn, or one step of a turn, did: the states of the
// files just before and just after it, and what names it. A revert takes a
// span back, blame gives a span's lines to it, and a hunk's revert is
// offered for one (docs/STEPS.md tells what a step's states are).
type Span struct {
	Turn    int    // the turn's number
	Step    int    // the step's number within the turn; 0 for the whole turn
	Session string // the agent session whose turn it is
	// ID is the entry that names the span: the turn's start, or the step's
	// tool entry.
	ID journal.EntryID
	// Before and After are the states just before and just after: the
	// turn's start and end, or the step's state before its call and the one
	// its post recorded. For a turn still open, After is the state now
	// (when the caller knows it).
	Before, After journal.Snap
	Prompt        string // the turn's prompt
	// End is the entry that recorded After: the turn's end, or the step's
	// tool entry; nil for a turn still open.
	End *journal.Entry
}

// TurnSpan is the span of turn t; now, when set, is the state now, the
// After of a turn still open (which has no end recorded).
func TurnSpan(t journal.Turn, now *journal.Snap) Span {
	sp := Span{Turn: t.Number, Session: t.Start.Session, ID: t.Start.ID, Before: t.Start.Snapshot, Prompt: t.Start.Prompt, End: t.End}
	switch {
	case t.End != nil:
		sp.After = t.End.Snapshot
	case now != nil:
		sp.After = *now
	}
	return sp
}

// StepSpan is the span of the step whose tool entry is step, in turn (its
// number) whose prompt is prompt.
func StepSpan(turn int, prompt string, step *journal.Entry) Span {
	return Span{Turn: turn, Step: step.Step, Session: step.Session, ID: step.ID, Before: step.StepStart, After: step.Snapshot, Prompt: prompt, End: step}
}

// Wrote reports whether the span wrote rel, as its recorded end tells
// (TurnWrote); a turn still open tells nothing yet.
func (s Span) Wrote(rel string) bool { return s.End != nil && TurnWrote(s.End, rel) }

// Attributed reports whether the files the span wrote are known apart from
// what others changed meanwhile: its session's hooks reported its calls.
func (s Span) Attributed() bool { return s.End != nil && s.End.Attributed }

// Gone reports whether gc dropped either of the span's states.
func (s Span) Gone(h *journal.History) bool { return h.Gone(s.Before) || h.Gone(s.After) }

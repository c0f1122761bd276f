package agent

import (
	"errors"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"io"
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

// eachLineBack calls fn with each complete line of f before offset end
// (without its newline) and the offset where it starts, last line first,
// until fn returns false.
func eachLineBack(f io.ReaderAt, end int64, fn func(line []byte, start int64) bool) error {
	for end > 0 {
		line, start, err := lineBefore(f, end)
		if err != nil {
			return err
		}
		if !fn(line, start) {
			return nil
		}
		end = start
	}
	return nil
}

// eachLine calls fn with each complete line of f from offset start up to
// offset end (without its newline) and the offset where it starts, until
// fn returns false.
func eachLine(f io.ReaderAt, start, end int64, fn func(line []byte, start int64) bool) error {
	buf := make([]byte, 0, backChunk)
	chunk := make([]byte, backChunk)
	lineStart := start
	for off := start; off < end; {
		n := int64(len(chunk))
		if end-off < n {
			n = end - off
		}
		if _, err := f.ReadAt(chunk[:n], off); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		for i := int64(0); i < n; i++ {
			if chunk[i] != '\n' {
				buf = append(buf, chunk[i])
				continue
			}
			if !fn(buf, lineStart) {
				return nil
			}
			buf = buf[:0]
			lineStart = off + i + 1
		}
		off += n
	}
	return nil
}

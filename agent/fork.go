package agent

import (
	"errors"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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

// refusef makes a *Refusal.
func refusef(format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

// firstTurn is the refusal of a fork before a session's first prompt.
var firstTurn = &Refusal{Reason: "there is no conversation before that prompt to resume (it was the session's first); start a new session instead"}

// noEnd is the refusal of a fork at the end of a turn whose end recorded
// no position.
var noEnd = &Refusal{Reason: "the end of that turn recorded no position in the agent's conversation; rewind to the turn's start instead"}

// readPoint reads the point of the JSON Lines file at path now: its length
// up to its last complete line, and the marker of the last line before
// that which has one (marker returns "" for lines without). A file that
// does not exist yet is at the zero point. Only its tail is read.
func readPoint(path string, marker func(line []byte) string) (journal.ForkPoint, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return journal.ForkPoint{}, nil
	}
	if err != nil {
		return journal.ForkPoint{}, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return journal.ForkPoint{}, fmt.Errorf("transcript: %w", err)
	}
	// A last line still being written is not part of the point.
	end, err := lastNewline(f, fi.Size())
	if err != nil {
		return journal.ForkPoint{}, fmt.Errorf("transcript %s: %w", path, err)
	}
	p := journal.ForkPoint{ForkBytes: end}
	for end > 0 {
		line, start, err := lineBefore(f, end)
		if err != nil {
			return journal.ForkPoint{}, fmt.Errorf("transcript %s: %w", path, err)
		}
		if m := marker(line); m != "" {
			p.ForkUUID = m
			break
		}
		end = start
	}
	return p, nil
}

// openAt opens the file at path for a fork at point: it must exist, be at
// least point.ForkBytes long, and have a line end just before point.ForkBytes.
func openAt(path string, point journal.ForkPoint) (*os.File, os.FileInfo, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, refusef("the conversation file %s is missing", path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("transcript: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("transcript: %w", err)
	}
	if fi.Size() < point.ForkBytes {
		f.Close()
		return nil, nil, refusef("the conversation file %s is shorter (%d bytes) than at the fork point (%d bytes): it was cut or replaced",
			path, fi.Size(), point.ForkBytes)
	}
	if point.ForkBytes > 0 {
		// The fork point ends a line; anything else was moved under it.
		b := []byte{0}
		if _, err := f.ReadAt(b, point.ForkBytes-1); err != nil || b[0] != '\n' {
			f.Close()
			return nil, nil, refusef("the conversation file %s changed under the fork point: byte %d no longer ends a line",
				path, point.ForkBytes)
		}
	}
	return f, fi, nil
}

// writeNew writes the file dir/name, which must not exist, with write: it
// appears whole or not at all (whole.go), and never replaces a file.
func writeNew(dir, name string, perm fs.FileMode, write func(f *os.File) error) error {
	w, err := createWhole(dir, perm)
	if err != nil {
		return err
	}
	if err := write(w.File); err != nil {
		w.discard()
		return err
	}
	if err := w.publish(filepath.Join(dir, name)); err != nil {
		w.discard()
		return err
	}
	return nil
}

// lineAt reads the line of f that starts at off and is size bytes long
// (without its newline).
func lineAt(f io.ReaderAt, off int64, size int) []byte {
	line := make([]byte, size)
	if _, err := f.ReadAt(line, off); err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	return line
}

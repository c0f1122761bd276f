package conv

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// LastLine is the last line of a process's output s: what its error says.
func LastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// ReadPoint reads the point of the JSON Lines file at path now: its length
// up to its last complete line, and the marker of the last line before
// that which has one (marker returns "" for lines without). A file that
// does not exist yet is at the zero point. Only its tail is read.
func ReadPoint(path string, marker func(line []byte) string) (journal.ForkPoint, error) {
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
	end, err := LastNewline(f, fi.Size())
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

// OpenAt opens the file at path for a fork at point: it must exist, be at
// least point.ForkBytes long, and have a line end just before point.ForkBytes.
func OpenAt(path string, point journal.ForkPoint) (*os.File, os.FileInfo, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, agent.Refusef("the conversation file %s is missing", path)
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
		return nil, nil, agent.Refusef("the conversation file %s is shorter (%d bytes) than at the fork point (%d bytes): it was cut or replaced",
			path, fi.Size(), point.ForkBytes)
	}
	if point.ForkBytes > 0 {
		// The fork point ends a line; anything else was moved under it.
		b := []byte{0}
		if _, err := f.ReadAt(b, point.ForkBytes-1); err != nil || b[0] != '\n' {
			f.Close()
			return nil, nil, agent.Refusef("the conversation file %s changed under the fork point: byte %d no longer ends a line",
				path, point.ForkBytes)
		}
	}
	return f, fi, nil
}

// WriteNew writes the file dir/name, which must not exist, with write: it
// appears whole or not at all (whole.go), and never replaces a file.
func WriteNew(dir, name string, perm fs.FileMode, write func(f *os.File) error) error {
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

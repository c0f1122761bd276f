package commands

import (
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// The results carry the words every client shows (docs/PROTOCOL.md,
// "Words"); package words makes them, and these fill them in.

// ageOf is how long ago t was, in words, when the server answers; "" for
// no time.
func ageOf(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return words.Age(t, time.Now())
}

// fileChanges are a turn's changed files, with their words.
func fileChanges(cs []journal.Change) []FileChange {
	out := make([]FileChange, 0, len(cs))
	for _, c := range cs {
		f := FileChange{Path: c.Path, Change: c.Change, Added: c.Added, Removed: c.Removed, Kind: c.Kind, Mode: c.Mode}
		f.What = words.What(f.Added, f.Removed, f.Kind, f.Mode)
		f.Line = words.Line(f.Change, f.Path, f.What)
		out = append(out, f)
	}
	return out
}

// changesWhat says what a turn changed in all ("3 files changed (+4 -1)").
func changesWhat(cs []FileChange) string {
	added, removed := 0, 0
	for _, c := range cs {
		added += c.Added
		removed += c.Removed
	}
	return words.Changes(len(cs), added, removed)
}

// fillWords sets the words of a plan: its target's name, unless set, and
// each file's line (from its What, set where the file has line counts). In
// a plan made for an editor, the lines say which files the server writes
// on disk rather than in the editor's edit.
func (p *Plan) fillWords(editor bool) {
	t := &p.Target
	if t.Title == "" {
		t.Title = words.Target(t.Kind, t.Turn, t.Label, t.Prompt, t.ID)
	}
	for i := range p.Files {
		f := &p.Files[i]
		var notes []string
		if f.Conflict {
			notes = append(notes, words.Conflict(f.Overlaps))
		}
		if editor && f.Via == "disk" {
			notes = append(notes, words.OnDisk)
		}
		f.Line = words.Line(f.Change, f.Path, f.What, notes...)
	}
}

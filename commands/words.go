package commands

import (
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/agent/agents"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
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
		f.Line = words.Line(string(f.Change), f.Path, f.What)
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
		t.Title = words.Target(string(t.Kind), t.Turn, t.Label, t.Prompt, string(t.ID))
	}
	for i := range p.Files {
		f := &p.Files[i]
		var notes []string
		if f.Conflict {
			notes = append(notes, words.Conflict(f.Overlaps))
		}
		if editor && f.Via == snapshot.ViaDisk {
			notes = append(notes, words.OnDisk)
		}
		f.Line = words.Line(string(f.Change), f.Path, f.What, notes...)
	}
}

// TargetTitle names the state a rewind, revert or report went back to,
// its entry e's target, as a plan's target is named ("turn 3 (fix
// auth)"); a revert of a whole session names its turns.
func TargetTitle(h *journal.History, e *journal.Entry) string {
	if e.Kind == journal.KindRevert && e.Session != "" {
		return words.SessionTurns(e.Session)
	}
	t := h.Entry(e.TargetEntry)
	if t == nil { // a target gc dropped: what the entry itself says
		label := ""
		if strings.HasPrefix(e.Target, "@") {
			label = e.Target[1:]
		}
		return words.Target("", e.Turn, label, "", e.Target)
	}
	prompt := t.Prompt
	if t.Kind == journal.KindTurnEnd {
		if s := h.Entry(t.Start); s != nil {
			prompt = s.Prompt
		}
	}
	if t.Kind == journal.KindTool && t.Step > 0 {
		if s := h.Entry(t.Start); s != nil && e.Kind == journal.KindRevert {
			return words.StepName(s.Turn, t.Step, t.Tool, t.Detail)
		} else if s != nil {
			return words.StepTarget(s.Turn, t.Step, t.Tool, t.Detail)
		}
	}
	return words.Target(string(t.Kind), t.Turn, t.Label, prompt, string(t.ID))
}

// fillWords sets the words of a rewind listed from entry e: its title,
// and for an agent's own rewind its session's label and the sentence that
// says what it did.
func (r *RewindInfo) fillWords(h *journal.History, e *journal.Entry) {
	target := TargetTitle(h, e)
	by := ""
	if r.Agent != "" {
		by = agents.Title(r.Agent)
		r.SessionLabel = words.Session(r.Agent, r.Session)
		r.Message = words.AgentRewound(by, target, r.Files, r.Kept, r.Offered)
	}
	r.Title = words.Rewind(string(r.Mode), target, by, r.Undone)
}

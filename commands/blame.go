package commands

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// BlameArgs is the argument of rewind.blame: the file (Scope.URI, a
// file:// URI or a root-relative path).
type BlameArgs struct {
	Scope
}

// BlameResult is the result of rewind.blame.
type BlameResult struct {
	// Ranges are the runs of lines agent turns wrote, in order; other lines are absent.
	Ranges []BlameRange `json:"ranges"`
}

// BlameRange is a run of lines of the file's current content that one
// agent turn wrote and nobody changed since: lines StartLine to EndLine
// (0-based, end exclusive, as LSP counts lines).
type BlameRange struct {
	// StartLine is the first line of the run (0-based).
	StartLine int `json:"startLine"`
	// EndLine is the line after the run.
	EndLine int `json:"endLine"`
	// Turn is the number of the turn that wrote the lines.
	Turn  int             `json:"turn"`
	Entry journal.EntryID `json:"entry"` // the turn's start entry
	// Prompt is the turn's prompt.
	Prompt string `json:"prompt"`
	// Title names the turn in words ("Turn 3: fix auth", Title).
	Title string `json:"title"`
	// Session is the turn's agent session.
	Session string `json:"session"`
	// Agent is the session's agent.
	Agent string `json:"agent"`
	// SessionLabel names the session in words ("claude-code 6db2232a").
	SessionLabel string `json:"sessionLabel,omitempty"`
	// Source is who opened the turn.
	Source journal.Source `json:"source"`
	Time   string         `json:"time"` // when the turn ended
	// Age is how long ago the turn ended, in words ("5m ago", Age).
	Age string `json:"age"`
	// Step is the number of the turn's step (tool call) that wrote the
	// lines; 0 when no reported step did (a turn without tool reports, or
	// a change between its tool calls).
	Step int `json:"step,omitempty"`
	// StepTarget is the target of the state just before that step ("3.2").
	StepTarget string `json:"stepTarget,omitempty"`
	// StepTitle names the step in words ("turn 3, step 2: Edit src/a.go").
	StepTitle string `json:"stepTitle,omitempty"`
}

// Blame tells which agent turn wrote each line of a file's current content
// (the open buffer when the editor holds the file, else the disk), for the
// lines no one changed since. Other lines are absent.
func (s *Service) Blame(ctx context.Context, a BlameArgs) (*BlameResult, error) {
	if a.URI == "" {
		return nil, &ArgError{Field: "uri", Msg: "is required"}
	}
	rel, err := s.RelPath(a.URI)
	if err != nil {
		return nil, &ArgError{Field: "uri", Msg: err.Error()}
	}
	text, exists, err := s.currentText(rel)
	if err != nil {
		return nil, err
	}
	rs, err := s.ws.Blame(rel, text, exists)
	if err != nil {
		return nil, err
	}
	out := &BlameResult{Ranges: make([]BlameRange, 0, len(rs))}
	for _, r := range rs {
		t := r.Turn
		when := t.Start.Time
		if t.End != nil {
			when = t.End.Time
		}
		br := BlameRange{StartLine: r.StartLine, EndLine: r.EndLine, Turn: t.Number, Entry: t.Start.ID,
			Prompt: t.Start.Prompt, Title: words.Title(t.Number, t.Start.Prompt), Session: t.Start.Session, Agent: t.Start.Agent,
			SessionLabel: words.Session(t.Start.Agent, t.Start.Session),
			Source:       t.Start.Source, Time: stamp(when), Age: ageOf(when)}
		if e := r.Step; e != nil {
			br.Step, br.StepTarget = e.Step, fmt.Sprintf("%d.%d", t.Number, e.Step)
			br.StepTitle = words.Step(t.Number, e.Step, e.Tool, e.Detail)
		}
		out.Ranges = append(out.Ranges, br)
	}
	return out, nil
}

// currentText is rel's current content: the editor's buffer when it holds
// the file open, else the disk. A symbolic link or anything but a regular
// file has no text; a missing file does not exist.
func (s *Service) currentText(rel string) ([]byte, bool, error) {
	if s.opts.Overlay != nil {
		if text, ok := s.opts.Overlay.Open(rel); ok {
			return text, true, nil
		}
	}
	p := filepath.Join(s.opts.Root, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, true, nil
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return data, err == nil, err
}

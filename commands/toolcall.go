package commands

import (
	"context"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// ToolCallArgs is one tool call of an agent session.
type ToolCallArgs struct {
	Scope
	// Session is the agent session of the call; "" for the turn opened
	// without one (rewind.turnStart with no session).
	Session string `json:"session"`
	// Tool is the tool's name ("Write", "Bash").
	Tool string `json:"tool"`
	// ToolUse is the agent's id of the call, which pairs its pre and post.
	ToolUse string `json:"toolUse,omitempty"`
	Phase   string `json:"phase"` // pre or post
	// Paths are the root-relative files the call wrote.
	Paths []string `json:"paths,omitempty"`
	// Capture asks for a capture instead of Paths (a shell command may
	// write anything).
	Capture bool `json:"capture,omitempty"`
	// Detail says what the call is about, in one line: the shell command,
	// the file it writes. It names the call's step.
	Detail string `json:"detail,omitempty"`
}

// ToolCallResult says what was recorded: the tool entry ("" when there was
// nothing to record) and, for a finished call, the files it wrote and its
// step.
type ToolCallResult struct {
	// Entry is the tool entry ("" when there was nothing to record).
	Entry journal.EntryID `json:"entry"`
	// Files are the files a finished call wrote.
	Files []string `json:"files"`
	// Step is the call's step in its turn (0: it changed nothing, or no
	// turn of its session was open).
	Step int `json:"step,omitempty"`
}

// ToolCall records a tool call so the session's turn end knows what its
// tools wrote. A call retried under its key answers what it recorded.
func (s *Service) ToolCall(ctx context.Context, a ToolCallArgs) (*ToolCallResult, error) {
	if strings.TrimSpace(a.Tool) == "" {
		return nil, &ArgError{Field: "tool", Msg: "is required: the tool's name (Write, Bash…)"}
	}
	switch journal.Phase(a.Phase) {
	case journal.PhasePre, journal.PhasePost:
	case "":
		a.Phase = string(journal.PhasePost)
	default:
		return nil, &ArgError{Field: "phase", Msg: `must be "pre" or "post"`}
	}
	var paths []string
	for _, p := range a.Paths {
		rel, err := s.RelPath(p)
		if err != nil {
			return nil, &ArgError{Field: "paths", Msg: err.Error()}
		}
		paths = append(paths, rel)
	}
	e, err := s.ws.RecordTool(ctx, workspace.ToolCall{Session: a.Session, Tool: a.Tool, ToolUse: a.ToolUse, Phase: journal.Phase(a.Phase),
		Detail: a.Detail, Paths: paths, Capture: a.Capture, Caller: workspace.Caller{Actor: s.opts.Actor, Key: CallOf(ctx).Key}})
	if err != nil {
		return nil, err
	}
	out := &ToolCallResult{Files: []string{}}
	if e != nil {
		out.Entry = e.ID
		if e.Files != nil {
			out.Files = e.Files
		}
		out.Step = e.Step
	}
	return out, nil
}

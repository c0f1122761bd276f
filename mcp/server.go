package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rewind-lsp/rewind-lsp/agent/agents"
	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Error texts the tools answer with; agents may match them, so they are
// part of the contract (docs/PROTOCOL.md, "Agents").
const (
	ErrNoCheckpoint = "No active checkpoint."
	ErrEmptyReport  = "Report cannot be empty."
	ErrEmptyGoal    = "Goal cannot be empty."
)

// Server is the MCP server of one root and one connection.
type Server struct {
	cmds    commands.Client
	version string

	calls   sync.Mutex // one tool call at a time
	mu      sync.Mutex
	active  *checkpoint // the latest checkpoint made through this connection
	session string      // the agent session this connection serves, when known
	conn    string      // this connection's lock in the store (maintenance.HoldConnection)
}

type checkpoint struct {
	entry, label, goal string
}

// New returns the server of the root that cmds serves: a commands.Auto
// forwards to the language server running for the root (which knows the
// editors' unsaved buffers), else runs in this process.
func New(cmds commands.Client, version string) *Server {
	return &Server{cmds: cmds, version: version}
}

// WithSession names the agent session this connection serves (the agent
// that started the server names it in the environment): a rewind the agent
// makes during that session's open turn keeps the turn open. It returns s.
func (s *Server) WithSession(id string) *Server {
	s.session = id
	return s
}

// WithConnection names this connection's lock in the store
// (maintenance.HoldConnection): its checkpoints stay pinned while it is held.
// It returns s.
func (s *Server) WithConnection(id string) *Server {
	s.conn = id
	return s
}

// CheckpointIn is the input of the checkpoint tool.
type CheckpointIn struct {
	Goal string `json:"goal,omitempty" jsonschema:"Required, not empty: what you are about to try (kept with the checkpoint and shown in the editors)."`
}

// RewindIn is the input of the rewind tool.
type RewindIn struct {
	Report string `json:"report,omitempty" jsonschema:"Required, not empty: what you learnt on the path you are abandoning; it is kept in the journal as a summary."`
	Target string `json:"target,omitempty" jsonschema:"Where to go back to: by default the latest checkpoint you made in this session; else @agent-N, a turn number (the state before that turn), turn:N:end, N.M (the state just before step M of turn N: one tool call), ~1, or an entry id."`
}

// TurnsIn is the input of the turns tool.
type TurnsIn struct {
	Limit int `json:"limit,omitempty" jsonschema:"Show only the latest N turns and checkpoints (default: all)."`
}

// DiffIn is the input of the diff tool.
type DiffIn struct {
	Target string `json:"target,omitempty" jsonschema:"Required: @agent-N, a turn number (the state before that turn), turn:N:end, N.M (the state just before step M of turn N: one tool call), ~1, or an entry id."`
}

// MCPServer builds the SDK server with the four tools, each named by the
// command it calls (commands.Spec.Tool).
func (s *Server) MCPServer() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "rewind-lsp", Version: s.version}, &sdk.ServerOptions{
		Instructions: "rewind-lsp records this workspace's files at every turn. Call checkpoint with your goal before trying " +
			"something uncertain; if it does not work out, call rewind with a report of what you learnt: the files come " +
			"back exactly (shell edits too), the report is kept, and the user can undo the rewind.",
	})
	sdk.AddTool(srv, &sdk.Tool{Name: commands.Checkpoint.Tool, Description: "Record the workspace's files now, before you try something, " +
		"with your goal. rewind brings the files back to this point later."}, serial(s, s.checkpoint))
	sdk.AddTool(srv, &sdk.Tool{Name: commands.Rewind.Tool, Description: "Restore the workspace's files to your latest checkpoint (or to target) " +
		"and keep a report of what you learnt. Files someone else changed since are conflicts: nothing is restored then. " +
		"The user can undo a rewind."}, serial(s, s.rewind))
	sdk.AddTool(srv, &sdk.Tool{Name: commands.List.Tool, Description: "List the recorded turns (prompt, files changed, and their steps: each tool call that changed files) and checkpoints, newest last."}, serial(s, s.turns))
	sdk.AddTool(srv, &sdk.Tool{Name: commands.Preview.Tool, Description: "The unified diff from the files now to target: what a rewind to target would change."}, serial(s, s.diff))
	return srv
}

// serial runs tool calls one at a time, as the agent (actor "mcp"), for
// the session the call names in its _meta (agents.SessionFromMeta: Codex
// names its thread there), else the connection's; each recording call
// gets its own idempotency key from the command set.
func serial[In any](s *Server, h sdk.ToolHandlerFor[In, any]) sdk.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
		s.calls.Lock()
		defer s.calls.Unlock()
		session := s.session
		if req != nil && req.Params != nil {
			if id := agents.SessionFromMeta(req.Params.GetMeta()); id != "" {
				session = id
			}
		}
		ctx = commands.WithCall(ctx, commands.Call{Actor: "mcp", Source: journal.SourceMCP, Session: session})
		return h(ctx, req, in)
	}
}

// Run serves MCP on stdin and stdout until the client hangs up.
func (s *Server) Run(ctx context.Context) error {
	return s.MCPServer().Run(ctx, &sdk.StdioTransport{})
}

func text(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func (s *Server) checkpoint(ctx context.Context, _ *sdk.CallToolRequest, in CheckpointIn) (*sdk.CallToolResult, any, error) {
	goal := strings.TrimSpace(in.Goal)
	if goal == "" {
		return nil, nil, errors.New(ErrEmptyGoal)
	}
	// The label (agent-N, the next free N) is given under the journal's
	// lock, so two agents never share one.
	r, err := commands.Checkpoint.Call(ctx, s.cmds, commands.CheckpointArgs{Goal: goal, Agent: true, Conn: s.conn})
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	s.active = &checkpoint{entry: string(r.Entry), label: r.Label, goal: goal}
	s.mu.Unlock()
	return text("Checkpoint %s recorded (%d files). Call rewind with a report to come back here.", r.Label, r.Files), nil, nil
}

func (s *Server) rewind(ctx context.Context, _ *sdk.CallToolRequest, in RewindIn) (*sdk.CallToolResult, any, error) {
	report := strings.TrimSpace(in.Report)
	if report == "" {
		return nil, nil, errors.New(ErrEmptyReport)
	}
	s.mu.Lock()
	active := s.active
	s.mu.Unlock()
	target, name := strings.TrimSpace(in.Target), strings.TrimSpace(in.Target)
	if target == "" {
		if active == nil {
			return nil, nil, errors.New(ErrNoCheckpoint)
		}
		// Its label names it alone (agent labels are given once, in
		// order): @label is what log and the editors show.
		target, name = "@"+active.label, "checkpoint "+active.label
	}
	a := commands.RewindArgs{Target: target, Mode: "code", Report: report}
	if in.Target == "" {
		// Back to its own checkpoint: what changed since is the agent's,
		// except what the person saved or holds unsaved in an editor.
		a.OwnSince = journal.EntryID(active.entry)
	}
	r, err := commands.Rewind.Call(ctx, s.cmds, a)
	if err != nil {
		return nil, nil, toolError(err)
	}
	if !r.Applied {
		return nil, nil, refusal(r)
	}
	if r.Entry == "" {
		// The files already were there: nothing to restore, but the report
		// is kept all the same.
		if _, err := commands.Rewind.Call(ctx, s.cmds, commands.RewindArgs{Target: target, Mode: "summarize", Report: report}); err != nil {
			return nil, nil, toolError(err)
		}
	}
	if in.Target == "" {
		s.mu.Lock()
		if s.active == active {
			s.active = nil
		}
		s.mu.Unlock()
	}
	var files []string
	if r.Plan != nil {
		for _, f := range r.Plan.Files {
			files = append(files, string(f.Change)+" "+f.Path)
		}
	}
	if len(files) == 0 {
		return text("Nothing to restore: the files are as they were at %s. Your report is kept.", name), nil, nil
	}
	return text("Restored %d files to %s: %s. Your report is kept. Re-read these files before you edit them; "+
		"the user can undo this rewind (rewind-lsp undo).", len(files), name, strings.Join(files, ", ")), nil, nil
}

// refusal is the tool error of a rewind that was not applied: for
// conflicts, the list of files.
func refusal(r *commands.RewindResult) error {
	var conflicts []string
	if r.Plan != nil {
		for _, f := range r.Plan.Files {
			if f.Conflict {
				conflicts = append(conflicts, f.Path)
			}
		}
	}
	if len(conflicts) > 0 {
		return fmt.Errorf("Conflict: nothing was restored. These files were changed by someone else since the checkpoint "+
			"(an editor saved them, or holds them unsaved), and a rewind never overwrites that: %s", strings.Join(conflicts, ", "))
	}
	return fmt.Errorf("Nothing was restored: %s", r.FailureReason)
}

// toolError words a command error for the model.
func toolError(err error) error {
	var ae *commands.ArgError
	if errors.As(err, &ae) {
		return errors.New(ae.Msg)
	}
	return err
}

func (s *Server) turns(ctx context.Context, _ *sdk.CallToolRequest, in TurnsIn) (*sdk.CallToolResult, any, error) {
	if in.Limit < 0 {
		return nil, nil, errors.New("limit must not be negative")
	}
	l, err := commands.List.Call(ctx, s.cmds, commands.ListArgs{Limit: in.Limit})
	if err != nil {
		return nil, nil, err
	}
	return text("%s", formatTurns(l)), nil, nil
}

func (s *Server) diff(ctx context.Context, _ *sdk.CallToolRequest, in DiffIn) (*sdk.CallToolResult, any, error) {
	target := strings.TrimSpace(in.Target)
	if target == "" {
		return nil, nil, errors.New("Target cannot be empty.")
	}
	p, err := commands.Preview.Call(ctx, s.cmds, commands.PreviewArgs{Target: target})
	if err != nil {
		return nil, nil, toolError(err)
	}
	if p.DiffText() == "" && len(p.Files) == 0 {
		return text("No difference: the files are as they were at %s.", target), nil, nil
	}
	out := p.Diff
	for _, sk := range p.Skipped {
		out += fmt.Sprintf("(skipped %s: %s)\n", sk.Path, sk.Reason)
	}
	return text("%s", out), nil, nil
}

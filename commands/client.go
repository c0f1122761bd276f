package commands

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/google/uuid"
)

// Client is the command set (docs/PROTOCOL.md, "Commands") as the command
// line, hooks and
// the MCP adapter use it. *Service runs commands in this process; a Remote
// forwards them to the language server running for the root; Auto picks
// one per call. Each command-line verb is written once, against Client.
type Client interface {
	Checkpoint(ctx context.Context, a CheckpointArgs) (*CheckpointResult, error)
	TurnStart(ctx context.Context, a TurnStartArgs) (*TurnStartResult, error)
	TurnEnd(ctx context.Context, a TurnEndArgs) (*TurnEndResult, error)
	List(ctx context.Context, a ListArgs) (*ListResult, error)
	Preview(ctx context.Context, a PreviewArgs) (*Plan, error)
	Rewind(ctx context.Context, a RewindArgs) (*RewindResult, error)
	Undo(ctx context.Context, a UndoArgs) (*RewindResult, error)
	FileHistory(ctx context.Context, a FileHistoryArgs) (*FileHistoryResult, error)
	Status(ctx context.Context, a StatusArgs) (*StatusResult, error)
	Revert(ctx context.Context, a RevertArgs) (*RewindResult, error)
	Blame(ctx context.Context, a BlameArgs) (*BlameResult, error)
}

var (
	_ Client = (*Service)(nil)
	_ Client = (*Auto)(nil)
)

// Call is who makes a command call, and its idempotency key: a call
// retried with the same key (after its answer was lost) returns what the
// first one recorded instead of running again.
type Call struct {
	Key    string `json:"key,omitempty"`
	Actor  string `json:"actor,omitempty"`
	Source string `json:"source,omitempty"`
}

type callKey struct{}

// WithCall attaches c to ctx for the commands called with it.
func WithCall(ctx context.Context, c Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallOf returns the Call attached to ctx (zero when none).
func CallOf(ctx context.Context) Call {
	c, _ := ctx.Value(callKey{}).(Call)
	return c
}

// NewKey returns a fresh idempotency key.
func NewKey() string { return uuid.NewString() }

// Auto runs each command through the language server running for the root
// when there is one (its capture costs only what changed, it sees the
// editor's unsaved buffers, and the editors hear of the change at once),
// and in this process otherwise. A forwarded call whose answer is lost —
// the server died, hung or stopped — is retried, and finally run here,
// under the same idempotency key, so it never happens twice.
type Auto struct {
	remote *Remote
	open   func() (*Service, error)
	svc    *Service
}

// NewAuto returns the client of the root whose store is storeDir; open
// opens the root in this process when no server answers. With
// REWIND_LSP_NO_SERVER set, nothing is forwarded.
func NewAuto(storeDir string, open func() (*Service, error)) *Auto {
	a := &Auto{open: open}
	if os.Getenv("REWIND_LSP_NO_SERVER") == "" {
		a.remote = NewRemote(storeDir)
	}
	return a
}

// Local returns the Service of this process, opening it on first use.
func (a *Auto) Local() (*Service, error) {
	if a.svc == nil {
		svc, err := a.open()
		if err != nil {
			return nil, err
		}
		a.svc = svc
	}
	return a.svc, nil
}

// invoke runs one command: forwarded when a server answers, else locally.
func invoke[A, R any](ctx context.Context, a *Auto, name string, args A, local func(*Service, context.Context, A) (*R, error)) (*R, error) {
	if mutating(name) && CallOf(ctx).Key == "" {
		c := CallOf(ctx)
		c.Key = NewKey()
		ctx = WithCall(ctx, c)
	}
	if a.remote != nil {
		out := new(R)
		err := a.remote.Call(ctx, name, args, out)
		if err == nil {
			return out, nil
		}
		if !errors.Is(err, ErrNoServer) && !errors.Is(err, ErrNoAnswer) {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	svc, err := a.Local()
	if err != nil {
		return nil, err
	}
	// An operation a killed process left half done is finished first,
	// whatever this command is. A command that only reads does not wait
	// long for that: when another process holds the lock (a stopped
	// server in the middle of a rewind) it answers from the journal as it
	// is.
	rctx := ctx
	if !mutating(name) {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, time.Second)
		defer cancel()
	}
	if _, err := svc.Workspace().Recover(rctx); err != nil && (mutating(name) || ctx.Err() != nil) {
		return nil, err
	}
	return local(svc, ctx, args)
}

// mutating reports whether command name records something, so it carries
// an idempotency key.
func mutating(name string) bool {
	switch name {
	case NameCheckpoint, NameTurnStart, NameTurnEnd, NameRewind, NameUndo, NameRevert:
		return true
	}
	return false
}

// Checkpoint implements Client.
func (a *Auto) Checkpoint(ctx context.Context, x CheckpointArgs) (*CheckpointResult, error) {
	return invoke(ctx, a, NameCheckpoint, x, (*Service).Checkpoint)
}

// TurnStart implements Client.
func (a *Auto) TurnStart(ctx context.Context, x TurnStartArgs) (*TurnStartResult, error) {
	return invoke(ctx, a, NameTurnStart, x, (*Service).TurnStart)
}

// TurnEnd implements Client.
func (a *Auto) TurnEnd(ctx context.Context, x TurnEndArgs) (*TurnEndResult, error) {
	return invoke(ctx, a, NameTurnEnd, x, (*Service).TurnEnd)
}

// List implements Client.
func (a *Auto) List(ctx context.Context, x ListArgs) (*ListResult, error) {
	return invoke(ctx, a, NameList, x, (*Service).List)
}

// Preview implements Client.
func (a *Auto) Preview(ctx context.Context, x PreviewArgs) (*Plan, error) {
	return invoke(ctx, a, NamePreview, x, (*Service).Preview)
}

// Rewind implements Client.
func (a *Auto) Rewind(ctx context.Context, x RewindArgs) (*RewindResult, error) {
	return invoke(ctx, a, NameRewind, x, (*Service).Rewind)
}

// Undo implements Client.
func (a *Auto) Undo(ctx context.Context, x UndoArgs) (*RewindResult, error) {
	return invoke(ctx, a, NameUndo, x, (*Service).Undo)
}

// FileHistory implements Client.
func (a *Auto) FileHistory(ctx context.Context, x FileHistoryArgs) (*FileHistoryResult, error) {
	return invoke(ctx, a, NameFileHistory, x, (*Service).FileHistory)
}

// ToolCall records which files an agent's tool call wrote (the command
// line's own command, used by hooks).
func (a *Auto) ToolCall(ctx context.Context, x ToolCallArgs) (*ToolCallResult, error) {
	return invoke(ctx, a, NameToolCall, x, (*Service).ToolCall)
}

// Revert implements Client.
func (a *Auto) Revert(ctx context.Context, x RevertArgs) (*RewindResult, error) {
	return invoke(ctx, a, NameRevert, x, (*Service).Revert)
}

// Blame implements Client.
func (a *Auto) Blame(ctx context.Context, x BlameArgs) (*BlameResult, error) {
	return invoke(ctx, a, NameBlame, x, (*Service).Blame)
}

// Status implements Client.
func (a *Auto) Status(ctx context.Context, x StatusArgs) (*StatusResult, error) {
	return invoke(ctx, a, NameStatus, x, (*Service).Status)
}

package commands

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Client runs the commands of the registry: a *Service in this process, an
// *Auto through the language server running for the root when there is
// one. Callers write typed calls through the registry's entries, as
// commands.Checkpoint.Call(ctx, client, CheckpointArgs{…}); each
// command-line verb is written once, against Client.
type Client interface {
	// invoke runs the command of spec: forwarded with args (its result
	// decoded into remote) when a server answers, else by calling local.
	invoke(ctx context.Context, spec Spec, args, remote any, local func(context.Context, *Service) error) error
}

var (
	_ Client = (*Service)(nil)
	_ Client = (*Auto)(nil)
)

// invoke implements Client: a Service runs every command itself.
func (s *Service) invoke(ctx context.Context, _ Spec, _, _ any, local func(context.Context, *Service) error) error {
	return local(ctx, s)
}

// Call is who makes a command call, and its idempotency key: a call
// retried with the same key (after its answer was lost) returns what the
// first one recorded instead of running again.
type Call struct {
	Key    string         `json:"key,omitempty"`
	Actor  string         `json:"actor,omitempty"`
	Source journal.Source `json:"source,omitempty"`
	// Session is the agent session the call comes from, when an agent
	// makes it (its MCP server, or the command line run from its shell):
	// a rewind, revert or undo it makes during that session's open turn
	// keeps the turn open (docs/PROTOCOL.md, "Agents").
	Session string `json:"session,omitempty"`
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
	mu     sync.Mutex // guards svc: the ACP proxy calls from several sessions at once
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
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.svc == nil {
		svc, err := a.open()
		if err != nil {
			return nil, err
		}
		a.svc = svc
	}
	return a.svc, nil
}

// invoke implements Client: a forwarded call when a server answers, else
// a local one.
func (a *Auto) invoke(ctx context.Context, spec Spec, args, remote any, local func(context.Context, *Service) error) error {
	if spec.Mutating && CallOf(ctx).Key == "" {
		c := CallOf(ctx)
		c.Key = NewKey()
		ctx = WithCall(ctx, c)
	}
	if a.remote != nil {
		err := a.remote.Call(ctx, spec.Name, args, remote)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrNoServer) && !errors.Is(err, ErrNoAnswer) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	svc, err := a.Local()
	if err != nil {
		return err
	}
	if !spec.NoRecover {
		// An operation a killed process left half done is finished
		// first, whatever this command is. A command that only reads does
		// not wait long for that: when another process holds the lock (a
		// stopped server in the middle of a rewind) it answers from the
		// journal as it is.
		rctx := ctx
		if !spec.Mutating {
			var cancel context.CancelFunc
			rctx, cancel = context.WithTimeout(ctx, time.Second)
			defer cancel()
		}
		if _, err := svc.Recover(rctx, RecoverArgs{}); err != nil && (spec.Mutating || ctx.Err() != nil) {
			return err
		}
	}
	return local(ctx, svc)
}

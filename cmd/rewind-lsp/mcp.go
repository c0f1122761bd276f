package main

import (
	"context"
	"flag"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/lsp"
	"github.com/rewind-lsp/rewind-lsp/mcp"
)

// mcp serves the agent's tools (SPEC §9) on stdio for the root of --root or
// the working folder.
func (c *cli) mcp(args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	c.actor = "mcp"
	// Fail early, before the client's handshake, on a root that cannot be
	// opened.
	if _, err := c.service(""); err != nil {
		return err
	}
	return mcp.New(&cliCommands{c: c}, lsp.VersionString()).Run(c.ctx)
}

// cliCommands runs each command through the language server running for
// the root when there is one (it knows the editors' unsaved buffers, and
// the editors hear of the change at once), else on a local service.
type cliCommands struct {
	c   *cli
	mu  sync.Mutex
	svc *commands.Service
}

func (x *cliCommands) local() (*commands.Service, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.svc == nil {
		svc, err := x.c.service("")
		if err != nil {
			return nil, err
		}
		x.svc = svc
	}
	return x.svc, nil
}

// call forwards name to a running server, or runs do on the local service.
func call[A, R any](x *cliCommands, name string, a A, do func(*commands.Service, A) (*R, error)) (*R, error) {
	r := new(R)
	if handled, err := x.c.viaServer("", name, a, r); handled || err != nil {
		return r, err
	}
	svc, err := x.local()
	if err != nil {
		return nil, err
	}
	return do(svc, a)
}

func (x *cliCommands) Checkpoint(ctx context.Context, a commands.CheckpointArgs) (*commands.CheckpointResult, error) {
	return call(x, commands.NameCheckpoint, a, func(s *commands.Service, a commands.CheckpointArgs) (*commands.CheckpointResult, error) {
		return s.Checkpoint(ctx, a)
	})
}

func (x *cliCommands) List(ctx context.Context, a commands.ListArgs) (*commands.ListResult, error) {
	return call(x, commands.NameList, a, func(s *commands.Service, a commands.ListArgs) (*commands.ListResult, error) {
		return s.List(ctx, a)
	})
}

func (x *cliCommands) Preview(ctx context.Context, a commands.PreviewArgs) (*commands.Plan, error) {
	return call(x, commands.NamePreview, a, func(s *commands.Service, a commands.PreviewArgs) (*commands.Plan, error) {
		return s.Preview(ctx, a)
	})
}

func (x *cliCommands) Rewind(ctx context.Context, a commands.RewindArgs) (*commands.RewindResult, error) {
	return call(x, commands.NameRewind, a, func(s *commands.Service, a commands.RewindArgs) (*commands.RewindResult, error) {
		return s.Rewind(ctx, a)
	})
}

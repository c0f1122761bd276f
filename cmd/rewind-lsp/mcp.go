package main

import (
	"flag"
	"os"

	"github.com/rewind-lsp/rewind-lsp/agent/agents"
	"github.com/rewind-lsp/rewind-lsp/lsp"
	"github.com/rewind-lsp/rewind-lsp/maintenance"
	"github.com/rewind-lsp/rewind-lsp/mcp"
)

// mcp serves the agent's tools (package mcp) on stdio for the root of --root or
// the working folder, through the language server running for the root
// when there is one.
func (c *cli) mcp(args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	c.actor = "mcp"
	cl, err := c.client("")
	if err != nil {
		return err
	}
	// Fail before the client's handshake on a root that cannot be opened.
	if _, err := c.service(""); err != nil {
		return err
	}
	// While this server runs, its checkpoints are the agent's active ones.
	_, store, err := c.locate("")
	if err != nil {
		return err
	}
	conn, release, err := maintenance.HoldConnection(store)
	if err != nil {
		return err
	}
	defer release()
	// The agent that started this server names its session in the
	// environment: its rewinds during its turn keep the turn open.
	return mcp.New(cl, lsp.VersionString()).WithSession(agents.SessionFromEnv(os.Getenv)).WithConnection(conn).Run(c.ctx)
}

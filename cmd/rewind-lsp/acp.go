package main

import (
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/acp"
	"github.com/rewind-lsp/rewind-lsp/commands"
)

// acp is `rewind-lsp acp [--root DIR] -- COMMAND [ARG…]`: an Agent Client
// Protocol agent on stdio that runs COMMAND and stands between it and the
// editor (package acp, docs/ACP.md). It records through the same client as
// the hooks — the language server running for the root when there is one,
// else this process — and exits with the agent's status.
func (c *cli) acp(args []string) error {
	const use = "usage: rewind-lsp acp [--root DIR] -- COMMAND [ARG...]"
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || args[0] == "" || args[0][0] == '-' {
		return usagef("%s", use)
	}
	// A long-running process, unlike the other verbs.
	debug.SetGCPercent(100)
	c.actor = "acp"
	var mu sync.Mutex
	clients := map[string]*commands.Auto{}
	locate := func(dir string, ap commands.Applier) (string, commands.Client, error) {
		root, store, err := c.locate(dir)
		if err != nil {
			return "", nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		if cl := clients[store]; cl != nil {
			return root, cl, nil
		}
		cl := commands.NewAuto(store, func() (*commands.Service, error) {
			return commands.Open(commands.Options{Root: root, StoreDir: c.g.store, Actor: "acp", Applier: ap,
				MaxStoreBytes: c.g.maxStoreBytes, MaxAgeDays: c.g.maxAgeDays})
		})
		clients[store] = cl
		return root, cl, nil
	}
	code, err := acp.Run(c.ctx, c.stdin, c.stdout, acp.Options{Command: args, Locate: locate, Log: c.stderr})
	if err != nil {
		fmt.Fprintf(c.stderr, "rewind-lsp acp: %v\n", err)
	}
	if code != 0 {
		return &exitCode{code: code}
	}
	return nil
}

// exitCode ends the command line with a status of its own (the agent's),
// having said everything already.
type exitCode struct{ code int }

func (e *exitCode) Error() string { return fmt.Sprintf("exit status %d", e.code) }

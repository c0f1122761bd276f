// Command rewind-lsp records an AI agent's turns in a workspace and rewinds
// them: a Language Server on stdio for editors, and a command line for
// hooks, scripts and people (SPEC §5, §6).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

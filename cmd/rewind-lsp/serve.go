package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/rewind-lsp/rewind-lsp/lsp"
)

// serverMemoryLimit is the least soft memory limit of the server: above
// the live data of an 80,000-file tree (~60–90 MB). On larger roots the
// limit follows the live heap (memlimit.go).
const serverMemoryLimit = 140 << 20

// serve runs the Language Server on stdio. Nothing but LSP frames is ever
// written to stdout.
func (c *cli) serve(args []string) int {
	if len(args) > 0 && args[0] != "--stdio" {
		fmt.Fprintf(c.stderr, "rewind-lsp: serve takes no arguments, got %q\n", args[0])
		return exitUsage
	}
	if f, ok := c.stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			fmt.Fprintln(c.stderr, "rewind-lsp: serving LSP on stdio (an editor starts this; run `rewind-lsp help` for the command line)")
		}
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// A server lives beside the editor all day: collect garbage before
		// the heap grows past this (a soft limit) and hand memory back.
		debug.SetMemoryLimit(serverMemoryLimit)
		followLiveHeap(serverMemoryLimit)
	}
	return lsp.Run(c.ctx, c.stdin, c.stdout, c.stderr)
}

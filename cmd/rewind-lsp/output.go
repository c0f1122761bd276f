package main

import (
	"fmt"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// The words of results for people (a plan, the log, a conversation's
// fork) are made by package commands/text, which the ACP proxy answers
// with too.

// shortSnap is short for a snapshot ("" for none).
func shortSnap(s journal.Snap) string { return words.Short(s.String()) }

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

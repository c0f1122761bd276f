package main

import (
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// TestEveryRegistryVerbRuns: each command the registry gives a verb has a
// handler on the command line and a line in its usage, so a command added
// to the registry with a verb cannot be forgotten here.
func TestEveryRegistryVerbRuns(t *testing.T) {
	verbs := (&cli{}).verbs()
	for _, e := range commands.Entries() {
		v := e.Info().Verb
		if v == "" {
			continue
		}
		if verbs[v] == nil {
			t.Errorf("%s: the registry names verb %q, which the command line does not handle", e.Info().Name, v)
		}
		if !strings.Contains(usage, "\n  "+v+" ") {
			t.Errorf("%s: verb %q is missing from the usage text", e.Info().Name, v)
		}
	}
}

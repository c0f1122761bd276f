package agents

import (
	"slices"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// threeTurnsFiles is what the three prompts of the rewind tests change.
var threeTurnsFiles = [][]string{{"a.txt"}, {"a.txt", "b.txt"}, {"c.txt"}}

// checkThreeTurns checks that log lists exactly the turns of the three
// prompts (numbered 1 to 3, of session s and agent, recorded by hooks,
// ended, each with threeTurnsFiles) and, when steps is not nil, each
// turn's steps as name spells them.
func checkThreeTurns(t *testing.T, log commands.ListResult, prompts []string, s, agent string, steps [][]string, name func(commands.StepInfo) string) {
	t.Helper()
	if len(log.Turns) != 3 {
		t.Fatalf("log shows %d turns, want 3: %+v", len(log.Turns), log.Turns)
	}
	for i, tn := range log.Turns {
		var files, got []string
		for _, f := range tn.Changed {
			files = append(files, f.Path)
		}
		for _, st := range tn.Steps {
			got = append(got, name(st))
		}
		if tn.Turn != i+1 || tn.Prompt != prompts[i] || tn.Session != s || tn.Agent != agent || tn.Source != journal.SourceHook ||
			tn.Ended == "" || !slices.Equal(files, threeTurnsFiles[i]) || steps != nil && !slices.Equal(got, steps[i]) {
			t.Errorf("log turn %d: %+v (files %v, steps %q), want prompt %q, session %s, agent %s, files %v, steps %q",
				i+1, tn, files, got, prompts[i], s, agent, threeTurnsFiles[i], steps)
		}
	}
}

// stepTool names a step by its tool.
func stepTool(st commands.StepInfo) string { return st.Tool }

// stepToolFiles names a step by its tool and the files it changed.
func stepToolFiles(st commands.StepInfo) string {
	var changed []string
	for _, f := range st.Changed {
		changed = append(changed, f.Path)
	}
	return st.Tool + " " + strings.Join(changed, ",")
}

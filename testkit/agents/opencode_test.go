package agents

import "testing"

// openCodeKinds are opencode and Kilo, which run rewind-lsp's plugin.
var openCodeKinds = []Kind{OpenCode, Kilo}

// TestRewindOpenCode is TestRewindRealAgents for opencode and Kilo, after
// `rewind-lsp setup opencode|kilo --user` installed the plugin: three
// prompts make three turns with their files; `rewind 2 --mode both` puts
// the files back and forks the session through the agent's own server; the
// original session's next prompt carries the notice once (a synthetic part
// of the prompt); the fork, resumed with `--session`, sends the model only
// the first exchange, and the fork at turn 1's end that exchange with its
// answer; every hook answers within 5 s.
func TestRewindOpenCode(t *testing.T) {
	for _, k := range openCodeKinds {
		t.Run(string(k), func(t *testing.T) { rewindAgent(t, k) })
	}
}

// TestStepsOpenCode is TestStepsRealAgents for opencode and Kilo: one
// prompt of three tool calls (write, edit, bash) is one turn of three
// steps; rewind 1.2, undo and revert 1.2 work on them.
func TestStepsOpenCode(t *testing.T) {
	for _, k := range openCodeKinds {
		t.Run(string(k), func(t *testing.T) { stepsAgent(t, k) })
	}
}

package agents

import (
	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/claudecode"
	"github.com/rewind-lsp/rewind-lsp/agent/cline"
	"github.com/rewind-lsp/rewind-lsp/agent/codex"
	"github.com/rewind-lsp/rewind-lsp/agent/copilot"
	"github.com/rewind-lsp/rewind-lsp/agent/droid"
	"github.com/rewind-lsp/rewind-lsp/agent/gemini"
	"github.com/rewind-lsp/rewind-lsp/agent/opencode"
	"github.com/rewind-lsp/rewind-lsp/agent/pi"
	"github.com/rewind-lsp/rewind-lsp/agent/qwen"
)

// agents are the agents rewind-lsp takes turns from, in the order the
// command line lists them. A new agent is a package of its own beside the
// others, and one more name here.
var agents = []agent.Agent{claudecode.Agent, codex.Agent, gemini.Agent, copilot.Agent, qwen.Agent, droid.Agent, cline.Agent, pi.Agent, pi.Omp, opencode.Agent, opencode.Kilo}

// Lookup returns the agent named name, or nil.
func Lookup(name string) agent.Agent {
	for _, a := range agents {
		if a.Name() == name {
			return a
		}
	}
	return nil
}

// Title is the name people know agent name by ("Claude Code"), or the
// name as recorded when rewind-lsp does not know that agent.
func Title(name string) string {
	if a := Lookup(name); a != nil {
		return a.Title()
	}
	return name
}

// ForACP returns the agent whose ACP server gives name in its initialize
// answer (ACPAgent), or nil.
func ForACP(name string) agent.ACPAgent {
	for _, a := range agents {
		if ac, ok := a.(agent.ACPAgent); ok && ac.ACPName() == name {
			return ac
		}
	}
	return nil
}

// Names lists the agents' names.
func Names() []string {
	var out []string
	for _, a := range agents {
		out = append(out, a.Name())
	}
	return out
}

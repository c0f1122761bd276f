package main

import (
	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/commands"
)

// completeOwnRewind asks, at a hook event after the prompt (a tool event,
// the turn's end), whether the session's open turn continues from an
// earlier point of its conversation — the agent's own rewind, which runs no
// hook (Claude Code's Esc Esc, Qwen Code's /rewind; no other agent's is
// seen yet) — and if so has it recorded and completed
// (commands.AgentRewind: a running server does it, else this process).
// Nothing changes when the prompt continues from the end. Qwen Code's
// rewind is in its transcript by the next prompt, which asks at once (its
// Stop asks again, should that have failed); Claude Code's shows only at
// the prompt's first tool event or its end.
func (c *cli) completeOwnRewind(ag agent.Agent, ev *agent.Event) error {
	switch {
	case ev.SessionID == "" || ev.Transcript == "":
		return nil
	case ag.Name() == agent.ClaudeCode && ev.Kind != agent.Prompt:
	case ag.Name() == agent.Qwen && (ev.Kind == agent.Prompt || ev.Kind == agent.Stop):
	default:
		return nil
	}
	cl, err := c.client(ev.Cwd)
	if err != nil {
		return err
	}
	_, err = commands.AgentRewind.Call(c.call(), cl, commands.AgentRewindArgs{Agent: ag.Name(), Session: ev.SessionID, PromptID: ev.PromptID})
	return err
}

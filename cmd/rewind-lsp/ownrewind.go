package main

import (
	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/commands"
)

// completeOwnRewind asks, at a hook event after the prompt (a tool event,
// the turn's end), whether the session's open turn continues from an
// earlier point of its conversation — the agent's own rewind, which runs no
// hook (Claude Code's Esc Esc; opencode's and Kilo's /undo, seen in the
// leaf their prompt recorded) — and if so has it recorded and completed
// (commands.AgentRewind: a running server does it, else this process).
// Nothing changes when the prompt continues from the end.
func (c *cli) completeOwnRewind(ag agent.Agent, ev *agent.Event) error {
	if ev.SessionID == "" || !(ag.Name() == agent.ClaudeCode && ev.Transcript != "" || agent.IsOpenCode(ag.Name())) {
		return nil
	}
	cl, err := c.client(ev.Cwd)
	if err != nil {
		return err
	}
	_, err = commands.AgentRewind.Call(c.call(), cl, commands.AgentRewindArgs{Agent: ag.Name(), Session: ev.SessionID, PromptID: ev.PromptID})
	return err
}

package main

import (
	"encoding/json"
	"fmt"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// completeOwnRewind asks, at a hook event after the prompt (a tool event,
// the turn's end), whether the session's open turn continues from an
// earlier point of its conversation — the agent's own rewind, which runs no
// hook (Claude Code's Esc Esc, Qwen Code's /rewind; opencode's and
// Kilo's /undo, seen in the leaf their prompt recorded) — and if so has it
// recorded and completed (commands.AgentRewind: a running server does it,
// else this process). Nothing changes when the prompt continues from the
// end. The agent says at which events its rewind may show
// (agent.OwnRewinder): Qwen Code's is in its transcript by the next prompt,
// which asks at once (its Stop asks again, should that have failed);
// Claude Code's shows only at the prompt's first tool event or its end.
func (c *cli) completeOwnRewind(ag agent.Agent, ev *agent.Event) error {
	ow, ok := ag.(agent.OwnRewinder)
	if !ok || ev.SessionID == "" || !ow.OwnRewindShows(ev) {
		return nil
	}
	cl, err := c.client(ev.Cwd)
	if err != nil {
		return err
	}
	_, err = commands.AgentRewind.Call(c.call(), cl, commands.AgentRewindArgs{Agent: ag.Name(), Session: ev.SessionID, PromptID: ev.PromptID})
	return err
}

// hookOwnTool completes an agent's own checkpoint and rewind tools
// (agent.OwnTools), which take its conversation back and restore no file:
// its checkpoint is recorded as the session's agent checkpoint, and at its
// rewind the files the session changed since go back to it, as the agent's
// own rewind (its turn goes on); the hook then prints, for the agent, its
// report with what rewind-lsp did.
func (c *cli) hookOwnTool(ag agent.Agent, ev *agent.Event) error {
	if ev.SessionID == "" {
		return nil
	}
	cl, err := c.client(ev.Cwd)
	if err != nil {
		return err
	}
	ctx := commands.WithCall(c.ctx, commands.Call{Key: c.key, Actor: c.actor, Source: journal.Source(c.actor), Session: ev.SessionID})
	if ev.Kind == agent.Checkpointed {
		_, err := commands.Checkpoint.Call(ctx, cl, commands.CheckpointArgs{Goal: ev.Report, Agent: true})
		return err
	}
	r, err := commands.AgentRewind.Call(ctx, cl, commands.AgentRewindArgs{Agent: ag.Name(), Session: ev.SessionID, Report: ev.Report})
	if err != nil {
		return err
	}
	if r.Checkpoint == "" {
		fmt.Fprintf(c.stderr, "rewind-lsp hook: %s's rewind found no checkpoint of session %s recorded; no file restored\n", ag.Title(), ev.SessionID)
		return nil
	}
	if !r.Applied {
		fmt.Fprintf(c.stderr, "rewind-lsp hook: restoring the files to checkpoint @%s failed; none restored\n", r.Checkpoint)
	}
	var restored []string
	if r.Plan != nil && r.Applied {
		for _, f := range r.Plan.Files {
			restored = append(restored, string(f.Change)+" "+f.Path)
		}
	}
	ot, ok := ag.(agent.OwnTools)
	if !ok {
		return nil
	}
	_, err = c.stdout.Write(ot.Rewound(ev.Report, agent.CheckpointRewindText("@"+r.Checkpoint, restored, r.Kept)))
	return err
}

// hookGoBack answers, for the agent's extension, which recorded state of
// the files goes with the conversation entry the person goes back to in
// the agent's own interface (pi's /tree and /fork): one line of JSON,
// {"target": a rewind target, "title": its words}, the target "" when
// there is none. The extension then asks the person whether the files go
// back too, and rewinds them with the command line.
func (c *cli) hookGoBack(ag agent.Agent, ev *agent.Event) error {
	cl, err := c.client(ev.Cwd)
	if err != nil {
		return err
	}
	r, err := commands.AgentTarget.Call(c.call(), cl, commands.AgentTargetArgs{Agent: ag.Name(), Path: ev.Path})
	if err != nil {
		return err
	}
	out, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = c.stdout.Write(append(out, '\n'))
	return err
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/agents"
	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/rootpath"
)

// hookBudget is how long a hook may take: the agent waits for it, and a
// hook answers within 5 s whatever a running server does.
const hookBudget = 4500 * time.Millisecond

// hook records an agent's hook event. It never fails the agent: whatever
// happens it returns nil (exit 0) within hookBudget, and reports problems
// on stderr. Stdout carries only what the hook protocol reads: at the
// prompt event, a pending notice of the rewinds the session has not heard
// of, once, in the agent's own shape.
func (c *cli) hook(args []string) error {
	usage := "usage: rewind-lsp hook " + strings.Join(agents.Names(), "|") + " [EVENT]  (reads one hook event as JSON on stdin; EVENT names it for agents whose payloads do not)"
	if len(args) > 0 && args[0] == "git" {
		return c.hookGit(args[1:])
	}
	if len(args) < 1 || len(args) > 2 {
		return usagef("%s", usage)
	}
	ag := agents.Lookup(args[0])
	if ag == nil {
		return usagef("unknown agent %q; %s", args[0], usage)
	}
	event := ""
	if len(args) == 2 {
		event = args[1]
	}
	ctx, cancel := context.WithTimeout(c.ctx, hookBudget)
	defer cancel()
	c.ctx = ctx
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.hookEvent(ag, event)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		// Whatever is still running (a lock held by a stopped process, a
		// huge first capture) is cut off by the exit: the store is safe
		// from that at any moment, and a server that took the call records
		// it once (same key).
		fmt.Fprintf(c.stderr, "rewind-lsp hook: gave up after %v; the event may not be recorded\n", hookBudget)
	}
	return nil
}

// hookEvent reads and records one event, reporting problems on stderr.
func (c *cli) hookEvent(ag agent.Agent, event string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(c.stderr, "rewind-lsp hook: internal error: %v\n", r)
		}
		if err != nil {
			fmt.Fprintf(c.stderr, "rewind-lsp hook: %v\n", err)
			err = nil
		}
	}()
	data, err := io.ReadAll(io.LimitReader(c.stdin, 64<<20))
	if err != nil {
		return fmt.Errorf("read hook event: %w", err)
	}
	ev, err := ag.Parse(data, event)
	if err != nil {
		return err
	}
	c.actor = "hook"
	if ev.Kind == agent.Ignored {
		return nil // accepted and ignored
	}
	if ev.Cwd != "" {
		if fi, err := os.Stat(ev.Cwd); err != nil || !fi.IsDir() {
			return fmt.Errorf("the event's cwd %s is not a folder", ev.Cwd)
		}
	}
	if ev.Kind == agent.PreTool || ev.Kind == agent.PostTool || ev.Kind == agent.Stop {
		// An agent's own rewind (Claude Code's Esc Esc) may show only now;
		// the event is then recorded in the turn that carries the prompt on.
		if err := c.completeOwnRewind(ag, ev); err != nil {
			fmt.Fprintf(c.stderr, "rewind-lsp hook: completing %s's own rewind: %v\n", ag.Title(), err)
		}
	}
	if pr, ok := ag.(agent.Prompter); ok {
		return c.hookPrompter(ag, pr, ev)
	}
	switch ev.Kind {
	case agent.Prompt:
		return c.hookPrompt(ag, ev)
	case agent.Stop:
		a := commands.TurnEndArgs{Session: ev.SessionID}
		if _, at, ok := c.position(ag, ev); ok {
			a.ForkPoint = at
		}
		r, err := c.doTurnEnd(ev.Cwd, a)
		if err == nil && r.Entry == "" {
			fmt.Fprintln(c.stderr, "rewind-lsp hook: no turn of this session is open; nothing recorded")
		}
		return err
	case agent.Checkpointed, agent.Rewound:
		return c.hookOwnTool(ag, ev)
	case agent.GoBack:
		return c.hookGoBack(ag, ev)
	case agent.SessionStart:
		return c.recordSession(ag, ev)
	}
	return c.hookTool(ag, ev)
}

// recordSession records that the event's session started.
func (c *cli) recordSession(ag agent.Agent, ev *agent.Event) error {
	cl, err := c.client(ev.Cwd)
	if err != nil {
		return err
	}
	_, err = commands.RecordSession.Call(c.call(), cl, commands.RecordSessionArgs{Session: ev.SessionID, Source: journal.Source(ev.Source),
		Agent: ag.Name(), Transcript: ev.Transcript})
	return err
}

// hookPrompter records an event of an agent whose hooks do not say when a
// prompt is sent (agent.Prompter): first the turn of the prompt the
// conversation is at, opened unless it already is, then the event itself —
// a turn end ends only that prompt's turn — then, at the events whose
// output reaches the model, the session's pending notice.
func (c *cli) hookPrompter(ag agent.Agent, pr agent.Prompter, ev *agent.Event) error {
	promptID := ""
	if ev.Kind != agent.SessionStart {
		p, err := pr.CurrentPrompt(ev)
		if err != nil {
			fmt.Fprintf(c.stderr, "rewind-lsp hook: %v (the prompt's turn opens at a later event)\n", err)
		}
		if p != nil && ev.SessionID != "" {
			promptID = p.ID
			a := commands.TurnStartArgs{Prompt: p.Text, Session: ev.SessionID, Source: journal.SourceHook, Agent: ag.Name(), PromptID: p.ID, Ensure: true}
			if p.Transcript != "" {
				a.Transcript, a.ForkPoint = p.Transcript, p.Point
			}
			if _, err := c.doTurnStart(ev.Cwd, a); err != nil {
				return err
			}
		}
	}
	var err error
	switch ev.Kind {
	case agent.SessionStart:
		err = c.recordSession(ag, ev)
	case agent.PreTool, agent.PostTool:
		err = c.hookTool(ag, ev)
	case agent.Stop:
		a := commands.TurnEndArgs{Session: ev.SessionID, PromptID: promptID}
		if _, at, ok := c.position(ag, ev); ok {
			a.ForkPoint = at
		}
		_, err = c.doTurnEnd(ev.Cwd, a)
	}
	if err != nil {
		return err
	}
	return c.noticeAt(ag, ev)
}

// noticeAt prints, at an event whose output reaches the agent's model
// (agent.EventNoticer), what the event's session has not been told yet,
// and what the session it was forked from has not: the fork continues that
// conversation.
func (c *cli) noticeAt(ag agent.Agent, ev *agent.Event) error {
	n, ok := ag.(agent.EventNoticer)
	if !ok || n.NoticeAt(ev, "") == nil {
		return nil // this event's output does not reach the model
	}
	var texts []string
	for _, sid := range []string{ev.SessionID, ev.Parent} {
		text, err := c.pendingNotice(ev.Cwd, sid)
		if err != nil {
			return err
		}
		if text != "" {
			texts = append(texts, text)
		}
	}
	if len(texts) == 0 {
		return nil
	}
	_, err := c.stdout.Write(n.NoticeAt(ev, strings.Join(texts, "\n\n")))
	return err
}

// position reads where the event's conversation stands now: its file and
// the fork point in it, ok when there is one to record. A failure is
// reported, and only means the turn's conversation cannot be rewound.
func (c *cli) position(ag agent.Agent, ev *agent.Event) (transcript string, at journal.ForkPoint, ok bool) {
	transcript, at, err := ag.Position(ev)
	if err != nil {
		fmt.Fprintf(c.stderr, "rewind-lsp hook: %v (the conversation of this turn cannot be rewound)\n", err)
		return "", journal.ForkPoint{}, false
	}
	return transcript, at, transcript != ""
}

// hookPrompt opens the session's turn with the conversation's position,
// then prints the session's pending notice, if any.
func (c *cli) hookPrompt(ag agent.Agent, ev *agent.Event) error {
	a := commands.TurnStartArgs{Prompt: ev.Prompt, Session: ev.SessionID, Source: journal.SourceHook, Agent: ag.Name(), PromptID: ev.PromptID}
	if transcript, at, ok := c.position(ag, ev); ok {
		a.Transcript, a.ForkPoint = transcript, at
	}
	if _, err := c.doTurnStart(ev.Cwd, a); err != nil {
		return err
	}
	// An agent's own rewind that shows by its next prompt (Qwen Code's) is
	// completed before the session hears of what changed.
	if err := c.completeOwnRewind(ag, ev); err != nil {
		fmt.Fprintf(c.stderr, "rewind-lsp hook: completing %s's own rewind: %v\n", ag.Title(), err)
	}
	text, err := c.pendingNotice(ev.Cwd, ev.SessionID)
	if err == nil && text != "" {
		_, err = c.stdout.Write(ag.Notice(text))
	}
	return err
}

// hookTool records a tool call of the session: the state before it (its
// "pre"), then what it wrote (its "post"): a step of the turn when it
// changed files.
func (c *cli) hookTool(ag agent.Agent, ev *agent.Event) error {
	paths, capture, relevant := ag.Writes(ev)
	if !relevant || ev.SessionID == "" {
		return nil
	}
	a := commands.ToolCallArgs{Session: ev.SessionID, Tool: ev.ToolName, ToolUse: ev.ToolUseID, Phase: string(journal.PhasePost),
		Capture: capture, Detail: ev.Detail()}
	if ev.Kind == agent.PreTool {
		a.Phase = string(journal.PhasePre)
	}
	if capture && filepath.IsAbs(a.Detail) {
		// A tool that names a file it may write (an MCP server's): the file
		// as the root names it.
		if root, _, err := c.locate(ev.Cwd); err == nil {
			if rel, ok := rootpath.RelReal(root, a.Detail); ok {
				a.Detail = rel
			}
		}
	}
	if !capture {
		root, _, err := c.locate(ev.Cwd)
		if err != nil {
			return err
		}
		for _, p := range paths {
			if rel, ok := rootpath.RelReal(root, p); ok {
				a.Paths = append(a.Paths, rel)
			}
		}
		if len(a.Paths) == 0 {
			return nil // a file outside this root
		}
		a.Detail = strings.Join(a.Paths, " ") // the files, as the root names them
	}
	cl, err := c.client(ev.Cwd)
	if err != nil {
		return err
	}
	_, err = commands.ToolCall.Call(c.call(), cl, a)
	return err
}

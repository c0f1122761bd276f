package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// claudeEvent is the part of a Claude Code hook event we use.
type claudeEvent struct {
	Event     string `json:"hook_event_name"`
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Prompt    string `json:"prompt"`
	Source    string `json:"source"`
}

// hook records an agent's hook event. It never fails the agent: whatever
// happens it returns nil (exit 0), prints nothing on stdout, and reports
// problems on stderr.
func (c *cli) hook(args []string) (err error) {
	if len(args) != 1 || args[0] != "claude-code" {
		return usagef("usage: rewind-lsp hook claude-code  (reads one hook event as JSON on stdin)")
	}
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
	var ev claudeEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("hook event is not JSON: %w", err)
	}
	c.actor = "hook"
	switch ev.Event {
	case "UserPromptSubmit", "Stop", "SessionStart":
	default:
		return nil // accepted and ignored
	}
	if ev.Cwd != "" {
		if fi, err := os.Stat(ev.Cwd); err != nil || !fi.IsDir() {
			return fmt.Errorf("the event's cwd %s is not a folder", ev.Cwd)
		}
	}
	switch ev.Event {
	case "UserPromptSubmit":
		_, err = c.doTurnStart(ev.Cwd, commands.TurnStartArgs{Prompt: ev.Prompt, Session: ev.SessionID, Source: "hook"})
	case "Stop":
		var r *commands.TurnEndResult
		r, err = c.doTurnEnd(ev.Cwd, commands.TurnEndArgs{Session: ev.SessionID})
		if err == nil && r.Entry == "" {
			fmt.Fprintln(c.stderr, "rewind-lsp hook: no turn is open; nothing recorded")
		}
	case "SessionStart":
		var svc *commands.Service
		if svc, err = c.service(ev.Cwd); err == nil {
			_, err = svc.Session().RecordSession(ev.SessionID, ev.Source, "hook")
		}
	}
	return err
}

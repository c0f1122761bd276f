package main

// rewind-lsp events: the journal's changes, one line each, and with
// --follow the ones still to come (docs/PROTOCOL.md, "Events").
//
// It is the command line's own verb, not a registry command: a registry
// command is one request and one answer, through a running server or in
// this process; events goes on printing for as long as it runs. It reads
// the root's journal itself through journal.History, whichever door
// appended to it — a running server, a hook, another command line — so it
// follows the same way with or without a server, through a server's
// restart and through a rebuild of the view: the cursor is the id of the
// last entry it read, looked up again in each history it reads.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/rewind-lsp/rewind-lsp/agent/agents"
	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/commands/text"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/watch"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// latestEvents is how many events events prints without --since.
const latestEvents = 20

// followPoll is how often a follower reads the journal even when no
// notification said it changed (notifications can be missing: a store
// folder not made yet, a file system without them).
const followPoll = time.Second

// event is one line of rewind-lsp events --json (docs/PROTOCOL.md,
// "Events"): what changed in the journal, with its words.
type event struct {
	// ID is the entry that records what happened (for an operation, the
	// operation's own entry, as undo and log name it): --since ID goes on
	// after it.
	ID journal.EntryID `json:"id"`
	// Kind is turnStart, turnEnd, step, checkpoint, summary, rewind,
	// revert or undo.
	Kind string `json:"kind"`
	Time string `json:"time"`
	// Turn and Step are the turn (and step) the event is of, or that an
	// operation went back to or took back.
	Turn    int    `json:"turn,omitempty"`
	Step    int    `json:"step,omitempty"`
	Session string `json:"session,omitempty"`
	Agent   string `json:"agent,omitempty"`
	// Source is the door that opened a turn (hook, cli, editor, mcp, acp,
	// auto: docs/PROTOCOL.md).
	Source string `json:"source,omitempty"`
	// Title is the event in words, as the listings name it.
	Title string `json:"title"`
	// Files are the root-relative paths it changed (a turn end, a step)
	// or an operation changes.
	Files []string `json:"files,omitempty"`
	// Mode, Target, Applied and FailureReason describe an operation: its
	// mode, its target as written, and how it ended.
	Mode          string `json:"mode,omitempty"`
	Target        string `json:"target,omitempty"`
	Applied       *bool  `json:"applied,omitempty"`
	FailureReason string `json:"failureReason,omitempty"`
	// Undoes is the operation an undo takes back.
	Undoes journal.EntryID `json:"undoes,omitempty"`

	// detail follows the title in the line for people.
	detail string
}

// eventOf is ev with its words, read from h.
func eventOf(h *journal.History, ev journal.Event) event {
	e := ev.Entry
	out := event{ID: e.ID, Kind: string(e.Kind), Time: e.Time.UTC().Format(time.RFC3339Nano), Turn: e.Turn,
		Session: e.Session, Agent: e.Agent}
	var start *journal.Entry
	if e.Start != "" {
		start = h.Entry(e.Start)
	}
	if start != nil && out.Agent == "" {
		out.Agent = start.Agent
	}
	who := words.Session(out.Agent, out.Session)
	switch e.Kind {
	case journal.KindTurnStart:
		out.Title, out.Source = words.Title(e.Turn, e.Prompt), string(e.Source)
		out.detail = "started"
		if e.Source != "" {
			out.detail += " [" + string(e.Source) + "]"
		}
	case journal.KindTurnEnd:
		prompt := ""
		if start != nil {
			prompt = start.Prompt
		}
		out.Title = words.Title(e.Turn, prompt)
		out.Files, out.detail = changed(e.Changed)
		out.detail = "ended, " + out.detail
	case journal.KindTool:
		out.Kind, out.Step = "step", e.Step
		if start != nil {
			out.Turn = start.Turn
		}
		out.Title = words.Step(out.Turn, e.Step, e.Tool, e.Detail)
		out.Files, out.detail = changed(e.Changed)
	case journal.KindCheckpoint:
		out.Title = words.Checkpoint(e.Label, e.Goal, string(e.ID))
		out.detail = text.Plural(e.Count, "file")
	case journal.KindSummary:
		out.Title = words.Report(commands.TargetTitle(h, e))
		out.Target = e.Target
		out.detail = words.Prompt(e.Report, 80)
	case journal.KindRewind, journal.KindRevert, journal.KindUndo:
		out.Step, out.Mode, out.Target, out.Undoes = e.Step, string(e.Mode), e.Target, e.Undoes
		out.Files = e.Files
		if e.Kind == journal.KindUndo {
			kind := "rewind"
			if op := h.Entry(e.Undoes); op != nil {
				kind = string(op.Kind)
			}
			out.Title = words.Undo(kind, e.Turn, e.Step)
		} else {
			by := ""
			if e.Agent != "" {
				by = agents.Title(e.Agent)
			}
			out.Title = words.Rewind(string(e.Mode), commands.TargetTitle(h, e), by, false)
		}
		applied := e.Applied == nil || *e.Applied
		reason := e.FailureReason
		if ev.Done != nil {
			applied = ev.Done.Applied == nil || *ev.Done.Applied
			reason = ev.Done.FailureReason
		}
		out.Applied, out.FailureReason = &applied, reason
		out.detail = text.Plural(len(e.Files), "file")
		if !applied {
			out.detail = "not applied: " + reason
		}
	}
	if who != "" {
		out.detail += " [" + who + "]"
	}
	return out
}

// changed is the paths of a turn's or a step's changes and what they
// changed in all ("2 files changed (+4 -1)").
func changed(cs []journal.Change) ([]string, string) {
	var paths []string
	added, removed := 0, 0
	for _, c := range cs {
		paths = append(paths, c.Path)
		added += c.Added
		removed += c.Removed
	}
	return paths, words.Changes(len(cs), added, removed)
}

// line is the event for people: its local time, its entry, its title and
// what it did.
func (ev event) line() string {
	when := ev.Time
	if t, err := time.Parse(time.RFC3339Nano, ev.Time); err == nil {
		when = t.Local().Format("2006-01-02 15:04:05")
	}
	s := fmt.Sprintf("%s  %-18s  %s", when, words.Short(string(ev.ID)), ev.Title)
	if ev.detail != "" {
		s += " — " + ev.detail
	}
	return s
}

func (c *cli) events(args []string) error {
	fs := flag.NewFlagSet("events", flag.ContinueOnError)
	follow := fs.Bool("follow", false, "then wait for more, until interrupted")
	since := fs.String("since", "", "print the events after entry `ENTRY` (an id or a prefix of 6+ characters)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	_, store, err := c.locate("")
	if err != nil {
		return err
	}
	j := journal.Open(store)
	defer j.Close()
	p := &eventPrinter{w: c.stdout, json: c.g.json}

	h, err := j.History()
	if err != nil {
		return err
	}
	if *since != "" {
		if err := h.Events(*since, p.print(h)); err != nil {
			var ue *journal.UnknownEntryError
			if errors.As(err, &ue) {
				return fmt.Errorf("--since: %w", err)
			}
			return err
		}
	} else {
		each := p.print(h)
		for _, ev := range h.LatestEvents(latestEvents) {
			each(ev)
		}
	}
	if p.err != nil || !*follow {
		return p.err
	}
	return c.followEvents(j, h, p)
}

// followEvents prints the events written after history h, as they come,
// until the invocation's context ends: woken by the journal's changes
// (watch.File) and, in case a notification is missed, every followPoll.
func (c *cli) followEvents(j *journal.Journal, h *journal.History, p *eventPrinter) error {
	// The cursor is the last event printed, not the last entry read: an
	// operation read while still pending is told at its done entry, which
	// comes after it.
	cursor, seen := "", ""
	if evs := h.LatestEvents(1); len(evs) > 0 {
		cursor = string(evs[0].Cursor())
	}
	if e := h.Last(); e != nil {
		seen = string(e.ID)
	}
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	changed := make(chan struct{}, 1)
	stopped := watch.File(ctx, j.Path(), func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}, nil)
	defer func() { cancel(); <-stopped }()
	tick := time.NewTicker(followPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-tick.C:
		}
		h, err := j.History()
		if err != nil {
			return err
		}
		last := h.Last()
		if last == nil || string(last.ID) == seen {
			continue
		}
		print := p.print(h)
		if err := h.Events(cursor, func(ev journal.Event) bool {
			cursor = string(ev.Cursor())
			return print(ev)
		}); err != nil {
			return fmt.Errorf("following the journal: %w (was it replaced?)", err)
		}
		if p.err != nil {
			return p.err
		}
		seen = string(last.ID)
	}
}

// eventPrinter writes events, one line each, and keeps the first error
// (a closed pipe: whoever read them is gone).
type eventPrinter struct {
	w    io.Writer
	json bool
	err  error
}

// print is the callback that writes the events of h until a write fails.
func (p *eventPrinter) print(h *journal.History) func(journal.Event) bool {
	return func(je journal.Event) bool {
		if p.err != nil {
			return false
		}
		ev := eventOf(h, je)
		if p.json {
			enc := json.NewEncoder(p.w)
			enc.SetEscapeHTML(false)
			p.err = enc.Encode(ev)
		} else {
			_, p.err = fmt.Fprintln(p.w, ev.line())
		}
		return p.err == nil
	}
}

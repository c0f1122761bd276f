package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/commands/text"
)

// revert is `rewind-lsp revert TARGET [--paths P,...] [--dry-run]` and
// `revert --session ID`: take back one turn (or one session's turns) and
// keep everything after it. A running server does it when there
// is one (the editor's unsaved buffers count as current content).
func (c *cli) revert(args []string) error {
	fs := flag.NewFlagSet("revert", flag.ContinueOnError)
	paths := fs.String("paths", "", "only these files (`P,...`)")
	sess := fs.String("session", "", "revert every turn of the agent session `ID`")
	dry := fs.Bool("dry-run", false, "show the plan, change nothing")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if (len(pos) == 1) == (*sess != "") || len(pos) > 1 {
		return usagef("usage: rewind-lsp revert TARGET [--paths P,...] [--dry-run]  or  rewind-lsp revert --session ID [--paths P,...] [--dry-run]")
	}
	cl, err := c.client("")
	if err != nil {
		return err
	}
	ra := commands.RevertArgs{Session: *sess, Paths: c.paths(strings.Split(*paths, ",")), DryRun: *dry}
	if len(pos) == 1 {
		ra.Target = pos[0]
	}
	r, err := commands.Revert.Call(c.call(), cl, ra)
	if err != nil {
		return err
	}
	if c.g.json {
		if err := c.printJSON(r); err != nil {
			return err
		}
	}
	switch {
	case r.FailureReason != "":
		if !c.g.json {
			text.RevertPlan(c.stderr, r.Plan, "would revert")
		}
		return &commands.RefusedError{Msg: r.FailureReason}
	case c.g.json:
	case *dry:
		text.RevertPlan(c.stdout, r.Plan, "would revert")
	default:
		text.RevertPlan(c.stdout, r.Plan, "reverted")
		if r.Entry != "" {
			fmt.Fprintln(c.stdout, "undo it with: rewind-lsp undo")
		}
	}
	return nil
}

// blame is `rewind-lsp blame PATH`: for each run of lines an agent turn
// wrote and nobody changed since, the turn, its prompt, session and time.
func (c *cli) blame(args []string) error {
	fs := flag.NewFlagSet("blame", flag.ContinueOnError)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: rewind-lsp blame PATH")
	}
	ps := c.paths(pos)
	if len(ps) != 1 {
		return usagef("usage: rewind-lsp blame PATH")
	}
	cl, err := c.client("")
	if err != nil {
		return err
	}
	r, err := commands.Blame.Call(c.call(), cl, commands.BlameArgs{Scope: commands.Scope{URI: ps[0]}})
	if err != nil {
		return err
	}
	rel := pos[0]
	if c.g.json {
		return c.printJSON(r)
	}
	if len(r.Ranges) == 0 {
		fmt.Fprintf(c.stdout, "%s: no line was written by an agent turn (and left unchanged since)\n", rel)
		return nil
	}
	for _, b := range r.Ranges {
		lines := fmt.Sprint(b.StartLine + 1)
		if b.EndLine-b.StartLine > 1 {
			lines = fmt.Sprintf("%d-%d", b.StartLine+1, b.EndLine)
		}
		who := ""
		if b.SessionLabel != "" {
			who = " [" + b.SessionLabel + "]"
		}
		title := b.Title
		if _, step, ok := strings.Cut(b.StepTitle, ", "); ok {
			title += " — " + step // "step 2: Edit a.go"
		}
		fmt.Fprintf(c.stdout, "%s:%-9s %-9s %s%s\n", rel, lines, b.Age, title, who)
	}
	return nil
}

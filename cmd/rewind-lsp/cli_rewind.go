package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/commands/text"
)

func (c *cli) log(args []string) error {
	fs := flag.NewFlagSet("log", flag.ContinueOnError)
	all := fs.Bool("all", false, "include abandoned branches")
	limit := fs.Int("limit", 0, "show only the latest `N` turns, and what was recorded among them")
	before := fs.Int("before", 0, "show the turns before `TURN` (the next page back)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	l := &commands.ListResult{Turns: []commands.TurnInfo{}, Checkpoints: []commands.CheckpointInfo{}, Rewinds: []commands.RewindInfo{}}
	if !c.noStore() {
		cl, err := c.client("")
		if err != nil {
			return err
		}
		if l, err = commands.List.Call(c.call(), cl, commands.ListArgs{Limit: *limit, Before: *before, All: *all}); err != nil {
			return err
		}
	}
	if c.g.json {
		return c.printJSON(l)
	}
	text.Log(c.stdout, l)
	return nil
}

// paths makes command-line paths root-relative: relative paths are taken
// from the current folder when it is inside the root.
func (c *cli) paths(ps []string) []string {
	root, _, _ := c.locate("")
	wd, _ := os.Getwd()
	inside := wd != "" && root != "" && (wd == root || strings.HasPrefix(wd, root+string(filepath.Separator)))
	var out []string
	for _, p := range ps {
		if p == "" {
			continue
		}
		if inside && !filepath.IsAbs(p) && !strings.HasPrefix(p, "file:") {
			p = filepath.Join(wd, p)
		}
		out = append(out, p)
	}
	return out
}

func (c *cli) diff(args []string) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("usage: rewind-lsp diff TARGET [PATH...]")
	}
	cl, err := c.client("")
	if err != nil {
		return err
	}
	plan, err := commands.Preview.Call(c.call(), cl, commands.PreviewArgs{Target: pos[0], Paths: c.paths(pos[1:])})
	if err != nil {
		return err
	}
	if c.g.json {
		return c.printJSON(plan)
	}
	fmt.Fprint(c.stdout, plan.DiffText())
	for _, s := range plan.Skipped {
		fmt.Fprintf(c.stderr, "skipped %s: %s\n", s.Path, s.Reason)
	}
	return nil
}

func (c *cli) rewind(args []string) error {
	fs := flag.NewFlagSet("rewind", flag.ContinueOnError)
	mode := fs.String("mode", "code", "`mode`: code, conversation, both, summarize or plan")
	paths := fs.String("paths", "", "only these files (`P,...`)")
	force := fs.Bool("force", false, "overwrite files edited since they were recorded")
	dry := fs.Bool("dry-run", false, "show the plan, change nothing")
	report := fs.String("report", "", "what was learnt on the abandoned path (`text`)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: rewind-lsp rewind TARGET [--mode M] [--paths P,...] [--force] [--dry-run] [--report TEXT]")
	}
	cl, err := c.client("")
	if err != nil {
		return err
	}
	ps := c.paths(strings.Split(*paths, ","))
	if *dry || *mode == "plan" {
		plan, err := commands.Preview.Call(c.call(), cl, commands.PreviewArgs{Target: pos[0], Mode: *mode, Paths: ps})
		if err != nil {
			return err
		}
		if c.g.json {
			return c.printJSON(plan)
		}
		text.Plan(c.stdout, plan, "would change")
		return nil
	}
	r, err := commands.Rewind.Call(c.call(), cl, commands.RewindArgs{Target: pos[0], Mode: *mode, Paths: ps, Force: *force, Report: *report})
	if err != nil {
		return err
	}
	return c.rewindResult(r, "rewound")
}

func (c *cli) undo(args []string) error {
	fs := flag.NewFlagSet("undo", flag.ContinueOnError)
	force := fs.Bool("force", false, "overwrite files edited since the rewind")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	cl, err := c.client("")
	if err != nil {
		return err
	}
	r, err := commands.Undo.Call(c.call(), cl, commands.UndoArgs{Force: *force})
	if err != nil {
		return err
	}
	return c.rewindResult(r, "undone")
}

// rewindResult prints a rewind or undo result; a refusal is exit 3.
func (c *cli) rewindResult(r *commands.RewindResult, verb string) error {
	if c.g.json {
		if err := c.printJSON(r); err != nil {
			return err
		}
	} else if r.Applied {
		text.Plan(c.stdout, r.Plan, verb)
		text.Conversation(c.stdout, r.Conversation)
		// A summary changes nothing that undo could take back.
		if verb == "rewound" && r.Entry != "" && r.Plan != nil && r.Plan.Mode != "summarize" {
			fmt.Fprintln(c.stdout, "undo it with: rewind-lsp undo")
		}
	}
	if !r.Applied {
		if !c.g.json {
			text.Plan(c.stderr, r.Plan, "would change")
		}
		return &commands.RefusedError{Msg: r.FailureReason}
	}
	return nil
}

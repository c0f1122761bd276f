package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/maintenance"
	"github.com/rewind-lsp/rewind-lsp/rootpath"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/agent/agents"
	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/commands/text"
	"github.com/rewind-lsp/rewind-lsp/lsp"
)

const usage = `rewind-lsp — record an AI agent's turns and rewind them safely

usage: rewind-lsp [--root DIR] [--store DIR] [--json] COMMAND [ARGS]

  (no command), serve, --stdio   the Language Server on stdio
  turn start [--prompt TEXT] [--session ID]   open a turn (capture its start)
  turn end [--summary TEXT] [--session ID]    end it (capture its end)
  checkpoint [LABEL] [--goal TEXT]            capture a labeled checkpoint
  hook claude-code                            record a Claude Code hook event (stdin)
  log [--all] [--limit N] [--before TURN]     turns, checkpoints and rewinds (a page of them)
  diff TARGET [PATH...]                       unified diff, current → target
  rewind TARGET [--mode M] [--paths P,...] [--force] [--dry-run] [--report TEXT]
  undo [--force]                              undo the latest rewind (or revert)
  revert TARGET [--paths P,...] [--dry-run]   take back one turn, keep later changes
  revert --session ID [--paths P,...]         take back every turn of one agent session
  blame PATH                                  which agent turn wrote each line
  gc [--max-snapshots N] [--max-age DAYS]     drop old snapshot content
  fsck                                        verify the store
  status                                      what is recorded, where
  events [--follow] [--since ENTRY]           the journal's changes, one line each (--follow: as they come)
  setup claude-code [--user]                  add the hooks to .claude/settings.json
  setup git [--remove]                        write provenance notes at each commit (docs/PROVENANCE.md)
  explain [REV]                               who wrote the lines a commit added (its notes)
  trace [REV]                                 a commit's Agent Trace record
  mcp                                         an MCP server on stdio for the agent itself
  acp [--root DIR] -- COMMAND [ARG...]        an ACP agent on stdio: runs COMMAND, records its turns
  demo                                        a guided tour in a temporary workspace
  version                                     print the version

Targets: 3 or turn:3 (before turn 3), turn:3:end, ~1 (start of the latest
turn), @label (a checkpoint), or an entry id prefix (6+ characters).
Modes: code (default), conversation, both, summarize, plan.
Exit status: 0 done, 1 error, 2 bad usage, 3 refused (conflict, nothing to undo).

Retention: after captures, unpinned snapshots are dropped automatically to keep
the store within --max-store-bytes SIZE (default 2G) and --max-age-days DAYS
(default 30); 0 switches a bound off. Labeled checkpoints and what undo needs
are never dropped.
`

// cli is one command-line invocation.
type cli struct {
	ctx    context.Context
	g      globals
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	actor  string
	// key is this invocation's idempotency key: the command it runs is
	// recorded at most once, even when a server's answer is lost and the
	// call is asked again or run here.
	key string
	// clients holds this invocation's one client per store: a hook event
	// that makes several calls opens its root once.
	clients map[string]*commands.Auto
}

// run executes the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g, rest, err := splitGlobals(args)
	if err != nil {
		fmt.Fprintf(stderr, "rewind-lsp: %v\n", err)
		return exitUsage
	}
	c := &cli{ctx: ctx, g: g, stdin: stdin, stdout: stdout, stderr: stderr, actor: "cli", key: commands.NewKey()}
	if g.help && len(rest) == 0 {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	cmd := ""
	if len(rest) > 0 {
		cmd, rest = rest[0], rest[1:]
	}
	switch cmd {
	case "", "serve", "--stdio", "-stdio":
		return c.serve(rest)
	case "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "version":
		fmt.Fprintln(stdout, "rewind-lsp", lsp.VersionString())
		return exitOK
	case "demo":
		return demo(ctx, stdout, stderr)
	}
	// A command-line run is short: trade memory for less garbage
	// collection, up to a bound (the first capture of a 500,000-file root
	// keeps ~250 MB live; the heap would grow to five times that).
	debug.SetGCPercent(400)
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(cliMemoryLimit)
		followLiveHeap(cliMemoryLimit)
	}
	err = c.dispatch(cmd, rest)
	return c.exit(err)
}

// verbs maps each verb to its handler. A verb that runs a command is the
// one the registry names (commands.Spec.Verb); the others are the command
// line's own.
func (c *cli) verbs() map[string]func([]string) error {
	return map[string]func([]string) error{
		commands.TurnStart.Verb:  c.turnStart,
		commands.TurnEnd.Verb:    c.turnEnd,
		commands.Checkpoint.Verb: c.checkpoint,
		commands.List.Verb:       c.log,
		commands.Preview.Verb:    c.diff,
		commands.Rewind.Verb:     c.rewind,
		commands.Undo.Verb:       c.undo,
		commands.Status.Verb:     c.status,
		commands.Revert.Verb:     c.revert,
		commands.Blame.Verb:      c.blame,
		"gc":                     c.gc,
		"fsck":                   c.fsck,
		"hook":                   c.hook,
		"setup":                  c.setup,
		"mcp":                    c.mcp,
		"acp":                    c.acp,
		"explain":                c.explain,
		"trace":                  c.trace,
		// events streams for as long as it runs: the command line's own,
		// not a registry command (one request, one answer); events.go.
		"events": c.events,
	}
}

// dispatch runs verb cmd. A verb of two words ("turn start") is a group:
// its first word alone asks for one of its second words.
func (c *cli) dispatch(cmd string, rest []string) error {
	verbs := c.verbs()
	if run, ok := verbs[cmd]; ok {
		return run(rest)
	}
	var subs []string
	for _, e := range commands.Entries() {
		if group, sub, ok := strings.Cut(e.Info().Verb, " "); ok && group == cmd && verbs[e.Info().Verb] != nil {
			subs = append(subs, sub)
		}
	}
	if len(subs) == 0 {
		return usagef("unknown command %q; run rewind-lsp help", cmd)
	}
	if len(rest) == 0 {
		return usagef("usage: rewind-lsp %s %s [flags]", cmd, strings.Join(subs, "|"))
	}
	if run, ok := verbs[cmd+" "+rest[0]]; ok {
		return run(rest[1:])
	}
	return usagef("unknown %s command %q (want %s)", cmd, rest[0], strings.Join(subs, " or "))
}

// exit prints err and maps it to an exit status.
func (c *cli) exit(err error) int {
	if err == nil {
		return exitOK
	}
	var ue *usageError
	var ec *exitCode
	var re *commands.RefusedError
	var ae *commands.ArgError
	switch {
	case errors.As(err, &ec):
		return ec.code
	case errors.As(err, &ue):
		fmt.Fprintf(c.stderr, "rewind-lsp: %v\n", err)
		return exitUsage
	case errors.As(err, &re):
		fmt.Fprintf(c.stderr, "rewind-lsp: %v\n", err)
		return exitRefused
	case errors.As(err, &ae):
		fmt.Fprintf(c.stderr, "rewind-lsp: %v\n", err)
		if ae.Field == "target" {
			return exitError
		}
		return exitUsage
	}
	fmt.Fprintf(c.stderr, "rewind-lsp: %v\n", err)
	return exitError
}

// findRoot is --root, else the nearest ancestor of dir holding .git, else
// dir; by its real path (symbolic links resolved, as git finds its work
// tree), so every spelling of a folder finds the one root and store.
func findRoot(flagRoot, dir string) (string, error) {
	if flagRoot != "" {
		return rootpath.RealRoot(flagRoot)
	}
	dir, err := rootpath.RealRoot(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return dir, nil
		}
	}
}

// locate finds the root and store of this invocation, without opening it.
func (c *cli) locate(dir string) (root, store string, err error) {
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return "", "", fmt.Errorf("current folder: %w", err)
		}
	}
	if root, err = findRoot(c.g.root, dir); err != nil {
		return "", "", fmt.Errorf("root: %w", err)
	}
	store = c.g.store
	if store == "" {
		store, err = rootpath.DefaultStoreDir(root)
	} else {
		store, err = filepath.Abs(store)
	}
	return root, store, err
}

// call is the context of this invocation's command calls: who calls, and
// the idempotency key.
func (c *cli) call() context.Context {
	return commands.WithCall(c.ctx, commands.Call{Key: c.key, Actor: c.actor, Source: journal.Source(c.actor), Session: agents.SessionFromEnv(os.Getenv)})
}

// client is the command set for the root of this invocation (dir is where
// to look for the root when --root is not given; "" = the current folder):
// through the language server running for the root, else in this process.
func (c *cli) client(dir string) (*commands.Auto, error) {
	root, store, err := c.locate(dir)
	if err != nil {
		return nil, err
	}
	if cl := c.clients[store]; cl != nil {
		return cl, nil
	}
	cl := commands.NewAuto(store, func() (*commands.Service, error) {
		return commands.Open(commands.Options{Root: root, StoreDir: c.g.store, Actor: c.actor,
			MaxStoreBytes: c.g.maxStoreBytes, MaxAgeDays: c.g.maxAgeDays})
	})
	if c.clients == nil {
		c.clients = map[string]*commands.Auto{}
	}
	c.clients[store] = cl
	return cl, nil
}

// noStore reports whether the root of this invocation has no store yet:
// commands that only read then answer without creating one.
func (c *cli) noStore() bool {
	_, store, err := c.locate("")
	if err != nil {
		return false
	}
	_, err = os.Stat(store)
	return errors.Is(err, fs.ErrNotExist)
}

// service opens the command set for the root of this invocation in this
// process.
func (c *cli) service(dir string) (*commands.Service, error) {
	root, _, err := c.locate(dir)
	if err != nil {
		return nil, err
	}
	return commands.Open(commands.Options{Root: root, StoreDir: c.g.store, Actor: c.actor,
		MaxStoreBytes: c.g.maxStoreBytes, MaxAgeDays: c.g.maxAgeDays})
}

// printJSON writes v as indented JSON.
func (c *cli) printJSON(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (c *cli) turnStart(args []string) error {
	fs := flag.NewFlagSet("turn start", flag.ContinueOnError)
	prompt := fs.String("prompt", "", "the prompt `text`")
	sess := fs.String("session", "", "the agent session `id`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("turn start takes no arguments (use --prompt TEXT), got %q", pos[0])
	}
	r, err := c.doTurnStart("", commands.TurnStartArgs{Prompt: *prompt, Session: *sess, Source: journal.Source(c.actor)})
	if err != nil {
		return err
	}
	if c.g.json {
		return c.printJSON(r)
	}
	fmt.Fprintf(c.stdout, "turn %d started%s (snapshot %s)\n", r.Turn, text.Quoted(*prompt), shortSnap(r.Snapshot))
	return nil
}

func (c *cli) turnEnd(args []string) error {
	fs := flag.NewFlagSet("turn end", flag.ContinueOnError)
	summary := fs.String("summary", "", "what the turn did (`text`)")
	sess := fs.String("session", "", "the agent session `id`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("turn end takes no arguments (use --summary TEXT), got %q", pos[0])
	}
	r, err := c.doTurnEnd("", commands.TurnEndArgs{Summary: *summary, Session: *sess})
	if err != nil {
		return err
	}
	if r.Entry == "" {
		fmt.Fprintln(c.stderr, "rewind-lsp: no turn is open; nothing recorded")
	}
	if c.g.json {
		return c.printJSON(r)
	}
	if r.Entry == "" {
		return nil
	}
	fmt.Fprintf(c.stdout, "turn %d ended: %s\n", r.Turn, r.What)
	text.Changes(c.stdout, r.Changed)
	return nil
}

func (c *cli) checkpoint(args []string) error {
	fs := flag.NewFlagSet("checkpoint", flag.ContinueOnError)
	goal := fs.String("goal", "", "what this checkpoint is for (`text`)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("checkpoint takes one label, got %d arguments", len(pos))
	}
	label := ""
	if len(pos) == 1 {
		label = strings.TrimPrefix(pos[0], "@")
	}
	cl, err := c.client("")
	if err != nil {
		return err
	}
	r, err := commands.Checkpoint.Call(c.call(), cl, commands.CheckpointArgs{Label: label, Goal: *goal})
	if err != nil {
		return err
	}
	if c.g.json {
		return c.printJSON(r)
	}
	name := "checkpoint"
	if label != "" {
		name += " @" + label
	}
	fmt.Fprintf(c.stdout, "%s: %s (snapshot %s)\n", name, text.Plural(r.Files, "file"), shortSnap(r.Snapshot))
	return nil
}

func (c *cli) status(args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	var st *commands.StatusResult
	if c.noStore() {
		root, store, err := c.locate("")
		if err != nil {
			return err
		}
		st = &commands.StatusResult{Root: root, Store: store, WatchMode: "none"}
		r := commands.RetentionFor(commands.Options{MaxStoreBytes: c.g.maxStoreBytes, MaxAgeDays: c.g.maxAgeDays})
		st.MaxStoreBytes, st.MaxAgeDays = r.MaxBytes, r.MaxAge.Hours()/24
	} else {
		cl, err := c.client("")
		if err != nil {
			return err
		}
		if st, err = commands.Status.Call(c.call(), cl, commands.StatusArgs{}); err != nil {
			return err
		}
	}
	if c.g.json {
		return c.printJSON(st)
	}
	fmt.Fprintf(c.stdout, "root:      %s\nstore:     %s (%s)\nturns:     %d\nsnapshots: %d\n", st.Root, st.Store, humanBytes(st.StoreBytes), st.Turns, st.Snapshots)
	fmt.Fprintf(c.stdout, "retention: %s\n", retentionText(st))
	fmt.Fprintf(c.stdout, "changes:   %s\n", watchText(st))
	if st.OpenTurn != nil {
		who := ""
		if st.OpenTurn.SessionLabel != "" {
			who = " [" + st.OpenTurn.SessionLabel + "]"
		}
		fmt.Fprintf(c.stdout, "open turn: %s%s, since %s\n", st.OpenTurn.Title, who, st.OpenTurn.Age)
	} else {
		fmt.Fprintln(c.stdout, "open turn: none")
	}
	return nil
}

func (c *cli) gc(args []string) error {
	fs := flag.NewFlagSet("gc", flag.ContinueOnError)
	maxSnaps := fs.Int("max-snapshots", 0, "keep at most `N` snapshots (0: no limit)")
	maxAge := fs.Float64("max-age", 0, "drop snapshots older than `DAYS` (0: no limit)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *maxSnaps < 0 || *maxAge < 0 {
		return usagef("gc: limits must not be negative")
	}
	cl, err := c.client("")
	if err != nil {
		return err
	}
	rep, err := commands.GC.Call(c.call(), cl, commands.GCArgs{MaxSnapshots: *maxSnaps, MaxAgeDays: *maxAge,
		MaxStoreBytes: c.g.maxStoreBytes})
	if err != nil {
		return err
	}
	if c.g.json {
		return c.printJSON(rep)
	}
	fmt.Fprintf(c.stdout, "gc: kept %d snapshots, dropped %d; removed %d objects (%s)\n",
		rep.SnapshotsKept, len(rep.SnapshotsDropped), rep.ObjectsRemoved, humanBytes(rep.BytesFreed))
	return nil
}

func (c *cli) fsck(args []string) error {
	fs := flag.NewFlagSet("fsck", flag.ContinueOnError)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	cl, err := c.client("")
	if err != nil {
		return err
	}
	rep, err := commands.Fsck.Call(c.call(), cl, commands.FsckArgs{})
	if err != nil {
		return err
	}
	probs := rep.Problems
	for _, n := range rep.Notes {
		fmt.Fprintf(c.stderr, "note: %s\n", n)
	}
	if c.g.json {
		if probs == nil {
			probs = []maintenance.Problem{}
		}
		if err := c.printJSON(map[string]any{"ok": len(probs) == 0, "problems": probs, "notes": rep.Notes}); err != nil {
			return err
		}
	} else if len(probs) == 0 {
		fmt.Fprintf(c.stdout, "fsck: store %s is intact\n", rep.Store)
	}
	if len(probs) > 0 {
		for _, p := range probs {
			fmt.Fprintf(c.stderr, "damaged: %s\n", p)
		}
		return fmt.Errorf("fsck: %d problems in %s", len(probs), rep.Store)
	}
	return nil
}

// doTurnStart opens a turn through a running server, or alone.
func (c *cli) doTurnStart(dir string, a commands.TurnStartArgs) (*commands.TurnStartResult, error) {
	cl, err := c.client(dir)
	if err != nil {
		return nil, err
	}
	return commands.TurnStart.Call(c.call(), cl, a)
}

// doTurnEnd ends the open turn through a running server, or alone.
func (c *cli) doTurnEnd(dir string, a commands.TurnEndArgs) (*commands.TurnEndResult, error) {
	cl, err := c.client(dir)
	if err != nil {
		return nil, err
	}
	return commands.TurnEnd.Call(c.call(), cl, a)
}

// watchText says how changes under the root are seen: by the running
// server's file-system notifications, by its rescans (and why), or by each
// command's own walk.
func watchText(st *commands.StatusResult) string {
	switch st.WatchMode {
	case "watch":
		return "a running server watches the root (file-system notifications)"
	case "poll":
		why := st.PollReason
		if why == "" {
			why = "file notifications are unavailable"
		}
		return "a running server rescans the root periodically (less often when a rescan is costly): " + why +
			" (each turn end walks the whole root; on Linux raise fs.inotify.max_user_watches)"
	case "starting":
		return "a running server is making its first capture"
	}
	return "no server runs for this root: each command walks it"
}

// retentionText says the bounds automatic retention keeps the store in.
func retentionText(st *commands.StatusResult) string {
	var parts []string
	if st.MaxStoreBytes > 0 {
		parts = append(parts, fmt.Sprintf("store budget %s (%s used)", humanBytes(st.MaxStoreBytes), humanBytes(st.StoreBytes)))
	} else {
		parts = append(parts, "no store budget")
	}
	if st.MaxAgeDays > 0 {
		parts = append(parts, fmt.Sprintf("unpinned snapshots kept %g days", st.MaxAgeDays))
	} else {
		parts = append(parts, "no age bound")
	}
	return strings.Join(parts, ", ")
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/agent/agents"
	"github.com/rewind-lsp/rewind-lsp/commands/text"
	"github.com/rewind-lsp/rewind-lsp/filehistory"
	"github.com/rewind-lsp/rewind-lsp/gitnotes"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/lsp"
	"github.com/rewind-lsp/rewind-lsp/words"
	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// hookGit runs one of the git hooks `setup git` installs. Like every hook
// it never fails what runs it: whatever happens it returns nil (exit 0)
// within hookBudget, with problems on stderr only.
func (c *cli) hookGit(args []string) error {
	if len(args) == 0 {
		return usagef("usage: rewind-lsp hook git post-commit")
	}
	ctx, cancel := context.WithTimeout(c.ctx, hookBudget)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("internal error: %v", r)
			}
		}()
		switch args[0] {
		case "post-commit":
			done <- c.postCommit(ctx)
		case "post-rewrite":
			done <- c.postRewrite(ctx, args[1:])
		default:
			done <- nil // a hook event of a later version: nothing to do
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			fmt.Fprintf(c.stderr, "rewind-lsp hook git %s: %v\n", args[0], err)
		}
	case <-ctx.Done():
		fmt.Fprintf(c.stderr, "rewind-lsp hook git %s: gave up after %v; HEAD has no new notes\n", args[0], hookBudget)
	}
	return nil
}

// postCommit writes HEAD's notes.
func (c *cli) postCommit(ctx context.Context) error {
	absGitEnv()
	root, _, err := c.locate("")
	if err != nil {
		return err
	}
	repo := gitnotes.Repo{Dir: root}
	// The store opens while git diffs the commit.
	var jb *journalBlame
	var blameErr error
	opened := make(chan struct{})
	go func() {
		defer close(opened)
		jb, blameErr = c.gitBlame(ctx)
	}()
	a, err := gitnotes.Attest(ctx, repo, "HEAD", gitnotes.Options{Tool: agents.GitAITool,
		Touched: func(path string) bool {
			<-opened
			return blameErr != nil || (jb != nil && jb.touched(path))
		},
		Blame: func(path string, content []byte) ([]filehistory.Range, error) {
			<-opened
			if blameErr != nil || jb == nil {
				return nil, blameErr
			}
			return jb.blame(path, content)
		}})
	if err != nil {
		return err
	}
	return gitnotes.Write(ctx, repo, a, lsp.VersionString())
}

// postRewrite follows a rewrite of history: after `commit --amend`, whose
// new commit post-commit attested, the old commit's notes are removed.
// Other rewrites (rebase) are not followed yet.
func (c *cli) postRewrite(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] != "amend" {
		return nil
	}
	absGitEnv()
	root, _, err := c.locate("")
	if err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(c.stdin, 1<<20))
	if err != nil {
		return err
	}
	return gitnotes.Amended(ctx, gitnotes.Repo{Dir: root}, gitnotes.ParseRewrites(data))
}

// absGitEnv makes the repository's location git gives its hooks (GIT_DIR
// and the like, relative to the top of the work tree the hook runs in)
// absolute, so git commands run in a folder below it (a --root there) find
// the same repository.
func absGitEnv() {
	for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"} {
		if v := os.Getenv(name); v != "" && !filepath.IsAbs(v) {
			if abs, err := filepath.Abs(v); err == nil {
				os.Setenv(name, abs)
			}
		}
	}
}

// journalBlame is the journal's blame of a root for paths as git names
// them (from the top of the work tree).
type journalBlame struct {
	ws     *workspace.Workspace
	h      *journal.History
	prefix string
}

// rel is path relative to the root, and false outside it.
func (b *journalBlame) rel(path string) (string, bool) { return strings.CutPrefix(path, b.prefix) }

// touched reports whether a turn the journal knows of wrote path.
func (b *journalBlame) touched(path string) bool {
	rel, ok := b.rel(path)
	return ok && len(filehistory.Chain(b.h, rel)) > 0
}

// blame is who wrote each line of content, path's committed content.
func (b *journalBlame) blame(path string, content []byte) ([]filehistory.Range, error) {
	rel, ok := b.rel(path)
	if !ok {
		return nil, nil // outside the root: nothing recorded it
	}
	return b.ws.Blame(rel, content, true)
}

// gitBlame opens the journal's blame of this invocation's root; nil when
// the root has no store, so nothing is attested.
func (c *cli) gitBlame(ctx context.Context) (*journalBlame, error) {
	root, store, err := c.locate("")
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(store); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	prefix, err := gitnotes.Repo{Dir: root}.Prefix(ctx)
	if err != nil {
		return nil, err
	}
	ws, err := workspace.Open(root, store, 0)
	if err != nil {
		return nil, err
	}
	h, err := ws.History()
	if err != nil {
		return nil, err
	}
	return &journalBlame{ws: ws, h: h, prefix: prefix}, nil
}

// setupGit installs the post-commit hook in the repository of --root, or
// with --remove takes out what it added.
func (c *cli) setupGit(args []string) error {
	fs := flag.NewFlagSet("setup git", flag.ContinueOnError)
	remove := fs.Bool("remove", false, "take out what setup git added")
	prompts := fs.Bool("prompts", false, "also write the prompts in the notes (not yet done)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *prompts {
		return usagef("setup git --prompts is not done yet: prompts stay in the local store")
	}
	root, _, err := c.locate("")
	if err != nil {
		return err
	}
	repo := gitnotes.Repo{Dir: root}
	if *remove {
		r, err := gitnotes.RemoveHooks(c.ctx, repo)
		if err != nil {
			return err
		}
		if !r.Changed() {
			fmt.Fprintln(c.stdout, "no hook of rewind-lsp's here; nothing changed")
		}
		for _, h := range r.Hooks {
			switch {
			case h.Changed && h.Saved != "":
				fmt.Fprintf(c.stdout, "took rewind-lsp's %s hook out of %s and put back the hook that was there\n", h.Name, h.Hook)
			case h.Changed:
				fmt.Fprintf(c.stdout, "removed rewind-lsp's %s hook %s\n", h.Name, h.Hook)
			}
		}
		return nil
	}
	command := rewindCommand()
	if prefix, err := repo.Prefix(c.ctx); err == nil && prefix != "" {
		// The root is a folder inside the work tree: the hook, run at the
		// top, names it.
		command += " --root " + shellQuote(commandPath(root))
	}
	if c.g.store != "" {
		command += " --store " + shellQuote(commandPath(c.g.store))
	}
	r, err := gitnotes.InstallHooks(c.ctx, repo, command)
	if err != nil {
		return err
	}
	if r.Manager != "" {
		fmt.Fprintf(c.stdout, "%s runs this repository's hooks; nothing changed. Add to its hooks:\n", r.Manager)
		for _, h := range r.Hooks {
			fmt.Fprintf(c.stdout, "  %s: %s\n", h.Name, h.Line)
		}
		return nil
	}
	if !r.Changed() {
		fmt.Fprintln(c.stdout, "this repository's hooks already run rewind-lsp; nothing changed")
		return nil
	}
	for _, h := range r.Hooks {
		if !h.Changed {
			continue
		}
		fmt.Fprintf(c.stdout, "added rewind-lsp's %s hook %s\n", h.Name, h.Hook)
		if h.Saved != "" {
			fmt.Fprintf(c.stdout, "  the hook that was there (now %s) still runs first\n", h.Saved)
		}
	}
	fmt.Fprintf(c.stdout, "each commit gets notes on %s and %s (docs/PROVENANCE.md)\n", gitnotes.GitAIRef, gitnotes.TraceRef)
	return nil
}

// revArgs reads the one optional REV (default HEAD) of verb name, and the
// root it is asked in.
func (c *cli) revArgs(name string, args []string) (root, rev string, err error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return "", "", err
	}
	if len(pos) > 1 {
		return "", "", usagef("usage: rewind-lsp %s [REV]", name)
	}
	rev = "HEAD"
	if len(pos) == 1 {
		rev = pos[0]
	}
	root, _, err = c.locate("")
	return root, rev, err
}

// explain prints a commit's provenance from its notes.
func (c *cli) explain(args []string) error {
	root, rev, err := c.revArgs("explain", args)
	if err != nil {
		return err
	}
	ex, err := gitnotes.Explain(c.ctx, gitnotes.Repo{Dir: root}, rev, agents.AgentAddress)
	if err != nil {
		return err
	}
	for _, w := range ex.Warnings {
		fmt.Fprintln(c.stderr, "rewind-lsp: "+w)
	}
	c.explainPrompts(ex)
	if c.g.json {
		return c.printJSON(ex)
	}
	printExplanation(c, ex)
	return nil
}

// explainPrompts fills in the prompts of ex's turns that this root's
// store recorded (the notes do not carry them).
func (c *cli) explainPrompts(ex *gitnotes.Explanation) {
	root, store, err := c.locate("")
	if err != nil {
		return
	}
	if _, err := os.Stat(store); err != nil {
		return
	}
	ws, err := workspace.Open(root, store, 0)
	if err != nil {
		return
	}
	h, err := ws.History()
	if err != nil {
		return
	}
	for i := range ex.Sessions {
		for j := range ex.Sessions[i].Turns {
			t := &ex.Sessions[i].Turns[j]
			if e := h.Entry(journal.EntryID(t.TurnID)); t.TurnID != "" && e != nil && e.Session == ex.Sessions[i].Session {
				t.Prompt = e.Prompt
			}
		}
	}
}

func printExplanation(c *cli, ex *gitnotes.Explanation) {
	fmt.Fprintf(c.stdout, "commit %s\n", ex.Commit)
	fmt.Fprintf(c.stdout, "%d lines added: %d by agents, %d by people, %d unattested\n", ex.Added, ex.AgentLines, ex.HumanLines, ex.UnattestedLines)
	for _, s := range ex.Sessions {
		who := words.Session(s.Agent, s.Session)
		if who == "" {
			who = "turns of no agent session" // the command line's or an editor's
		}
		fmt.Fprintf(c.stdout, "\n%s (model %s): %s\n", who, s.Model, text.Plural(s.Lines, "line"))
		for _, t := range s.Turns {
			var steps []string
			for _, st := range t.Steps {
				steps = append(steps, fmt.Sprintf("step %d (%s)", st.Step, st.Tool))
			}
			line := "  " + words.Title(t.Turn, t.Prompt)
			if len(steps) > 0 {
				line += " — " + strings.Join(steps, ", ")
			}
			fmt.Fprintln(c.stdout, line)
		}
	}
	for _, h := range ex.Hints {
		fmt.Fprintf(c.stdout, "hint: %s\n", h)
	}
	for _, f := range ex.Files {
		fmt.Fprintf(c.stdout, "\n%s\n", f.Path)
		for _, r := range f.Ranges {
			who := r.Human
			if who == "" {
				who = fmt.Sprintf("%s turn %d", r.Agent, r.Turn)
				if r.Step > 0 {
					who += fmt.Sprintf(" step %d (%s)", r.Step, r.Tool)
				}
			}
			lines := fmt.Sprint(r.Start)
			if r.End != r.Start {
				lines += fmt.Sprintf("-%d", r.End)
			}
			fmt.Fprintf(c.stdout, "  %-9s %s\n", lines, who)
		}
	}
}

// trace prints a commit's Agent Trace record.
func (c *cli) trace(args []string) error {
	root, rev, err := c.revArgs("trace", args)
	if err != nil {
		return err
	}
	repo := gitnotes.Repo{Dir: root}
	commit, err := repo.Resolve(c.ctx, rev)
	if err != nil {
		return err
	}
	data, ok, err := repo.Note(c.ctx, gitnotes.TraceRef, commit)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("commit %s has no Agent Trace record on %s", commit, gitnotes.TraceRef)
	}
	_, err = c.stdout.Write(data)
	return err
}

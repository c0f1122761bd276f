package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/agents"
)

// setup installs rewind-lsp's hooks where an agent runs them.
func (c *cli) setup(args []string) error {
	usage := "usage: rewind-lsp setup " + strings.Join(agents.Names(), "|") + " [--user]"
	if len(args) == 0 {
		return usagef("%s", usage)
	}
	if args[0] == "git" {
		return c.setupGit(args[1:])
	}
	ag := agents.Lookup(args[0])
	if ag == nil {
		return usagef("unknown agent %q; %s", args[0], usage)
	}
	fs := flag.NewFlagSet("setup "+args[0], flag.ContinueOnError)
	user := fs.Bool("user", false, "install for the user (~/...) instead of the project, where the agent allows both")
	if err := parseNoArgs(fs, args[1:]); err != nil {
		return err
	}
	o := agent.SetupOptions{Command: rewindCommand(), Binary: selfPath(), User: *user}
	if root, _, err := c.locate(""); err == nil {
		o.Root = root
	} else {
		o.NoRoot = err
	}
	r, err := ag.Setup(o)
	if err != nil {
		return err
	}
	if len(r.Added) == 0 {
		fmt.Fprintf(c.stdout, "%s already has rewind-lsp's hooks; nothing changed\n", r.File)
	} else {
		fmt.Fprintf(c.stdout, "added rewind-lsp's hooks to %s: %s\n", r.File, strings.Join(r.Added, ", "))
	}
	for _, n := range r.Notes {
		fmt.Fprintln(c.stdout, n)
	}
	for _, st := range r.Steps {
		fmt.Fprintln(c.stdout, "one more step: "+st)
	}
	return nil
}

// rewindCommand is how a hook runs rewind-lsp: by its name when that is
// this binary on PATH, else by this binary's absolute path.
func rewindCommand() string {
	self, err := os.Executable()
	if err != nil {
		return "rewind-lsp"
	}
	if onPath, err := exec.LookPath("rewind-lsp"); err == nil && sameFile(onPath, self) {
		return "rewind-lsp"
	}
	return shellQuote(commandPath(self))
}

// selfPath is this binary's absolute path ("rewind-lsp" when it cannot be
// known).
func selfPath() string {
	if self, err := os.Executable(); err == nil {
		return self
	}
	return "rewind-lsp"
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// commandPath is path as a hook command names it: with / separators on
// Windows (C:/Users/me/bin/rewind-lsp.exe), which both Git Bash and cmd.exe
// run.
func commandPath(path string) string { return filepath.ToSlash(path) }

// shellQuote quotes s for the shell that runs hooks: sh's single quotes on
// unix; on Windows double quotes, which Git Bash and cmd.exe both take.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:") == "" {
		return s
	}
	if runtime.GOOS == "windows" {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

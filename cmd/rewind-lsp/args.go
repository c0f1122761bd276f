package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit statuses (SPEC §6).
const (
	exitOK      = 0
	exitError   = 1
	exitUsage   = 2
	exitRefused = 3
)

// usageError is bad usage: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

// globals are the flags every command accepts, anywhere on the line.
type globals struct {
	root  string
	store string
	json  bool
	help  bool
}

// splitGlobals removes the global flags from args.
func splitGlobals(args []string) (globals, []string, error) {
	var g globals
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		switch name {
		case "root", "store":
			if !hasVal {
				if i+1 >= len(args) {
					return g, nil, usagef("flag --%s needs a folder", name)
				}
				i++
				val = args[i]
			}
			if name == "root" {
				g.root = val
			} else {
				g.store = val
			}
		case "json":
			g.json = !hasVal || val == "true" || val == "1"
		case "h", "help":
			g.help = true
		default:
			rest = append(rest, a)
		}
	}
	return g, rest, nil
}

// parseFlags parses a command's flags, allowing them between positional
// arguments, and returns the positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, usagef("%s", usageOf(fs))
			}
			return nil, usagef("%s: %v\n%s", fs.Name(), err, usageOf(fs))
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseNoArgs parses a command's flags and refuses positional arguments.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	pos, err := parseFlags(fs, args)
	if err == nil && len(pos) > 0 {
		err = usagef("%s takes no arguments, got %q", fs.Name(), pos[0])
	}
	return err
}

func usageOf(fs *flag.FlagSet) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: rewind-lsp %s", fs.Name())
	fs.VisitAll(func(f *flag.Flag) {
		name, _ := flag.UnquoteUsage(f)
		if name == "" {
			fmt.Fprintf(&b, " [--%s]", f.Name)
		} else {
			fmt.Fprintf(&b, " [--%s %s]", f.Name, strings.ToUpper(name))
		}
	})
	return b.String()
}

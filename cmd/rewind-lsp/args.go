package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Exit statuses of every command (docs/PROTOCOL.md, "Command line").
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
	// maxStoreBytes and maxAgeDays bound automatic retention (0: the
	// default, < 0: no bound).
	maxStoreBytes int64
	maxAgeDays    float64
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
		case "max-store-bytes", "max-age-days":
			if !hasVal {
				if i+1 >= len(args) {
					return g, nil, usagef("flag --%s needs a value", name)
				}
				i++
				val = args[i]
			}
			var err error
			if name == "max-store-bytes" {
				g.maxStoreBytes, err = parseSize(val)
			} else {
				g.maxAgeDays, err = parseDays(val)
			}
			if err != nil {
				return g, nil, usagef("flag --%s: %v", name, err)
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

// parseSize reads a byte count with an optional K, M, G or T suffix (powers
// of 1024; "2G", "500MiB", "1048576"); 0, "off" or "none" mean no bound
// (returned as -1).
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "off" || t == "none" {
		return -1, nil
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, "ib"), "b")
	mult := int64(1)
	if t != "" {
		switch t[len(t)-1] {
		case 'k':
			mult = 1 << 10
		case 'm':
			mult = 1 << 20
		case 'g':
			mult = 1 << 30
		case 't':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:len(t)-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size (e.g. 2G, 500M, 1048576; 0 for no bound)", s)
	}
	if v == 0 {
		return -1, nil
	}
	return int64(v * float64(mult)), nil
}

// parseDays reads a number of days; 0, "off" or "none" mean no bound (-1).
func parseDays(s string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "off" || t == "none" {
		return -1, nil
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a number of days (0 for no bound)", s)
	}
	if v == 0 {
		return -1, nil
	}
	return v, nil
}

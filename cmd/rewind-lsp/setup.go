package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// hookEvents are the Claude Code events rewind-lsp hooks, with
// the tool matcher of the tool events.
var hookEvents = []struct{ name, matcher string }{
	{"SessionStart", ""},
	{"UserPromptSubmit", ""},
	{"PreToolUse", "Bash"},
	{"PostToolUse", "Write|Edit|MultiEdit|NotebookEdit|Bash"},
	{"Stop", ""},
}

// setup merges rewind-lsp's hooks into Claude Code's settings.
func (c *cli) setup(args []string) error {
	if len(args) == 0 || args[0] != "claude-code" {
		return usagef("usage: rewind-lsp setup claude-code [--user]")
	}
	fs := flag.NewFlagSet("setup claude-code", flag.ContinueOnError)
	user := fs.Bool("user", false, "write ~/.claude/settings.json instead of the project's .claude/settings.json")
	if err := parseNoArgs(fs, args[1:]); err != nil {
		return err
	}
	var path string
	if *user {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("setup: no home folder: %w", err)
		}
		path = filepath.Join(home, ".claude", "settings.json")
	} else {
		root, _, err := c.locate("")
		if err != nil {
			return err
		}
		path = filepath.Join(root, ".claude", "settings.json")
	}
	added, err := mergeClaudeHooks(path, hookCommand())
	if err != nil {
		return err
	}
	if len(added) == 0 {
		fmt.Fprintf(c.stdout, "%s already has rewind-lsp's hooks; nothing changed\n", path)
		return nil
	}
	fmt.Fprintf(c.stdout, "added rewind-lsp's hooks to %s: %s\n", path, strings.Join(added, ", "))
	return nil
}

// hookCommand is the command Claude Code runs: rewind-lsp from PATH when
// that is this binary, else this binary's absolute path.
func hookCommand() string {
	const cmd = "rewind-lsp hook claude-code"
	self, err := os.Executable()
	if err != nil {
		return cmd
	}
	if onPath, err := exec.LookPath("rewind-lsp"); err == nil && sameFile(onPath, self) {
		return cmd
	}
	return shellQuote(self) + " hook claude-code"
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isOurHook reports whether a hook command is rewind-lsp's Claude Code
// hook, whichever path it runs the binary from.
func isOurHook(cmd string) bool {
	f := strings.Fields(cmd)
	return len(f) >= 3 && strings.Trim(filepath.Base(f[len(f)-3]), "'\"") == "rewind-lsp" &&
		f[len(f)-2] == "hook" && f[len(f)-1] == "claude-code"
}

// member is one key of a JSON object, its value kept as written.
type member struct {
	key string
	val json.RawMessage
}

// decodeObject reads a JSON object's members in order.
func decodeObject(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key: tok.(string), val: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("text after the JSON object")
	}
	return out, nil
}

func encodeObject(ms []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func get(ms []member, key string) (json.RawMessage, int) {
	for i, m := range ms {
		if m.key == key {
			return m.val, i
		}
	}
	return nil, -1
}

func set(ms []member, key string, v json.RawMessage) []member {
	if _, i := get(ms, key); i >= 0 {
		ms[i].val = v
		return ms
	}
	return append(ms, member{key, v})
}

// mergeClaudeHooks adds rewind-lsp's hook for each event of hookEvents to
// the settings file at path (created when missing), keeping every other
// setting and hook and their order; an event that already runs
// rewind-lsp's hook is left alone. It returns the events it added. A file
// that is not a JSON object is an error naming it, and is not written.
func mergeClaudeHooks(path, command string) ([]string, error) {
	data, err := os.ReadFile(path)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = []byte("{}")
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	bad := func(what string, err error) error {
		return fmt.Errorf("%s: %s (%v); fix or move it, rewind-lsp changed nothing", path, what, err)
	}
	top, err := decodeObject(data)
	if err != nil {
		return nil, bad("not a JSON object of settings", err)
	}
	var hooks []member
	if raw, i := get(top, "hooks"); i >= 0 && string(raw) != "null" {
		if hooks, err = decodeObject(raw); err != nil {
			return nil, bad(`"hooks" is not a JSON object`, err)
		}
	}
	var added []string
	for _, ev := range hookEvents {
		var groups []json.RawMessage
		if raw, i := get(hooks, ev.name); i >= 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, bad(fmt.Sprintf(`"hooks.%s" is not a list of matcher groups`, ev.name), err)
			}
		}
		present := false
		for _, g := range groups {
			var grp struct {
				Hooks []struct {
					Command string `json:"command"`
				} `json:"hooks"`
			}
			if json.Unmarshal(g, &grp) != nil {
				continue // someone else's shape: kept as it is
			}
			for _, h := range grp.Hooks {
				present = present || isOurHook(h.Command)
			}
		}
		if present {
			continue
		}
		grp := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command}}}
		if ev.matcher != "" {
			grp["matcher"] = ev.matcher
		}
		raw, _ := json.Marshal(grp)
		groups = append(groups, raw)
		list, _ := json.Marshal(groups)
		hooks = set(hooks, ev.name, list)
		added = append(added, ev.name)
	}
	if len(added) == 0 {
		return nil, nil
	}
	top = set(top, "hooks", encodeObject(hooks))
	var out bytes.Buffer
	if err := json.Indent(&out, encodeObject(top), "", "  "); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	out.WriteByte('\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := snapshot.WriteFileAtomic(path, out.Bytes(), mode); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return added, nil
}

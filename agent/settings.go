package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// SetupOptions says how to install an agent's hooks.
type SetupOptions struct {
	// Command runs rewind-lsp in a hook (a shell word: "rewind-lsp", or a
	// quoted absolute path).
	Command string
	// Binary is the absolute path of the rewind-lsp binary, for
	// integrations that run it without a shell (pi's extension).
	Binary string
	// User installs for the user rather than for the project at Root
	// (the agents that run only user-level hooks always install there).
	User bool
	Root string
	// NoRoot, when Root is empty, says why no project was found here: an
	// agent whose hooks are installed in the project returns it unless
	// User.
	NoRoot error
}

// SetupResult is what Setup did.
type SetupResult struct {
	// File is the settings file written (or that already had the hooks).
	File string
	// Added are the events whose hooks were added; none when the file
	// already had them all.
	Added []string
	// Notes say what else happened ("trusted by Codex") or, in Steps,
	// what the person must still do for the hooks to run.
	Notes, Steps []string
}

// hookSpec is one event an agent's settings hook: the command that runs
// for it and the tool matcher of a tool event.
type hookSpec struct {
	event, matcher, command string
	timeout                 int // in the agent's unit; 0: the agent's default
}

// hookCommand is the hook command of agent name, for event when the agent
// needs it named.
func hookCommand(o SetupOptions, name, event string) string {
	cmd := o.Command + " hook " + name
	if event != "" {
		cmd += " " + event
	}
	return cmd
}

// isOurHook reports whether a hook command runs rewind-lsp's hook for
// agent name, whichever path it runs the binary from.
func isOurHook(cmd, name string) bool {
	f := strings.Fields(cmd)
	for i := 0; i+2 < len(f); i++ {
		if binaryName(f[i]) == "rewind-lsp" && f[i+1] == "hook" && f[i+2] == name {
			return true
		}
	}
	return false
}

// binaryName is the program a command's word names: its file name without
// quotes, and without .exe (rewind-lsp.exe on Windows).
func binaryName(word string) string {
	name := strings.Trim(filepath.Base(word), "'\"")
	if n := len(name) - len(".exe"); n > 0 && strings.EqualFold(name[n:], ".exe") {
		name = name[:n]
	}
	return name
}

// mergeHooks adds rewind-lsp's hook for each spec to the settings file at
// path (planHooks) and writes it. It returns the events it added.
func mergeHooks(path, name string, specs []hookSpec) ([]string, error) {
	ed, err := planHooks(path, name, specs)
	if err != nil {
		return nil, err
	}
	return ed.added, ed.write()
}

// settingsEdit is a settings file's new content, not written yet.
type settingsEdit struct {
	path  string
	data  []byte
	mode  fs.FileMode
	added []string // the events whose hooks it adds; none: nothing to write
}

// write writes the edit, if it changes anything.
func (ed *settingsEdit) write() error {
	if len(ed.added) == 0 {
		return nil
	}
	return writeSettings(ed.path, ed.data, ed.mode)
}

// planHooks is the settings file at path (created when missing) with
// rewind-lsp's hook for each spec added, in the shape Claude Code, Codex
// and Gemini CLI share — {"hooks": {Event: [{"matcher", "hooks": [{"type":
// "command", "command", "timeout"}]}]}} — keeping every other setting and
// hook and their order (a new hook comes after the others of its event);
// an event that already runs rewind-lsp's hook for agent name is left
// alone. A file that is not a JSON object is an error naming it.
func planHooks(path, name string, specs []hookSpec) (*settingsEdit, error) {
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
		if hasComment(data) {
			// Gemini CLI and VS Code read JSON with comments; writing the
			// file back as plain JSON would drop them.
			return nil, bad("it has comments, and rewind-lsp rewrites only plain JSON so as not to lose them; "+
				"remove the comments or add the hooks by hand", err)
		}
		return nil, bad("not a JSON object of settings", err)
	}
	var hooks []member
	if raw, i := get(top, "hooks"); i >= 0 && string(raw) != "null" {
		if hooks, err = decodeObject(raw); err != nil {
			return nil, bad(`"hooks" is not a JSON object`, err)
		}
	}
	var added []string
	for _, sp := range specs {
		var groups []json.RawMessage
		if raw, i := get(hooks, sp.event); i >= 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, bad(fmt.Sprintf(`"hooks.%s" is not a list of matcher groups`, sp.event), err)
			}
		}
		present, changed := false, false
		for i, g := range groups {
			var grp struct {
				Matcher *string `json:"matcher"`
				Hooks   []struct {
					Command string `json:"command"`
				} `json:"hooks"`
			}
			if json.Unmarshal(g, &grp) != nil {
				continue // someone else's shape: kept as it is
			}
			ours := len(grp.Hooks) > 0
			for _, h := range grp.Hooks {
				present = present || isOurHook(h.Command, name)
				ours = ours && isOurHook(h.Command, name)
			}
			// An older install of rewind-lsp's own group, with another
			// matcher (it now also sees the file tools before they
			// write): the matcher is brought up to date.
			if ours && grp.Matcher != nil && sp.matcher != "" && *grp.Matcher != sp.matcher {
				obj, err := decodeObject(g)
				if err != nil {
					continue
				}
				m, _ := json.Marshal(sp.matcher)
				groups[i] = encodeObject(set(obj, "matcher", m))
				changed = true
			}
		}
		if present {
			if changed {
				list, _ := json.Marshal(groups)
				hooks = set(hooks, sp.event, list)
				added = append(added, sp.event+" (updated)")
			}
			continue
		}
		h := map[string]any{"type": "command", "command": sp.command}
		if sp.timeout > 0 {
			h["timeout"] = sp.timeout
		}
		grp := map[string]any{"hooks": []any{h}}
		if sp.matcher != "" {
			grp["matcher"] = sp.matcher
		}
		raw, _ := json.Marshal(grp)
		groups = append(groups, raw)
		list, _ := json.Marshal(groups)
		hooks = set(hooks, sp.event, list)
		added = append(added, sp.event)
	}
	ed := &settingsEdit{path: path, mode: mode, added: added}
	if len(added) == 0 {
		return ed, nil
	}
	top = set(top, "hooks", encodeObject(hooks))
	var out bytes.Buffer
	if err := json.Indent(&out, encodeObject(top), "", "  "); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	out.WriteByte('\n')
	ed.data = out.Bytes()
	return ed, nil
}

// writeSettings replaces the file at path atomically, making its folder.
func writeSettings(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := osfile.WriteFileAtomic(path, data, mode, true); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
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

// hasComment reports whether data holds a // or /* comment outside JSON
// strings (a settings file in the JSON-with-comments dialect).
func hasComment(data []byte) bool {
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && c == '/' && i+1 < len(data) && (data[i+1] == '/' || data[i+1] == '*'):
			return true
		}
	}
	return false
}

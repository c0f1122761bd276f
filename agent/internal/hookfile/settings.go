package hookfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// Spec is one event an agent's settings hook: the command that runs
// for it and the tool matcher of a tool event.
type Spec struct {
	Event, Matcher, Command string
	Timeout                 int // in the agent's unit; 0: the agent's default
}

// Command is the hook command of agent name, for event when the agent
// needs it named.
func Command(o agent.SetupOptions, name, event string) string {
	cmd := o.Command + " hook " + name
	if event != "" {
		cmd += " " + event
	}
	return cmd
}

// IsOurHook reports whether a hook command runs rewind-lsp's hook for
// agent name, whichever path it runs the binary from.
func IsOurHook(cmd, name string) bool {
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

// Merge adds rewind-lsp's hook for each spec to the settings file at
// path (planHooks) and writes it. It returns the events it added.
func Merge(path, name string, specs []Spec) ([]string, error) {
	ed, err := Plan(path, name, specs)
	if err != nil {
		return nil, err
	}
	return ed.Added, ed.Write()
}

// Edit is a settings file's new content, not written yet.
type Edit struct {
	path  string
	data  []byte
	mode  fs.FileMode
	Added []string // the events whose hooks it adds; none: nothing to write
}

// Write writes the edit, if it changes anything.
func (ed *Edit) Write() error {
	if len(ed.Added) == 0 {
		return nil
	}
	return WriteSettings(ed.path, ed.data, ed.mode)
}

// Plan is the settings file at path (created when missing) with
// rewind-lsp's hook for each spec added, in the shape Claude Code, Codex
// and Gemini CLI share — {"hooks": {Event: [{"matcher", "hooks": [{"type":
// "command", "command", "timeout"}]}]}} — keeping every other setting and
// hook and their order (a new hook comes after the others of its event);
// an event that already runs rewind-lsp's hook for agent name is left
// alone. A file that is not a JSON object is an error naming it.
func Plan(path, name string, specs []Spec) (*Edit, error) {
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
	top, err := DecodeObject(data)
	if err != nil {
		if hasComment(data) {
			// Gemini CLI and VS Code read JSON with comments; writing the
			// file back as plain JSON would drop them.
			return nil, bad("it has comments, and rewind-lsp rewrites only plain JSON so as not to lose them; "+
				"remove the comments or add the hooks by hand", err)
		}
		return nil, bad("not a JSON object of settings", err)
	}
	var hooks []Member
	if raw, i := Get(top, "hooks"); i >= 0 && string(raw) != "null" {
		if hooks, err = DecodeObject(raw); err != nil {
			return nil, bad(`"hooks" is not a JSON object`, err)
		}
	}
	var added []string
	for _, sp := range specs {
		var groups []json.RawMessage
		if raw, i := Get(hooks, sp.Event); i >= 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, bad(fmt.Sprintf(`"hooks.%s" is not a list of matcher groups`, sp.Event), err)
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
				present = present || IsOurHook(h.Command, name)
				ours = ours && IsOurHook(h.Command, name)
			}
			// An older install of rewind-lsp's own group, with another
			// matcher (it now also sees the file tools before they
			// write): the matcher is brought up to date.
			if ours && grp.Matcher != nil && sp.Matcher != "" && *grp.Matcher != sp.Matcher {
				obj, err := DecodeObject(g)
				if err != nil {
					continue
				}
				m, _ := json.Marshal(sp.Matcher)
				groups[i] = EncodeObject(Set(obj, "matcher", m))
				changed = true
			}
		}
		if present {
			if changed {
				list, _ := json.Marshal(groups)
				hooks = Set(hooks, sp.Event, list)
				added = append(added, sp.Event+" (updated)")
			}
			continue
		}
		h := map[string]any{"type": "command", "command": sp.Command}
		if sp.Timeout > 0 {
			h["timeout"] = sp.Timeout
		}
		grp := map[string]any{"hooks": []any{h}}
		if sp.Matcher != "" {
			grp["matcher"] = sp.Matcher
		}
		raw, _ := json.Marshal(grp)
		groups = append(groups, raw)
		list, _ := json.Marshal(groups)
		hooks = Set(hooks, sp.Event, list)
		added = append(added, sp.Event)
	}
	ed := &Edit{path: path, mode: mode, Added: added}
	if len(added) == 0 {
		return ed, nil
	}
	top = Set(top, "hooks", EncodeObject(hooks))
	var out bytes.Buffer
	if err := json.Indent(&out, EncodeObject(top), "", "  "); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	out.WriteByte('\n')
	ed.data = out.Bytes()
	return ed, nil
}

// WriteSettings replaces the file at path atomically, making its folder.
func WriteSettings(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := osfile.WriteFileAtomic(path, data, mode, true); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Member is one key of a JSON object, its value kept as written.
type Member struct {
	key string
	val json.RawMessage
}

// DecodeObject reads a JSON object's members in order.
func DecodeObject(data []byte) ([]Member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []Member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, Member{key: tok.(string), val: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("text after the JSON object")
	}
	return out, nil
}

// EncodeObject writes the members as one JSON object, in order.
func EncodeObject(ms []Member) []byte {
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

// Get is the value of key and its index among the members (nil and -1
// when there is none).
func Get(ms []Member, key string) (json.RawMessage, int) {
	for i, m := range ms {
		if m.key == key {
			return m.val, i
		}
	}
	return nil, -1
}

// Set gives key the value v, in its place, or as a new last member.
func Set(ms []Member, key string, v json.RawMessage) []Member {
	if _, i := Get(ms, key); i >= 0 {
		ms[i].val = v
		return ms
	}
	return append(ms, Member{key, v})
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

package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/rootpath"
)

// session is what the proxy knows of one ACP session.
type session struct {
	id  string
	cwd string
	q   *queue // its recording, in order

	// Guarded by the proxy's mu:
	agentListed bool            // the agent sent its own command list
	agentNames  map[string]bool // the names of the agent's commands
	calls       map[string]*toolCall
	order       []string // the calls' ids, as announced
	// prompting is true while a prompt of the session is with the agent:
	// only then are tool calls its turn's steps (session/load replays
	// past ones as updates).
	prompting bool

	// Guarded by locMu: the root and client, found on first use.
	locMu sync.Mutex
	root  string
	cl    commands.Client
}

// toolCall is one tool call of the agent, from its announcement to its
// end.
type toolCall struct {
	id, kind, title string
	paths           []string // absolute: its locations and the files the agent asked the editor to write
	pre             bool     // its state before was recorded
	done            bool
	// synthetic calls stand for an fs/write_text_file no announced call
	// covers; they end with the editor's answer.
	synthetic bool
}

// sessionLocked returns session id, made on first sight. p.mu is held.
func (p *Proxy) sessionLocked(id, cwd string) *session {
	s := p.sessions[id]
	if s == nil {
		s = &session{id: id, cwd: cwd, q: newQueue(p.log), agentNames: map[string]bool{}, calls: map[string]*toolCall{}}
		p.sessions[id] = s
	}
	if s.cwd == "" {
		s.cwd = cwd
	}
	return s
}

// session returns session id ("" or unknown: made now, with no folder).
func (p *Proxy) session(id string) *session {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sessionLocked(id, "")
}

// client is the command set of the session's root, and the root.
func (p *Proxy) client(s *session) (string, commands.Client, error) {
	s.locMu.Lock()
	defer s.locMu.Unlock()
	if s.cl != nil {
		return s.root, s.cl, nil
	}
	dir := s.cwd
	if dir == "" {
		dir = p.o.Dir
	}
	root, cl, err := p.o.Locate(dir, p.ap)
	if err != nil {
		return "", nil, err
	}
	s.root, s.cl = root, cl
	return root, cl, nil
}

// The proxy's commands, by their own names; a name the agent already
// uses is offered with the prefix "rewind-".
var ownCommands = []struct {
	name, description, hint string
}{
	{"rewind", "rewind-lsp: put the files back to a turn (2), a step (2.1) or a checkpoint (@label); add conversation or both to fork the agent's conversation too; without a target, the turns", "[TARGET] [code|conversation|both]"},
	{"undo", "rewind-lsp: undo the latest rewind or revert", ""},
	{"revert", "rewind-lsp: take back one turn (2) or one step (2.1), keeping everything after it", "TARGET"},
	{"turns", "rewind-lsp: the turns and their steps, newest last", ""},
}

// advertisedLocked is the name each of the proxy's commands is offered
// under in session s. p.mu is held.
func advertisedLocked(s *session) map[string]string {
	out := map[string]string{}
	for _, c := range ownCommands {
		name := c.name
		if s.agentNames[name] {
			name = "rewind-" + name
		}
		out[c.name] = name
	}
	return out
}

// commandList is the proxy's commands as ACP lists them.
func (p *Proxy) commandList(s *session) []json.RawMessage {
	p.mu.Lock()
	names := advertisedLocked(s)
	p.mu.Unlock()
	var out []json.RawMessage
	for _, c := range ownCommands {
		v := map[string]any{"name": names[c.name], "description": c.description}
		if c.hint != "" {
			v["input"] = map[string]any{"hint": c.hint}
		}
		data, _ := json.Marshal(v)
		out = append(out, data)
	}
	return out
}

// advertise sends the proxy's commands for a session whose agent listed
// none.
func (p *Proxy) advertise(s *session) {
	p.notify("session/update", map[string]any{"sessionId": s.id, "update": map[string]any{
		"sessionUpdate": "available_commands_update", "availableCommands": p.commandList(s)}})
}

// withCommands adds the proxy's commands to the agent's list.
func (p *Proxy) withCommands(s *session, params map[string]json.RawMessage, update map[string]json.RawMessage, line []byte) []byte {
	var list []json.RawMessage
	if err := json.Unmarshal(update["availableCommands"], &list); err != nil {
		return line
	}
	names := map[string]bool{}
	for _, c := range list {
		var v struct {
			Name string `json:"name"`
		}
		json.Unmarshal(c, &v)
		names[v.Name] = true
	}
	p.mu.Lock()
	s.agentListed, s.agentNames = true, names
	p.mu.Unlock()
	list = append(list, p.commandList(s)...)
	update["availableCommands"], _ = json.Marshal(list)
	params["update"], _ = json.Marshal(update)
	out, err := replaceParams(line, params)
	if err != nil {
		return line
	}
	return out
}

// ownCommand reads a prompt that is one of the proxy's commands: its own
// name and its arguments.
func (p *Proxy) ownCommand(s *session, text string) (name string, args []string, ok bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") {
		return "", nil, false
	}
	fields := strings.Fields(text[1:])
	if len(fields) == 0 {
		return "", nil, false
	}
	p.mu.Lock()
	names := advertisedLocked(s)
	p.mu.Unlock()
	for own, advertised := range names {
		if fields[0] == advertised {
			return own, fields[1:], true
		}
	}
	return "", nil, false
}

// promptText is the text of a prompt's text blocks, one block a line.
func promptText(blocks []json.RawMessage) string {
	var parts []string
	for _, b := range blocks {
		var v struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(b, &v) == nil && v.Type == "text" {
			parts = append(parts, v.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// rel makes absolute path p relative to root when it is inside it (the
// two may name one folder through links).
func rel(root, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return filepath.ToSlash(filepath.Clean(p)), !strings.HasPrefix(filepath.Clean(p), "..")
	}
	return rootpath.RelReal(root, p)
}

package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// callBudget bounds one recording call: a journal that hangs holds up the
// session's later records, never a message.
const callBudget = 30 * time.Second

// queue runs one session's recording calls in order, away from the
// messages: a turn's start before its steps, its steps before its end.
type queue struct {
	ch  chan func()
	log *log.Logger
}

func newQueue(l *log.Logger) *queue {
	q := &queue{ch: make(chan func(), 4096), log: l}
	go func() {
		for f := range q.ch {
			f()
		}
	}()
	return q
}

// do queues f; the channel closes once f ran. A queue that is full (a
// journal that hangs, thousands of calls behind) drops f, saying so.
func (q *queue) do(f func()) <-chan struct{} {
	done := make(chan struct{})
	select {
	case q.ch <- func() { defer close(done); f() }:
	default:
		q.log.Printf("the journal is not keeping up: a record was dropped")
		close(done)
	}
	return done
}

// wait waits for done at most bound, and reports whether it came.
func wait(done <-chan struct{}, bound time.Duration) bool {
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// callCtx is the context of one recording: the proxy's actor and source,
// its own idempotency key (a call whose answer was lost is recorded once),
// and a budget.
func callCtx() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), callBudget)
	return commands.WithCall(ctx, commands.Call{Key: commands.NewKey(), Actor: "acp", Source: journal.SourceACP}), cancel
}

// prompt handles the editor's session/prompt: one of the proxy's
// commands is answered here (nil: nothing to pass on); any other prompt
// opens a turn of its session — waiting at most the bound for the journal
// — and carries the session's pending notice as a text block before the
// person's.
func (p *Proxy) prompt(env envelope, line []byte) []byte {
	var v struct {
		SessionID string            `json:"sessionId"`
		Prompt    []json.RawMessage `json:"prompt"`
	}
	if json.Unmarshal(env.Params, &v) != nil || v.SessionID == "" {
		return line
	}
	s := p.session(v.SessionID)
	text := promptText(v.Prompt)
	if name, args, ok := p.ownCommand(s, text); ok {
		go p.answer(env.ID, s, name, args)
		return nil
	}
	p.mu.Lock()
	p.pending[idKey(env.ID)] = pendingRequest{method: "session/prompt", session: s.id}
	s.prompting = true
	agent := p.agent
	p.mu.Unlock()

	var notice string
	late := make(chan struct{})
	done := s.q.do(func() {
		ctx, cancel := callCtx()
		defer cancel()
		_, cl, err := p.client(s)
		if err != nil {
			p.log.Printf("session %s: %v; the prompt is not recorded", s.id, err)
			return
		}
		a := commands.TurnStartArgs{Prompt: text, Session: s.id, Source: journal.SourceACP, Agent: turnAgent(agent)}
		a.Transcript, a.ForkPoint = p.position(s, agent)
		if _, err := commands.TurnStart.Call(ctx, cl, a); err != nil {
			p.log.Printf("session %s: opening its turn: %v", s.id, err)
			return
		}
		select {
		case <-late:
			return // the prompt went on without it: the notice waits for the next one
		default:
		}
		n, err := commands.Notices.Call(ctx, cl, commands.NoticesArgs{Session: s.id})
		if err != nil {
			p.log.Printf("session %s: its notice: %v", s.id, err)
			return
		}
		notice = n.Text
	})
	if !wait(done, p.o.Bound) {
		close(late)
		p.log.Printf("session %s: the journal did not answer within %v; the prompt goes on, its turn is recorded when it can be", s.id, p.o.Bound)
		return line
	}
	if notice == "" {
		return line
	}
	block, _ := json.Marshal(map[string]string{"type": "text", "text": notice})
	var params map[string]json.RawMessage
	if json.Unmarshal(env.Params, &params) != nil {
		return line
	}
	params["prompt"], _ = json.Marshal(append([]json.RawMessage{block}, v.Prompt...))
	out, err := replaceParams(line, params)
	if err != nil {
		return line
	}
	return out
}

// endTurn ends the session's turn once the agent answered its prompt;
// calls still open end first.
func (p *Proxy) endTurn(sid string) {
	s := p.session(sid)
	p.finishCalls(s)
	p.mu.Lock()
	s.prompting = false
	agent := p.agent
	p.mu.Unlock()
	s.q.do(func() {
		ctx, cancel := callCtx()
		defer cancel()
		_, cl, err := p.client(s)
		if err != nil {
			return
		}
		a := commands.TurnEndArgs{Session: s.id}
		_, a.ForkPoint = p.position(s, agent)
		if _, err := commands.TurnEnd.Call(ctx, cl, a); err != nil {
			p.log.Printf("session %s: ending its turn: %v", s.id, err)
		}
	})
}

// update reads the agent's session/update: tool calls become steps, and
// the command list gets the proxy's commands. It returns the line to pass
// on.
func (p *Proxy) update(env envelope, line []byte) []byte {
	var params map[string]json.RawMessage
	if json.Unmarshal(env.Params, &params) != nil {
		return line
	}
	var sid string
	json.Unmarshal(params["sessionId"], &sid)
	var update map[string]json.RawMessage
	if sid == "" || json.Unmarshal(params["update"], &update) != nil {
		return line
	}
	var kind string
	json.Unmarshal(update["sessionUpdate"], &kind)
	s := p.session(sid)
	switch kind {
	case "available_commands_update":
		return p.withCommands(s, params, update, line)
	case "tool_call", "tool_call_update":
		c := p.callSeen(s, params["update"])
		var st struct {
			Status string `json:"status"`
		}
		json.Unmarshal(params["update"], &st)
		if c != nil && (st.Status == "completed" || st.Status == "failed") {
			p.finishCall(s, c)
		}
	}
	return line
}

// acpToolCall is what the proxy reads of a tool call or its update.
type acpToolCall struct {
	ToolCallID string `json:"toolCallId"`
	Title      string `json:"title"`
	Kind       string `json:"kind"`
	Locations  []struct {
		Path string `json:"path"`
	} `json:"locations"`
}

// callSeen notes a tool call's announcement or update (whichever comes
// first announces it) and returns it.
func (p *Proxy) callSeen(s *session, raw json.RawMessage) *toolCall {
	var v acpToolCall
	if json.Unmarshal(raw, &v) != nil || v.ToolCallID == "" {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !s.prompting {
		return nil // a past call replayed by session/load, or no prompt's
	}
	c := s.calls[v.ToolCallID]
	if c == nil {
		c = &toolCall{id: v.ToolCallID}
		s.calls[c.id] = c
		s.order = append(s.order, c.id)
	}
	if v.Title != "" {
		c.title = v.Title
	}
	if v.Kind != "" {
		c.kind = v.Kind
	}
	for _, l := range v.Locations {
		c.addPath(l.Path)
	}
	return c
}

func (c *toolCall) addPath(p string) {
	if p == "" {
		return
	}
	for _, q := range c.paths {
		if q == p {
			return
		}
	}
	c.paths = append(c.paths, p)
}

// permission: a tool call the agent asks the editor to allow has not run
// yet, so its state before is recorded now, exactly (within the bound).
func (p *Proxy) permission(env envelope) {
	var v struct {
		SessionID string          `json:"sessionId"`
		ToolCall  json.RawMessage `json:"toolCall"`
	}
	if json.Unmarshal(env.Params, &v) != nil || v.SessionID == "" {
		return
	}
	s := p.session(v.SessionID)
	if c := p.callSeen(s, v.ToolCall); c != nil {
		p.recordPre(s, c)
	}
}

// agentWrites: the agent asks the editor to write a file. The file
// belongs to the call in progress — the latest announced and not ended —
// whose state before is recorded now, before the editor writes; a write
// outside any call is a call of its own, ended by the editor's answer.
func (p *Proxy) agentWrites(env envelope) {
	var v struct {
		SessionID string `json:"sessionId"`
		Path      string `json:"path"`
	}
	if json.Unmarshal(env.Params, &v) != nil || v.SessionID == "" || v.Path == "" {
		return
	}
	s := p.session(v.SessionID)
	p.mu.Lock()
	if !s.prompting {
		p.mu.Unlock()
		return
	}
	var c *toolCall
	for i := len(s.order) - 1; i >= 0; i-- {
		if k := s.calls[s.order[i]]; !k.done && !k.synthetic {
			c = k
			break
		}
	}
	if c == nil {
		c = &toolCall{id: fmt.Sprintf("fs/write_text_file %s", idKey(env.ID)), kind: "edit", synthetic: true}
		s.calls[c.id] = c
		s.order = append(s.order, c.id)
		p.pending["agent:"+idKey(env.ID)] = pendingRequest{method: "fs/write_text_file", session: s.id}
	}
	c.addPath(v.Path)
	p.mu.Unlock()
	p.recordPre(s, c)
}

// editorWrote: the editor answered an agent's fs/write_text_file that no
// announced call covered: that call ends.
func (p *Proxy) editorWrote(id json.RawMessage) {
	p.mu.Lock()
	req, ok := p.pending["agent:"+idKey(id)]
	delete(p.pending, "agent:"+idKey(id))
	var c *toolCall
	var s *session
	if ok {
		s = p.sessions[req.session]
		if s != nil {
			c = s.calls[fmt.Sprintf("fs/write_text_file %s", idKey(id))]
		}
	}
	p.mu.Unlock()
	if c != nil {
		p.finishCall(s, c)
	}
}

// quiet kinds of tool calls write nothing themselves.
var quiet = map[string]bool{"read": true, "search": true, "think": true, "fetch": true, "switch_mode": true}

// recordPre records the state before call c (once), waiting at most the
// bound: the agent waits for the editor meanwhile, so the state is exact.
func (p *Proxy) recordPre(s *session, c *toolCall) {
	p.mu.Lock()
	if c.pre || c.done || (quiet[c.kind] && len(c.paths) == 0) {
		p.mu.Unlock()
		return
	}
	c.pre = true
	a := p.toolArgs(c, journal.PhasePre)
	p.mu.Unlock()
	done := s.q.do(func() { p.recordTool(s, a) })
	if !wait(done, p.o.Bound) {
		p.log.Printf("session %s: the journal did not answer within %v; tool call %s goes on", s.id, p.o.Bound, c.id)
	}
}

// finishCall records what call c wrote (once): a step of the turn when it
// changed files. A call whose state before could not be recorded in time
// (an agent that writes files itself a few milliseconds after announcing
// the call) starts from the end of the step before it.
func (p *Proxy) finishCall(s *session, c *toolCall) {
	p.mu.Lock()
	if c.done {
		p.mu.Unlock()
		return
	}
	c.done = true
	if quiet[c.kind] && len(c.paths) == 0 {
		p.mu.Unlock()
		return
	}
	a := p.toolArgs(c, journal.PhasePost)
	p.mu.Unlock()
	s.q.do(func() { p.recordTool(s, a) })
}

// finishCalls ends the session's calls still open.
func (p *Proxy) finishCalls(s *session) {
	p.mu.Lock()
	var open []*toolCall
	for _, id := range s.order {
		if c := s.calls[id]; !c.done {
			open = append(open, c)
		}
	}
	p.mu.Unlock()
	for _, c := range open {
		p.finishCall(s, c)
	}
	p.mu.Lock()
	s.calls, s.order = map[string]*toolCall{}, nil
	p.mu.Unlock()
}

// toolArgs is the rewind.toolCall of c's phase; its paths are made
// relative to the root when the call is recorded. p.mu is held.
func (p *Proxy) toolArgs(c *toolCall, phase journal.Phase) commands.ToolCallArgs {
	tool := c.kind
	if tool == "" || tool == "other" {
		tool = "tool"
	}
	a := commands.ToolCallArgs{Tool: tool, ToolUse: c.id, Phase: string(phase), Paths: append([]string(nil), c.paths...), Detail: c.title}
	// A file tool names its files; anything else (a shell, a tool that
	// names nothing) may write anything: the root is captured.
	a.Capture = len(c.paths) == 0 || !(c.kind == "edit" || c.kind == "delete" || c.kind == "move")
	return a
}

// recordTool records one phase of a tool call.
func (p *Proxy) recordTool(s *session, a commands.ToolCallArgs) {
	ctx, cancel := callCtx()
	defer cancel()
	root, cl, err := p.client(s)
	if err != nil {
		return
	}
	a.Session = s.id
	var paths []string
	for _, q := range a.Paths {
		if r, ok := rel(root, q); ok {
			paths = append(paths, r)
		}
	}
	a.Paths = paths
	if len(paths) == 0 && !a.Capture {
		return // files outside this root
	}
	if !a.Capture {
		a.Detail = strings.Join(paths, " ")
	}
	if _, err := commands.ToolCall.Call(ctx, cl, a); err != nil {
		p.log.Printf("session %s: tool call %s (%s): %v", s.id, a.ToolUse, a.Phase, err)
	}
}

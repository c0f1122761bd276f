package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/commands/text"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// answerBudget bounds one of the proxy's commands.
const answerBudget = 2 * time.Minute

// answer runs one of the proxy's commands for a prompt of session s and
// answers the prompt itself: agent_message_chunk updates with the result
// in its words (as the command line prints it), then end_turn. The agent
// never sees the prompt.
func (p *Proxy) answer(id json.RawMessage, s *session, name string, args []string) {
	p.answers.Lock()
	defer p.answers.Unlock()
	var out string
	// After the session's records so far (its last turn's end), never
	// beside them.
	<-s.q.do(func() { out = p.run(s, name, args) })
	p.notify("session/update", map[string]any{"sessionId": s.id, "update": map[string]any{
		"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": out}}})
	if err := p.toEditor.send(rpcResponse{JSONRPC: "2.0", ID: id, Result: map[string]any{"stopReason": "end_turn"}}); err != nil {
		p.log.Printf("to the editor: %v", err)
	}
}

// run runs command name and says what came of it.
func (p *Proxy) run(s *session, name string, args []string) string {
	ctx, cancel := context.WithTimeout(context.Background(), answerBudget)
	defer cancel()
	ctx = commands.WithCall(ctx, commands.Call{Actor: "acp", Source: journal.SourceACP})
	_, cl, err := p.client(s)
	if err != nil {
		return "rewind-lsp: " + err.Error()
	}
	p.ap.use(s.id)
	var b strings.Builder
	undoName := p.advertised(s, "undo")
	switch {
	case name == "turns" || (name == "rewind" && len(args) == 0):
		if len(args) > 0 {
			return "usage: /" + p.advertised(s, name)
		}
		l, err := commands.List.Call(ctx, cl, commands.ListArgs{})
		if err != nil {
			return "rewind-lsp: " + err.Error()
		}
		text.Log(&b, l)
	case name == "rewind":
		mode := "code"
		if len(args) == 2 {
			mode = args[1]
		}
		if len(args) > 2 || (mode != "code" && mode != "conversation" && mode != "both") {
			return "usage: /" + p.advertised(s, name) + " [TARGET] [code|conversation|both]"
		}
		r, err := commands.Rewind.Call(ctx, cl, commands.RewindArgs{Target: args[0], Mode: mode})
		if err != nil {
			return "rewind-lsp: " + err.Error()
		}
		p.rewound(&b, r, "rewound", undoName)
	case name == "undo":
		if len(args) > 0 {
			return "usage: /" + undoName
		}
		r, err := commands.Undo.Call(ctx, cl, commands.UndoArgs{})
		if err != nil {
			return "rewind-lsp: " + err.Error()
		}
		p.rewound(&b, r, "undone", undoName)
	case name == "revert":
		if len(args) != 1 {
			return "usage: /" + p.advertised(s, name) + " TARGET"
		}
		r, err := commands.Revert.Call(ctx, cl, commands.RevertArgs{Target: args[0]})
		if err != nil {
			return "rewind-lsp: " + err.Error()
		}
		if r.FailureReason != "" {
			text.RevertPlan(&b, r.Plan, "would revert")
			fmt.Fprintf(&b, "refused: %s\n", r.FailureReason)
			break
		}
		text.RevertPlan(&b, r.Plan, "reverted")
		if r.Entry != "" {
			fmt.Fprintf(&b, "undo it with: /%s\n", undoName)
		}
	}
	return b.String()
}

// rewound says what a rewind or an undo did, as the command line does,
// and, for a conversation forked, that the editor's session goes on.
func (p *Proxy) rewound(b *strings.Builder, r *commands.RewindResult, verb, undoName string) {
	if !r.Applied {
		text.Plan(b, r.Plan, "would change")
		fmt.Fprintf(b, "refused: %s\n", r.FailureReason)
		return
	}
	text.Plan(b, r.Plan, verb)
	text.Conversation(b, r.Conversation)
	if c := r.Conversation; c != nil && c.Resume != "" {
		fmt.Fprintln(b, "this editor's session goes on as it is: ACP cannot move it to the fork; resume the fork in a terminal")
	}
	if verb == "rewound" && r.Entry != "" && r.Plan != nil && r.Plan.Mode != "summarize" {
		fmt.Fprintf(b, "undo it with: /%s\n", undoName)
	}
}

// advertised is the name command name is offered under in session s.
func (p *Proxy) advertised(s *session, name string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return advertisedLocked(s)[name]
}

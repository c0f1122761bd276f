package commands

import (
	"context"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// AgentTargetArgs asks where in rewind-lsp's history an entry of an agent's
// conversation stands: the person takes the conversation back there in
// the agent's own interface (pi's /tree and /fork, oh-my-pi's /branch),
// and may take the files back with it.
type AgentTargetArgs struct {
	Scope
	// Agent names the session's agent ("pi").
	Agent string `json:"agent"`
	// Path is the conversation from its first entry to the entry picked.
	Path []agent.ConvEntry `json:"path"`
}

// AgentTargetResult is the recorded state that entry stands for: a turn's
// start or end, or the state after a step (Target, a journal entry id a
// rewind takes), named in words; Target is "" when no turn of the agent
// recorded one there.
type AgentTargetResult struct {
	Target journal.EntryID `json:"target"`
	// Title names the state: "the state before turn 2 (fix auth)", "the
	// end of turn 2 (fix auth)", "after step 1 of turn 2 (edit a.txt)".
	Title string `json:"title"`
}

// AgentTarget finds, for a conversation going back to the last entry of
// a.Path, the recorded state of the files that goes with it. The
// conversation goes on from that entry (from the one before it, for a
// prompt); from there back towards the first entry, the nearest entry that
// a turn of the agent on the active branch recorded stands for that
// turn's state there: its conversation point at a prompt (the turn's
// start), at its end (the turn's end), or a tool call's result (the state
// after that step).
func (s *Service) AgentTarget(ctx context.Context, a AgentTargetArgs) (*AgentTargetResult, error) {
	path := a.Path
	if n := len(path); n > 0 && path[n-1].Prompt {
		path = path[:n-1]
	}
	r := &AgentTargetResult{}
	if len(path) == 0 {
		return r, nil
	}
	h, err := s.ws.History()
	if err != nil {
		return nil, err
	}
	type point struct {
		target journal.EntryID
		title  string
	}
	starts, ends, steps := map[string]point{}, map[string]point{}, map[string]point{}
	for _, t := range h.Turns(0, 0) {
		if t.Start.Agent != a.Agent {
			continue
		}
		if u := t.Start.ForkUUID; u != "" {
			starts[u] = point{t.Start.ID, "the state before " + words.Target(string(journal.KindTurnStart), t.Number, "", t.Start.Prompt, "")}
		}
		if t.End == nil {
			continue
		}
		if u := t.End.ForkUUID; u != "" {
			ends[u] = point{t.End.ID, words.Target(string(journal.KindTurnEnd), t.Number, "", t.Start.Prompt, "")}
		}
		for _, st := range h.Steps(t.Start) {
			if st.ToolUse != "" {
				steps[st.ToolUse] = point{st.ID, "after " + words.StepName(t.Number, st.Step, st.Tool, st.Detail)}
			}
		}
	}
	for i := len(path) - 1; i >= 0; i-- {
		e := path[i]
		p, ok := starts[e.ID]
		if !ok {
			p, ok = ends[e.ID]
		}
		if !ok && e.ToolUse != "" {
			p, ok = steps[e.ToolUse]
		}
		if ok {
			r.Target, r.Title = p.target, p.title
			return r, nil
		}
	}
	return r, nil
}

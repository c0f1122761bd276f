package gitnotes

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
)

// Explanation is a commit's provenance as `rewind-lsp explain --json`
// prints it.
type Explanation struct {
	Commit   string           `json:"commit"`
	Sessions []ExplainSession `json:"sessions"`
	Files    []ExplainFile    `json:"files"`
	// Added counts the lines the commit added or changed; AgentLines,
	// HumanLines and UnattestedLines split them.
	Added           int      `json:"added"`
	AgentLines      int      `json:"agentLines"`
	HumanLines      int      `json:"humanLines"`
	UnattestedLines int      `json:"unattestedLines"`
	Hints           []string `json:"hints"`
	// Warnings name notes that were skipped (not part of the JSON shape's
	// promise; printed on stderr).
	Warnings []string `json:"-"`
}

// ExplainSession is one agent session of the commit.
type ExplainSession struct {
	Agent   string        `json:"agent"`
	Model   string        `json:"model"`
	Session string        `json:"session"`
	Turns   []ExplainTurn `json:"turns"`
	Lines   int           `json:"lines"`
}

// ExplainTurn is one turn of a session and its steps that wrote lines.
type ExplainTurn struct {
	Turn int `json:"turn"`
	// TurnID is the turn's start entry in the journal of the root that
	// recorded it, where the notes say.
	TurnID string        `json:"-"`
	Prompt string        `json:"prompt,omitempty"`
	Steps  []ExplainStep `json:"steps"`
}

// ExplainStep is one step of a turn.
type ExplainStep struct {
	Step int    `json:"step"`
	Tool string `json:"tool,omitempty"`
}

// ExplainFile is one file's attested ranges.
type ExplainFile struct {
	Path   string         `json:"path"`
	Ranges []ExplainRange `json:"ranges"`
}

// ExplainRange is a run of attested lines, 1-based inclusive.
type ExplainRange struct {
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session,omitempty"`
	Turn    int    `json:"turn,omitempty"`
	Step    int    `json:"step,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Human   string `json:"human,omitempty"`
}

// Explain tells rev's provenance from its notes: the Agent Trace record
// rewind-lsp wrote (turns and steps), else the Git AI note (sessions only),
// against the lines git says the commit added. Its hints are the commit's
// trailers that name an agent (Hints; agent knows agents' addresses).
func Explain(ctx context.Context, r Repo, rev string, agent func(email string) string) (*Explanation, error) {
	a, err := Attest(ctx, r, rev, Options{})
	if err != nil {
		return nil, err
	}
	hints, err := Hints(ctx, r, a.Commit, agent)
	if err != nil {
		return nil, err
	}
	ex := &Explanation{Commit: a.Commit, Sessions: []ExplainSession{}, Files: []ExplainFile{}, Hints: hints}
	for _, f := range a.Files {
		ex.Added += f.Added
	}
	files := map[string]*ExplainFile{}
	add := func(path string, rg ExplainRange) {
		f := files[path]
		if f == nil {
			f = &ExplainFile{Path: path}
			files[path] = f
		}
		f.Ranges = append(f.Ranges, rg)
		if rg.Human != "" {
			ex.HumanLines += rg.End - rg.Start + 1
		} else {
			ex.AgentLines += rg.End - rg.Start + 1
		}
	}
	var sessions []*ExplainSession
	sessionOf := func(agent, model, id string) *ExplainSession {
		for _, s := range sessions {
			if s.Agent == agent && s.Session == id {
				return s
			}
		}
		s := &ExplainSession{Agent: agent, Model: model, Session: id, Turns: []ExplainTurn{}}
		sessions = append(sessions, s)
		return s
	}
	found := false
	if data, ok, err := r.Note(ctx, TraceRef, a.Commit); err != nil {
		return nil, err
	} else if ok {
		rs, err := traceRanges(data)
		if err != nil {
			ex.Warnings = append(ex.Warnings, fmt.Sprintf("commit %s: its Agent Trace note skipped: %v", a.Commit, err))
		} else if rs != nil {
			found = true
			for _, x := range rs {
				add(x.Path, ExplainRange{Start: x.StartLine, End: x.EndLine, Agent: x.Agent, Session: x.Session, Turn: x.Turn, Step: x.Step, Tool: x.StepTool})
				s := sessionOf(x.Agent, "unknown", x.Session)
				s.Lines += x.EndLine - x.StartLine + 1
				s.addStep(x.Turn, x.TurnID, x.Step, x.StepTool)
			}
		}
	}
	if !found {
		if data, ok, err := r.Note(ctx, GitAIRef, a.Commit); err != nil {
			return nil, err
		} else if ok {
			n, err := ParseGitAI(data)
			if err != nil {
				ex.Warnings = append(ex.Warnings, fmt.Sprintf("commit %s: its Git AI note skipped: %v", a.Commit, err))
			} else {
				for _, f := range n.Files {
					for _, e := range f.Entries {
						for _, rg := range e.Ranges {
							x := ExplainRange{Start: rg[0], End: rg[1]}
							if h, ok := n.Metadata.Humans[e.Key]; ok {
								x.Human = h.Author
							} else if s, ok := n.Metadata.agent(e.Key); ok {
								x.Agent, x.Session = s.Tool, s.ID
								es := sessionOf(s.Tool, s.Model, s.ID)
								es.Lines += rg[1] - rg[0] + 1
							}
							add(f.Path, x)
						}
					}
				}
			}
		}
	}
	for _, s := range sessions {
		ex.Sessions = append(ex.Sessions, *s)
	}
	for _, f := range a.Files {
		if ef := files[f.Path]; ef != nil {
			sort.Slice(ef.Ranges, func(i, j int) bool { return ef.Ranges[i].Start < ef.Ranges[j].Start })
			ex.Files = append(ex.Files, *ef)
			delete(files, f.Path)
		}
	}
	ex.UnattestedLines = max(ex.Added-ex.AgentLines-ex.HumanLines, 0)
	return ex, nil
}

func (s *ExplainSession) addStep(turn int, turnID string, step int, tool string) {
	i := 0
	for i < len(s.Turns) && s.Turns[i].Turn != turn {
		i++
	}
	if i == len(s.Turns) {
		s.Turns = append(s.Turns, ExplainTurn{Turn: turn, TurnID: turnID, Steps: []ExplainStep{}})
	}
	t := &s.Turns[i]
	if step == 0 {
		return
	}
	for _, st := range t.Steps {
		if st.Step == step {
			return
		}
	}
	t.Steps = append(t.Steps, ExplainStep{Step: step, Tool: tool})
}

// agent is the agent a key names: its session's, or for an older
// writer's bare prompt key, its prompt's.
func (m GitAIMetadata) agent(key string) (GitAIAgent, bool) {
	if s, ok := m.Sessions[sessionPart(key)]; ok {
		return s.AgentID, true
	}
	p, ok := m.Prompts[key].(map[string]any)
	if !ok {
		return GitAIAgent{}, false
	}
	id, _ := p["agent_id"].(map[string]any)
	a := GitAIAgent{}
	a.Tool, _ = id["tool"].(string)
	a.ID, _ = id["id"].(string)
	a.Model, _ = id["model"].(string)
	return a, a.Tool != ""
}

// sessionPart is the session key of a step key "s_…::t_…".
func sessionPart(key string) string {
	for i := 0; i+1 < len(key); i++ {
		if key[i] == ':' && key[i+1] == ':' {
			return key[:i]
		}
	}
	return key
}

// traceRanges reads the ranges rewind-lsp keeps in an Agent Trace record's
// metadata; nil when the record is another writer's.
func traceRanges(data []byte) ([]traceRange, error) {
	var t struct {
		Version  string `json:"version"`
		Metadata map[string]struct {
			Ranges []traceRange `json:"ranges"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, err
	}
	if t.Version == "" {
		return nil, fmt.Errorf("not an Agent Trace record")
	}
	ext, ok := t.Metadata[TraceExtension]
	if !ok {
		return nil, nil
	}
	if ext.Ranges == nil {
		return []traceRange{}, nil
	}
	return ext.Ranges, nil
}

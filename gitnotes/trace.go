package gitnotes

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// TraceVersion is the Agent Trace version of the records written here.
const TraceVersion = "0.1.0"

// TraceExtension is the key under the record's metadata that holds what
// the Agent Trace schema has no field for.
const TraceExtension = "dev.rewind-lsp"

// Trace is an Agent Trace record (agent-trace.dev v0.1.0): only the
// schema's fields.
type Trace struct {
	Version   string         `json:"version"`
	ID        string         `json:"id"`
	Timestamp string         `json:"timestamp"`
	VCS       TraceVCS       `json:"vcs"`
	Tool      TraceTool      `json:"tool"`
	Files     []TraceFile    `json:"files"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// TraceVCS names the commit the record is about.
type TraceVCS struct {
	Type     string `json:"type"`
	Revision string `json:"revision"`
}

// TraceTool names the tool that wrote the record.
type TraceTool struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// TraceFile is one file's conversations.
type TraceFile struct {
	Path          string              `json:"path"`
	Conversations []TraceConversation `json:"conversations"`
}

// TraceConversation is one contributor's lines of a file: one per agent
// session.
type TraceConversation struct {
	Contributor TraceContributor `json:"contributor"`
	Ranges      []TraceRange     `json:"ranges"`
}

// TraceContributor is who wrote a conversation's lines.
type TraceContributor struct {
	Type    string `json:"type"`
	ModelID string `json:"model_id,omitempty"`
}

// TraceRange is a run of lines, 1-based inclusive.
type TraceRange struct {
	StartLine   int    `json:"start_line"`
	EndLine     int    `json:"end_line"`
	ContentHash string `json:"content_hash,omitempty"`
}

// traceRange is a range as the record's metadata["dev.rewind-lsp"] names
// its turn and step.
type traceRange struct {
	Path       string `json:"path"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	Agent      string `json:"agent"`
	Session    string `json:"session,omitempty"`
	Turn       int    `json:"turn"`
	TurnID     string `json:"turnId"`
	Step       int    `json:"step,omitempty"`
	StepID     string `json:"stepId,omitempty"`
	StepTool   string `json:"tool,omitempty"`
	StepDetail string `json:"detail,omitempty"`
}

// TraceRecord is a's Agent Trace record, written by rewind-lsp version:
// per file one conversation per agent session, the turns and steps under
// metadata["dev.rewind-lsp"].ranges.
func TraceRecord(a *Attestation, version string) *Trace {
	t := &Trace{Version: TraceVersion, ID: uuid.NewString(), Timestamp: a.Time.UTC().Format(time.RFC3339),
		VCS: TraceVCS{Type: "git", Revision: a.Commit}, Tool: TraceTool{Name: "rewind-lsp", Version: version}, Files: []TraceFile{}}
	var ext []traceRange
	for _, f := range a.Files {
		if len(f.Ranges) == 0 {
			continue
		}
		tf := TraceFile{Path: f.Path}
		at := map[string]int{}
		for _, r := range f.Ranges {
			k := r.Author.SessionKey()
			i, ok := at[k]
			if !ok {
				i = len(tf.Conversations)
				at[k] = i
				c := TraceContributor{Type: "ai"}
				if r.Author.Model != "" && r.Author.Model != "unknown" {
					c.ModelID = r.Author.Model
				}
				tf.Conversations = append(tf.Conversations, TraceConversation{Contributor: c})
			}
			tf.Conversations[i].Ranges = append(tf.Conversations[i].Ranges, TraceRange{StartLine: r.Start, EndLine: r.End, ContentHash: r.ContentHash})
			au := r.Author
			ext = append(ext, traceRange{Path: f.Path, StartLine: r.Start, EndLine: r.End, Agent: au.Agent, Session: au.Session,
				Turn: au.Turn, TurnID: string(au.TurnID), Step: au.Step, StepID: string(au.StepID), StepTool: au.StepTool, StepDetail: au.StepDetail})
		}
		t.Files = append(t.Files, tf)
	}
	if len(ext) > 0 {
		t.Metadata = map[string]any{TraceExtension: map[string]any{"ranges": ext}}
	}
	return t
}

// Marshal is the record as indented JSON.
func (t *Trace) Marshal() []byte {
	data, _ := json.MarshalIndent(t, "", "  ")
	return append(data, '\n')
}

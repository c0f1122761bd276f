package gitnotes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/rewind-lsp/rewind-lsp/filehistory"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// BlameFunc tells who wrote the lines of content, the committed content
// of path (as git names it, from the top of the work tree): the journal's
// blame of that content (workspace.Blame). Lines it leaves out are
// unattested.
type BlameFunc func(path string, content []byte) ([]filehistory.Range, error)

// Attestation is what one commit's notes say: which of the lines the
// commit added or changed which agent step wrote.
type Attestation struct {
	// Commit is the commit's full object name.
	Commit string
	// Parent is its first parent ("" for a root commit).
	Parent string
	// Merge is set for a commit of more than one parent, which is not
	// attested yet (it would attest only its conflict resolution): it has
	// no files and gets no notes.
	Merge bool
	// Time is when the commit was attested.
	Time time.Time
	// Files are the files with added lines, in the order git lists them.
	Files []File
}

// File is one file of a commit: how many lines the commit added or changed
// in it and the runs of them an agent wrote.
type File struct {
	// Path is the file's path in the commit, from the top of the work tree.
	Path string
	// Added counts the lines the commit added or changed.
	Added int
	// Ranges are the attested runs of those lines, in order; the other
	// added lines are unattested.
	Ranges []Range
}

// Range is a run of a commit's added lines one agent step wrote.
type Range struct {
	// Start and End are 1-based inclusive lines of the committed file, as
	// git counts them.
	Start, End int
	// ContentHash is "sha256:" and the hex SHA-256 of the run's lines as
	// committed.
	ContentHash string
	Author      Author
}

// Author is who wrote a run of lines: an agent's step.
type Author struct {
	// Agent is rewind-lsp's name of the agent ("claude-code"); Tool is the
	// name Git AI gives it ("claude").
	Agent, Tool string
	// Session is the agent's session id ("" when the turn had none).
	Session string
	// Model is the model as the agent's records name it, "unknown" where
	// they do not.
	Model string
	// Turn is the turn's number and TurnID its start entry.
	Turn   int
	TurnID journal.EntryID
	// Prompt is the turn's prompt (kept local unless asked for).
	Prompt string
	// Step is the number of the step (tool call) that wrote the lines, 0
	// for a change of the turn between its tool calls; StepID its tool
	// entry, StepTool the tool and StepDetail what it was about.
	Step       int
	StepID     journal.EntryID
	StepTool   string
	StepDetail string
}

// SessionKey is the Git AI key of the author's session: "s_" and the first
// 14 hex digits of the SHA-256 of "<tool>:<session id>", as Git AI
// computes it.
func (a Author) SessionKey() string { return "s_" + hash14(a.Tool+":"+a.Session) }

// StepKey is the Git AI key of the author's step: the session key, "::t_"
// and 14 hex digits naming the step (or the turn, for a change between its
// steps).
func (a Author) StepKey() string {
	id := "step:" + string(a.StepID)
	if a.StepID == "" {
		id = "turn:" + string(a.TurnID)
	}
	return a.SessionKey() + "::t_" + hash14(id)
}

func hash14(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:14]
}

// Options are what Attest needs beyond the repository.
type Options struct {
	// Blame is the journal's blame; nil attests nothing.
	Blame BlameFunc
	// Touched, when set, tells whether the journal knows of any turn that
	// wrote path: the other files are neither read nor blamed (a commit of
	// thousands of files no agent wrote costs no more than its diff).
	Touched func(path string) bool
	// Tool maps rewind-lsp's agent names to Git AI's (agents.GitAITool);
	// nil keeps them.
	Tool func(agent string) string
	// Now is the attestation's time (zero: time.Now).
	Now time.Time
}

// Attest computes commit's attestation: the lines it added or changed
// against its first parent (the empty tree for a root commit), each run of
// them the journal says an agent step wrote with that step. Lines no turn
// wrote, and a line a person changed after the agent, are left out.
func Attest(ctx context.Context, r Repo, commit string, o Options) (*Attestation, error) {
	full, parents, err := r.commitParents(ctx, commit)
	if err != nil {
		return nil, err
	}
	a := &Attestation{Commit: full, Time: o.Now}
	if a.Time.IsZero() {
		a.Time = time.Now()
	}
	if len(parents) > 0 {
		a.Parent = parents[0]
	}
	if len(parents) > 1 {
		a.Merge = true
		return a, nil
	}
	chs, err := r.changes(ctx, full, parents)
	if err != nil {
		return nil, err
	}
	var ids []string
	read := make([]int, len(chs)) // index in ids + 1; 0: not read
	for i, c := range chs {
		if o.Blame != nil && (o.Touched == nil || o.Touched(c.path)) {
			ids = append(ids, c.blob)
			read[i] = len(ids)
		}
	}
	contents, err := r.blobs(ctx, ids)
	if err != nil {
		return nil, err
	}
	for i, c := range chs {
		f := File{Path: c.path, Added: len(c.added)}
		if read[i] > 0 {
			content := contents[read[i]-1]
			rs, err := o.Blame(c.path, content)
			if err != nil {
				return nil, err
			}
			f.Ranges = attestRanges(c.added, rs, content, o.Tool)
		}
		a.Files = append(a.Files, f)
	}
	return a, nil
}

// attestRanges intersects the added lines (1-based, ascending) with the
// blame's runs (0-based, end exclusive) into runs of consecutive added
// lines of one author.
func attestRanges(added []int, blame []filehistory.Range, content []byte, tool func(string) string) []Range {
	lines := splitLines(content)
	var out []Range
	bi := 0
	for _, l := range added {
		for bi < len(blame) && blame[bi].EndLine <= l-1 {
			bi++
		}
		if bi >= len(blame) {
			break
		}
		b := blame[bi]
		if l-1 < b.StartLine || b.Turn == nil {
			continue
		}
		au := authorOf(b, tool)
		if n := len(out); n > 0 && out[n-1].End == l-1 && out[n-1].Author == au {
			out[n-1].End = l
			continue
		}
		out = append(out, Range{Start: l, End: l, Author: au})
	}
	for i := range out {
		h := sha256.New()
		for l := out[i].Start; l <= out[i].End && l <= len(lines); l++ {
			h.Write(lines[l-1])
		}
		out[i].ContentHash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	return out
}

// splitLines splits content into lines as git counts them, each with its
// "\n".
func splitLines(content []byte) [][]byte {
	var out [][]byte
	for len(content) > 0 {
		i := 0
		for i < len(content) && content[i] != '\n' {
			i++
		}
		if i < len(content) {
			i++
		}
		out = append(out, content[:i])
		content = content[i:]
	}
	return out
}

func authorOf(b filehistory.Range, tool func(string) string) Author {
	t := b.Turn
	a := Author{Agent: t.Start.Agent, Session: t.Start.Session, Model: "unknown", Turn: t.Number, TurnID: t.Start.ID, Prompt: t.Start.Prompt}
	a.Tool = a.Agent
	if tool != nil {
		a.Tool = tool(a.Agent)
	}
	if a.Tool == "" {
		a.Tool = "unknown"
	}
	if e := b.Step; e != nil {
		a.Step, a.StepID, a.StepTool, a.StepDetail = e.Step, e.ID, e.Tool, e.Detail
	}
	return a
}

package gitnotes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// GitAISchema is the schema version of the Git AI authorship logs written
// and read here.
const GitAISchema = "authorship/3.0.0"

// GitAINote is a Git AI authorship log: per file, per author key, the
// attested lines of the committed file; then its metadata.
type GitAINote struct {
	Files    []GitAIFile
	Metadata GitAIMetadata
}

// GitAIFile is one file's attestations, in the note's order.
type GitAIFile struct {
	Path    string
	Entries []GitAIEntry
}

// GitAIEntry is one author key's lines of a file.
type GitAIEntry struct {
	// Key is "s_<14 hex>::t_<14 hex>" for an agent's step, "h_<14 hex>"
	// for a person's lines (or an older writer's bare prompt hash).
	Key string
	// Ranges are 1-based inclusive runs of lines.
	Ranges [][2]int
}

// GitAIMetadata is the JSON after the note's "---" line.
type GitAIMetadata struct {
	SchemaVersion string                  `json:"schema_version"`
	GitAIVersion  string                  `json:"git_ai_version,omitempty"`
	BaseCommitSHA string                  `json:"base_commit_sha"`
	Prompts       map[string]any          `json:"prompts"`
	Sessions      map[string]GitAISession `json:"sessions"`
	Humans        map[string]GitAIHuman   `json:"humans"`
}

// GitAISession names an agent session.
type GitAISession struct {
	AgentID GitAIAgent `json:"agent_id"`
}

// GitAIAgent is who a session was: Git AI's tool name, the session's id
// and the model.
type GitAIAgent struct {
	Tool  string `json:"tool"`
	ID    string `json:"id"`
	Model string `json:"model"`
}

// GitAIHuman names a person by their git identity.
type GitAIHuman struct {
	Author string `json:"author"`
}

// GitAI is a's Git AI note (prompts are not written).
func GitAI(a *Attestation) *GitAINote {
	n := &GitAINote{Metadata: GitAIMetadata{SchemaVersion: GitAISchema, BaseCommitSHA: a.Commit,
		Prompts: map[string]any{}, Sessions: map[string]GitAISession{}, Humans: map[string]GitAIHuman{}}}
	for _, f := range a.Files {
		if len(f.Ranges) == 0 {
			continue
		}
		gf := GitAIFile{Path: f.Path}
		at := map[string]int{}
		for _, r := range f.Ranges {
			k := r.Author.StepKey()
			i, ok := at[k]
			if !ok {
				i = len(gf.Entries)
				at[k] = i
				gf.Entries = append(gf.Entries, GitAIEntry{Key: k})
			}
			gf.Entries[i].Ranges = append(gf.Entries[i].Ranges, [2]int{r.Start, r.End})
			n.Metadata.Sessions[r.Author.SessionKey()] = GitAISession{AgentID: GitAIAgent{Tool: r.Author.Tool, ID: r.Author.Session, Model: r.Author.Model}}
		}
		n.Files = append(n.Files, gf)
	}
	return n
}

// Marshal writes the note in the authorship/3.0.0 text form: each path at
// column 0 (in double quotes, JSON-escaped, when it holds a space, a quote,
// a backslash or a control character), each key indented by two spaces
// with its ranges ("1-4,9"), a line "---", then the metadata as JSON.
func (n *GitAINote) Marshal() []byte {
	var b bytes.Buffer
	for _, f := range n.Files {
		b.WriteString(quotePath(f.Path))
		b.WriteByte('\n')
		for _, e := range f.Entries {
			b.WriteString("  ")
			b.WriteString(e.Key)
			b.WriteByte(' ')
			for i, r := range e.Ranges {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(r[0]))
				if r[1] != r[0] {
					b.WriteByte('-')
					b.WriteString(strconv.Itoa(r[1]))
				}
			}
			b.WriteByte('\n')
		}
	}
	b.WriteString("---\n")
	meta, _ := json.MarshalIndent(n.Metadata, "", "  ")
	b.Write(meta)
	b.WriteByte('\n')
	return b.Bytes()
}

func quotePath(p string) string {
	if strings.ContainsAny(p, " \"\\") || strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(p)
		return strings.TrimSuffix(b.String(), "\n")
	}
	return p
}

// ParseGitAI reads a Git AI authorship log (any writer's). A note that does
// not parse, or whose schema version is not authorship/3.x, is an error.
func ParseGitAI(data []byte) (*GitAINote, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	var attest, meta string
	if strings.HasPrefix(text, "---\n") {
		meta = text[4:]
	} else if i := strings.Index(text, "\n---\n"); i >= 0 {
		attest, meta = text[:i+1], text[i+5:]
	} else {
		return nil, fmt.Errorf("git-ai note: no --- line")
	}
	n := &GitAINote{}
	if err := json.Unmarshal([]byte(meta), &n.Metadata); err != nil {
		return nil, fmt.Errorf("git-ai note: metadata: %w", err)
	}
	if !strings.HasPrefix(n.Metadata.SchemaVersion, "authorship/3.") {
		return nil, fmt.Errorf("git-ai note: schema version %q is not authorship/3", n.Metadata.SchemaVersion)
	}
	for ln, line := range strings.Split(strings.TrimSuffix(attest, "\n"), "\n") {
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "  ") {
			p := line
			if strings.HasPrefix(p, `"`) {
				if err := json.Unmarshal([]byte(p), &p); err != nil {
					return nil, fmt.Errorf("git-ai note: line %d: bad quoted path", ln+1)
				}
			}
			n.Files = append(n.Files, GitAIFile{Path: p})
			continue
		}
		if len(n.Files) == 0 {
			return nil, fmt.Errorf("git-ai note: line %d: an entry before any path", ln+1)
		}
		key, spec, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			return nil, fmt.Errorf("git-ai note: line %d: no ranges", ln+1)
		}
		e := GitAIEntry{Key: key}
		for _, part := range strings.Split(strings.TrimSpace(spec), ",") {
			a, b, dash := strings.Cut(part, "-")
			s, err1 := strconv.Atoi(a)
			end, err2 := s, error(nil)
			if dash {
				end, err2 = strconv.Atoi(b)
			}
			if err1 != nil || err2 != nil || s < 1 || end < s {
				return nil, fmt.Errorf("git-ai note: line %d: bad range %q", ln+1, part)
			}
			e.Ranges = append(e.Ranges, [2]int{s, end})
		}
		f := &n.Files[len(n.Files)-1]
		f.Entries = append(f.Entries, e)
	}
	return n, nil
}

// Lines gives, for path, each attested line and its key.
func (n *GitAINote) Lines(path string) map[int]string {
	out := map[int]string{}
	for _, f := range n.Files {
		if f.Path != path {
			continue
		}
		for _, e := range f.Entries {
			for _, r := range e.Ranges {
				for l := r[0]; l <= r[1]; l++ {
					out[l] = e.Key
				}
			}
		}
	}
	return out
}

// Paths lists the note's files, sorted.
func (n *GitAINote) Paths() []string {
	var out []string
	for _, f := range n.Files {
		out = append(out, f.Path)
	}
	sort.Strings(out)
	return out
}

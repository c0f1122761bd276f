package pi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/hookfile"
	piext "github.com/rewind-lsp/rewind-lsp/extensions/pi"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// The names of pi and oh-my-pi on the command line and in the journal.
const (
	Name    = "pi"
	OmpName = "omp"
)

// Agent and ompAgent are pi and oh-my-pi.
var Agent, Omp agent.Agent = pi{}, pi{omp: true}

// pi is Mario Zechner's pi coding agent, and with omp set oh-my-pi, its
// fork (run by Bun), which loads the same extensions. Neither runs command
// hooks: rewind-lsp's extension (extensions/pi/index.ts), loaded into the
// agent, hands each event to `rewind-lsp hook pi|omp` as a Claude-Code-like
// payload: hook_event_name SessionStart (from session_start, and oh-my-pi's
// session_switch and session_branch; source its reason), UserPromptSubmit (before_agent_start, with prompt), PreToolUse
// and PostToolUse (tool_call and tool_result: tool_name, tool_input,
// tool_use_id, is_error), Stop (agent_end); each with session_id (the
// session header's id), transcript_path (the session file), cwd and leaf_id,
// the conversation's leaf entry at that moment (agent/testdata/pi).
//
// The session file is JSON Lines (~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl,
// ~/.omp/agent/sessions/-<cwd>/… for oh-my-pi): a header {"type":"session",
// "version":3,"id","timestamp","cwd","parentSession"?} — after a padded
// {"type":"title"} line in oh-my-pi — then a tree of entries {"type","id"
// (8 hex),"parentId",…}, appended only, never rewritten. On load the leaf
// is the last entry in file order. pi writes the file first when the first
// assistant message arrives: at the first prompt it does not exist yet.
//
// The fork point of a prompt is the leaf at before_agent_start: the
// prompt's entry will hang under it. A fork before turn N copies the file's
// lines through that entry (its ancestors all come before it), with a new
// header id and parentSession, so the copy's leaf is that entry; after a
// turn's end, through the leaf at agent_end.
//
// The extension sets REWIND_LSP_SESSION (agents.SessionFromEnv) at
// session_start: the agent's bash inherits the process's environment, so
// `rewind-lsp` run from it knows its session. oh-my-pi's bash also gets
// OMPCODE=1 and CLAUDECODE=1.
//
// Where the person takes the conversation back in the agent's own
// interface (pi's /tree and /fork, oh-my-pi's /branch and /tree), the
// extension hands over GoBack with path, the entries from the first to the
// one picked (type, role, toolCallId), and asks whether the files go back
// too to the recorded state rewind-lsp names (rewind.agentTarget).
//
// oh-my-pi's checkpoint and rewind tools (enabled by checkpoint.enabled in
// its config.yml) take its conversation back and touch no file (OwnTools):
// a successful call of checkpoint is a Checkpointed event, of rewind a
// Rewound one.
type pi struct{ omp bool }

func (p pi) Name() string {
	if p.omp {
		return OmpName
	}
	return Name
}

func (p pi) Title() string {
	if p.omp {
		return "oh-my-pi"
	}
	return "pi"
}

var piEvents = map[string]agent.EventKind{
	"SessionStart": agent.SessionStart, "UserPromptSubmit": agent.Prompt,
	"PreToolUse": agent.PreTool, "PostToolUse": agent.PostTool, "Stop": agent.Stop, "GoBack": agent.GoBack,
}

// piEntry is a session entry as the extension hands it over at GoBack
// (the path ctx.sessionManager.getBranch gives).
type piEntry struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	Role       string `json:"role"`
	ToolCallID string `json:"toolCallId"`
}

func (p pi) Parse(data []byte, event string) (*agent.Event, error) {
	ev, err := agent.ParseHook(data, event, piEvents)
	if err != nil {
		return nil, err
	}
	var extra struct {
		Leaf    string    `json:"leaf_id"`
		IsError bool      `json:"is_error"`
		Path    []piEntry `json:"path"`
	}
	json.Unmarshal(data, &extra)
	if extra.Leaf != "" {
		ev.Leaf = &extra.Leaf
	}
	for _, e := range extra.Path {
		// Going back to a user message (or a custom message, such as a
		// notice) pi and oh-my-pi go on from its parent, the text back
		// in the editor; to any other entry, from the entry itself.
		prompt := e.Type == "message" && e.Role == "user" || e.Type == "custom_message"
		tool := ""
		if e.Type == "message" && e.Role == "toolResult" {
			tool = e.ToolCallID
		}
		ev.Path = append(ev.Path, agent.ConvEntry{ID: e.ID, Prompt: prompt, ToolUse: tool})
	}
	if p.omp && ev.Kind == agent.PostTool && !extra.IsError {
		// oh-my-pi's own checkpoint and rewind tools (OwnTools), once they
		// succeeded.
		var in struct {
			Goal   string `json:"goal"`
			Report string `json:"report"`
		}
		json.Unmarshal(ev.ToolInput, &in)
		switch {
		case ev.ToolName == "checkpoint":
			ev.Kind, ev.Report = agent.Checkpointed, strings.TrimSpace(in.Goal)
		case ev.ToolName == "rewind" && strings.TrimSpace(in.Report) != "":
			ev.Kind, ev.Report = agent.Rewound, strings.TrimSpace(in.Report)
		}
	}
	return ev, nil
}

// Rewound (OwnTools): oh-my-pi keeps the report its rewind tool's result
// details hold (in the branch summary and the hidden rewind-report message
// its model reads), so the extension puts this report, with what
// rewind-lsp did, in place of the agent's.
func (pi) Rewound(report, done string) []byte {
	return agent.MarshalLine(map[string]string{"report": report + "\n\n" + done})
}

// piReadOnly are the tools of pi and oh-my-pi that write no file (the
// extension hands none of their calls over).
var piReadOnly = map[string]bool{"read": true, "grep": true, "find": true, "ls": true, "glob": true, "ast_grep": true,
	"lsp": true, "ask": true, "todo": true, "todo_write": true, "web_search": true, "fetch": true, "think": true, "yield": true,
	"goal": true, "recall": true, "reflect": true, "context_notes": true, "new_context": true, "checkpoint": true, "rewind": true}

// Writes: write and edit name path (oh-my-pi's edit in its patch and
// hashline forms names its files in an input text instead: the state is
// captured around it); every other tool but the read-only ones may write
// anything — bash, oh-my-pi's eval and task (subagents), other extensions'
// tools — and is captured around.
func (pi) Writes(ev *agent.Event) ([]string, bool, bool) {
	switch {
	case ev.ToolName == "write" || ev.ToolName == "edit":
		if p := ev.InputPath("path"); p != "" {
			return []string{p}, false, true
		}
		return nil, true, true
	case piReadOnly[ev.ToolName]:
		return nil, false, false
	}
	return nil, true, true
}

// Notice: the message before_agent_start returns, which the agent keeps in
// the session as a hidden custom message and sends the model after the
// prompt.
func (pi) Notice(text string) []byte {
	type message struct {
		CustomType string `json:"customType"`
		Content    string `json:"content"`
		Display    bool   `json:"display"`
	}
	return agent.MarshalLine(struct {
		Message message `json:"message"`
	}{message{CustomType: "rewind-lsp", Content: text}})
}

// Position: the leaf entry (the fork point), with the session file's
// length then (0 while it does not exist).
func (pi) Position(ev *agent.Event) (string, journal.ForkPoint, error) {
	if ev.Transcript == "" || ev.Leaf == nil {
		return "", journal.ForkPoint{}, nil // nothing to record
	}
	size, err := completeLength(ev.Transcript)
	if err != nil {
		return "", journal.ForkPoint{}, err
	}
	return ev.Transcript, journal.ForkPoint{ForkBytes: size, ForkUUID: *ev.Leaf}, nil
}

// completeLength is the length of the file at path up to its last complete
// line (0 when it does not exist).
func completeLength(path string) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("session file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("session file: %w", err)
	}
	end, err := conv.LastNewline(f, fi.Size())
	if err != nil {
		return 0, fmt.Errorf("session file %s: %w", path, err)
	}
	return end, nil
}

// Fork: a copy of the session file through the fork point's entry, with a
// new header id and parentSession naming the original, in the same folder
// and named as the agent names a session started now; `pi --session <id>`
// (`omp --resume <id>`) continues it.
func (p pi) Fork(r agent.ForkRequest) (*agent.Forked, error) {
	leaf := r.Point.ForkUUID
	if leaf == "" {
		if r.End {
			return nil, agent.NoEnd
		}
		return nil, agent.Refusef("the prompt recorded no position in %s's conversation", p.Title())
	}
	f, fi, err := conv.OpenAt(r.Transcript, journal.ForkPoint{ForkBytes: r.Point.ForkBytes})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines, err := piLinesThrough(f, leaf)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.Transcript, err)
	}
	if lines == nil {
		return nil, agent.Refusef("the session file %s no longer holds entry %s, where the conversation stood", r.Transcript, leaf)
	}
	header := -1
	conversation := false
	for i, l := range lines {
		switch conv.TopString(bytes.TrimSuffix(l, []byte("\n")), "type") {
		case "session":
			if header < 0 {
				header = i
			}
		case "message":
			conversation = true
		}
	}
	if header < 0 {
		return nil, agent.Refusef("the session file %s has no session header", r.Transcript)
	}
	if !conversation {
		return nil, agent.FirstTurn
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	h, err := hookfile.DecodeObject(bytes.TrimSuffix(lines[header], []byte("\n")))
	if err != nil {
		return nil, agent.Refusef("the session file %s has a header rewind-lsp cannot read: %v", r.Transcript, err)
	}
	stamp := now.Format("2006-01-02T15:04:05.000Z")
	for _, m := range []struct{ key, val string }{{"id", id.String()}, {"timestamp", stamp}, {"parentSession", r.Transcript}} {
		h = hookfile.Set(h, m.key, json.RawMessage(conv.Quote(m.val)))
	}
	lines[header] = append(hookfile.EncodeObject(h), '\n')
	dir := filepath.Dir(r.Transcript)
	name := strings.NewReplacer(":", "-", ".", "-").Replace(stamp) + "_" + id.String() + ".jsonl"
	err = conv.WriteNew(dir, name, fi.Mode().Perm(), func(tmp *os.File) error {
		_, err := tmp.Write(bytes.Join(lines, nil))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write forked session: %w", err)
	}
	resume := "pi --session " + id.String()
	if p.omp {
		resume = "omp --resume " + id.String()
	}
	return &agent.Forked{Session: id.String(), Transcript: filepath.Join(dir, name), Resume: resume}, nil
}

// piLinesThrough reads the lines of a session file up to and including the
// entry whose id is leaf, each with its newline; nil when no entry has it.
func piLinesThrough(r io.Reader, leaf string) ([][]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var lines [][]byte
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			lines = append(lines, line)
			if conv.TopString(line[:len(line)-1], "id") == leaf && conv.TopString(line[:len(line)-1], "type") != "session" {
				return lines, nil
			}
		}
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// home is the agent's folder: pi's ~/.pi/agent ($PI_CODING_AGENT_DIR),
// oh-my-pi's ~/.omp/agent.
func (p pi) home() (string, error) {
	if p.omp {
		return agent.HomeDir("", filepath.Join(".omp", "agent"))
	}
	return agent.HomeDir("PI_CODING_AGENT_DIR", filepath.Join(".pi", "agent"))
}

// Setup writes rewind-lsp's extension into the agent's global extensions
// folder (<agent home>/extensions/rewind-lsp/index.ts), with the binary's
// absolute path and the agent's name in it; the agent loads it at its next
// start. An older install of the same file is brought up to date; a file
// there that is not rewind-lsp's extension is refused, and nothing else in
// the folder is touched. It always installs for the user: a project's
// extension would name this machine's binary in the project.
func (p pi) Setup(o agent.SetupOptions) (*agent.SetupResult, error) {
	home, err := p.home()
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	path := filepath.Join(home, "extensions", "rewind-lsp", "index.ts")
	bin := o.Binary
	if bin == "" {
		bin = "rewind-lsp"
	}
	want, err := Extension(bin, p.Name())
	if err != nil {
		return nil, err
	}
	old, err := os.ReadFile(path)
	added := []string{"extension"}
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	case bytes.Equal(old, want):
		return &agent.SetupResult{File: path}, nil
	case !bytes.HasPrefix(old, []byte(piExtensionMark)):
		return nil, fmt.Errorf("%s is not rewind-lsp's extension; move it, rewind-lsp changed nothing", path)
	default:
		added = []string{"extension (updated)"}
	}
	if err := hookfile.WriteSettings(path, want, 0o644); err != nil {
		return nil, err
	}
	return &agent.SetupResult{File: path, Added: added}, nil
}

// piExtensionMark begins rewind-lsp's extension: a file that begins so is
// rewind-lsp's own, which setup may replace.
const piExtensionMark = "// rewind-lsp's extension for pi and oh-my-pi."

// Extension is the extension as setup installs it for agent ("pi" or
// "omp"): running the rewind-lsp binary at bin.
func Extension(bin, agent string) ([]byte, error) {
	src := piext.Source
	binLine, agentLine := `const REWIND_LSP = "rewind-lsp";`, `const AGENT: string = "pi";`
	if !strings.HasPrefix(src, piExtensionMark) || strings.Count(src, binLine) != 1 || strings.Count(src, agentLine) != 1 {
		return nil, errors.New("rewind-lsp's pi extension lacks the lines setup writes (a build from a damaged source)")
	}
	src = strings.Replace(src, binLine, "const REWIND_LSP = "+conv.Quote(bin)+";", 1)
	src = strings.Replace(src, agentLine, "const AGENT: string = "+conv.Quote(agent)+";", 1)
	return []byte(src), nil
}

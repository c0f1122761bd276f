package gemini

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/hookfile"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Name is Gemini CLI's name on the command line and in the journal.
const Name = "gemini"

// Agent is Gemini CLI.
var Agent agent.Agent = gemini{}

// gemini is Google's Gemini CLI. Its hook payloads (agent/testdata/gemini)
// carry session_id, transcript_path, cwd and hook_event_name; BeforeAgent
// the prompt; BeforeTool/AfterTool tool_name and tool_input — and no turn
// or tool-call id, so the two are paired in order. Its session file is
// ~/.gemini/tmp/<project>/chats/session-<UTC minute>-<id8>.jsonl: a header
// line ({sessionId, projectHash, startTime, lastUpdated, kind}), message
// records ({id, type: user|gemini, content…}; a repeated id replaces the
// record), and {"$set": …} lines; a resume appends another header and
// {"$set":{"sessionId"}}.
//
// A resume in a later minute starts a second, header-only file with the
// same id, and SessionStart's transcript_path names it; BeforeAgent's
// names the file that holds the conversation, so only that one is used.
// Gemini CLI never renames a session's .jsonl file, but it deletes the
// session: at its next start in another session, its cleanup takes that
// header-only file for a broken session and removes every file of the
// session with it (it also removes sessions older than its retention
// period, 30 days by default). A fork of such a session is refused,
// saying so.
//
// Gemini CLI 0.61 names its session to nothing it starts: its shell's
// commands get GEMINI_CLI=1 and no session id, its MCP servers the same,
// and its tools/call _meta holds only a progressToken. A rewind it runs
// during its turn is therefore taken for anyone's, and ends that turn.
type gemini struct{}

func (gemini) Name() string  { return Name }
func (gemini) Title() string { return "Gemini CLI" }

var geminiEvents = map[string]agent.EventKind{
	"SessionStart": agent.SessionStart, "BeforeAgent": agent.Prompt,
	"BeforeTool": agent.PreTool, "AfterTool": agent.PostTool, "AfterAgent": agent.Stop,
}

func (gemini) Parse(data []byte, event string) (*agent.Event, error) {
	ev, err := agent.ParseHook(data, event, geminiEvents)
	if err == nil && ev.Kind == agent.SessionStart {
		ev.Transcript = "" // perhaps the header-only file of a resume
	}
	return ev, err
}

// Writes: write_file and replace name file_path; run_shell_command and
// the tools of MCP servers (mcp_<server>_<tool>) may write anything.
func (gemini) Writes(ev *agent.Event) ([]string, bool, bool) {
	switch ev.ToolName {
	case "run_shell_command":
		return nil, true, true
	case "write_file", "replace":
		return agent.FileTool(ev, "file_path")
	}
	return agent.MCPTool(ev, "mcp_")
}

// Notice: BeforeAgent's additionalContext, which Gemini CLI appends to the
// prompt (in a <hook_context> part) and keeps on resume.
func (gemini) Notice(text string) []byte { return agent.ContextJSON("BeforeAgent", text) }

// Position: the session file's length and the id of its last record.
func (gemini) Position(ev *agent.Event) (string, journal.ForkPoint, error) {
	if ev.Transcript == "" {
		return "", journal.ForkPoint{}, nil // nothing to record
	}
	p, err := conv.ReadPoint(ev.Transcript, geminiID)
	return ev.Transcript, p, err
}

// geminiID is the id of a message record line ("" for other lines).
func geminiID(line []byte) string { return conv.TopString(bytes.TrimSuffix(line, []byte("\n")), "id") }

// Fork: a copy of the session file cut at the position, every sessionId
// set to a new id, beside the original and named as Gemini CLI names a
// session started now (it deletes sessions by the date in their name);
// `gemini --resume <id>` continues it.
func (gemini) Fork(r agent.ForkRequest) (*agent.Forked, error) {
	if r.End && r.Point.ForkBytes == 0 {
		return nil, agent.NoEnd
	}
	if _, err := os.Lstat(r.Transcript); errors.Is(err, fs.ErrNotExist) && r.Session != "" &&
		!geminiHolds(filepath.Dir(r.Transcript), r.Session) {
		return nil, agent.Refusef("Gemini CLI no longer has session %s: its file %s is gone, and no other file in that folder holds the session "+
			"(Gemini CLI deletes a session's files itself: at the start of another session once this one was resumed in a later minute "+
			"than the one its file is named after, and when the session is older than its retention period)", r.Session, r.Transcript)
	}
	f, fi, err := conv.OpenAt(r.Transcript, r.Point)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, r.Point.ForkBytes)
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, fmt.Errorf("read %s: %w", r.Transcript, err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	last, old := "", ""
	for _, l := range lines {
		if id := geminiID(l); id != "" {
			last = id
		}
		if old == "" {
			old = conv.TopString(bytes.TrimSuffix(l, []byte("\n")), "sessionId")
		}
	}
	if last != r.Point.ForkUUID {
		return nil, agent.Refusef("the session file %s changed under the fork point: its last record before byte %d is %q, not %q as recorded",
			r.Transcript, r.Point.ForkBytes, last, r.Point.ForkUUID)
	}
	if old == "" {
		return nil, agent.Refusef("the session file %s names no session", r.Transcript)
	}
	if !r.End {
		lines = lines[:geminiPromptTail(lines, r.Prompt)]
	}
	kept := bytes.Join(lines, nil)
	// Compact JSON: the token is a member, never inside a string, where
	// its quotes would be escaped.
	if !bytes.Contains(kept, []byte(`"type":"gemini"`)) {
		return nil, agent.FirstTurn
	}
	id := uuid.NewString()
	kept = bytes.ReplaceAll(kept, []byte(`"sessionId":"`+old+`"`), []byte(`"sessionId":"`+id+`"`))
	dir := filepath.Dir(r.Transcript)
	name := "session-" + strings.ReplaceAll(time.Now().UTC().Format("2006-01-02T15:04"), ":", "-") + "-" + id[:8] + ".jsonl"
	err = conv.WriteNew(dir, name, fi.Mode().Perm(), func(tmp *os.File) error {
		_, err := tmp.Write(kept)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write forked session: %w", err)
	}
	return &agent.Forked{Session: id, Transcript: filepath.Join(dir, name), Resume: "gemini --resume " + id}, nil
}

// geminiHolds reports whether a session file in dir (a chats folder) other
// than a recorded one may still hold session id: one named as Gemini CLI
// names the session's files (session-<minute>-<first 8 characters of
// id>.jsonl) whose header names id. When dir cannot be read it answers
// true: nothing is known to be gone.
func geminiHolds(dir, id string) bool {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil || len(id) < 8 {
		return true
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, "session-") || !strings.HasSuffix(name, "-"+id[:8]+".jsonl") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return true
		}
		line, _ := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
		f.Close()
		if conv.TopString(bytes.TrimSuffix(line, []byte("\n")), "sessionId") == id {
			return true
		}
	}
	return false
}

// geminiPromptTail is how many of lines to keep so that the turn's own
// prompt, should the file already hold it, is left out: the index of the
// last message record when it is a user record with prompt's text, else
// all of them.
func geminiPromptTail(lines [][]byte, prompt string) int {
	p := strings.TrimSpace(prompt)
	for i := len(lines) - 1; i >= 0 && p != ""; i-- {
		if geminiID(lines[i]) == "" {
			continue
		}
		if conv.TopString(bytes.TrimSuffix(lines[i], []byte("\n")), "type") == "user" && bytes.Contains(lines[i], []byte(`"text":`+conv.Quote(p))) {
			return i
		}
		break
	}
	return len(lines)
}

// geminiHome is the folder holding Gemini CLI's .gemini: $GEMINI_CLI_HOME,
// else the user's home.
func geminiHome() (string, error) { return agent.HomeDir("GEMINI_CLI_HOME", "") }

// Setup merges the hooks into the user's settings.json: Gemini CLI runs a
// project's hooks only in a folder it trusts. Its hook timeouts are in
// milliseconds.
func (gemini) Setup(o agent.SetupOptions) (*agent.SetupResult, error) {
	home, err := geminiHome()
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	path := filepath.Join(home, ".gemini", "settings.json")
	cmd := hookfile.Command(o, Name, "")
	added, err := hookfile.Merge(path, Name, []hookfile.Spec{
		{Event: "SessionStart", Command: cmd, Timeout: 10_000},
		{Event: "BeforeAgent", Command: cmd, Timeout: 10_000},
		{Event: "BeforeTool", Matcher: "write_file|replace|run_shell_command|mcp_.*", Command: cmd, Timeout: 10_000},
		{Event: "AfterTool", Matcher: "write_file|replace|run_shell_command|mcp_.*", Command: cmd, Timeout: 10_000},
		{Event: "AfterAgent", Command: cmd, Timeout: 10_000},
	})
	if err != nil {
		return nil, err
	}
	return &agent.SetupResult{File: path, Added: added}, nil
}

// ACPName: Gemini CLI runs as an ACP agent with --acp.
func (gemini) ACPName() string { return "gemini-cli" }

// ACPTranscript: ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl.
func (gemini) ACPTranscript(id string) string {
	return conv.ACPSessionFile(id, func(home, id string) string {
		return filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*-"+id[:8]+".jsonl")
	})
}

package agent

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
	"github.com/rewind-lsp/rewind-lsp/journal"
)

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

func (gemini) Name() string  { return Gemini }
func (gemini) Title() string { return "Gemini CLI" }

var geminiEvents = map[string]EventKind{
	"SessionStart": SessionStart, "BeforeAgent": Prompt,
	"BeforeTool": PreTool, "AfterTool": PostTool, "AfterAgent": Stop,
}

func (gemini) Parse(data []byte, event string) (*Event, error) {
	ev, err := parse(data, event, geminiEvents)
	if err == nil && ev.Kind == SessionStart {
		ev.Transcript = "" // perhaps the header-only file of a resume
	}
	return ev, err
}

// Writes: write_file and replace name file_path; run_shell_command and
// the tools of MCP servers (mcp_<server>_<tool>) may write anything.
func (gemini) Writes(ev *Event) ([]string, bool, bool) {
	switch ev.ToolName {
	case "run_shell_command":
		return nil, true, true
	case "write_file", "replace":
		return fileTool(ev, "file_path")
	}
	return mcpTool(ev, "mcp_")
}

// Notice: BeforeAgent's additionalContext, which Gemini CLI appends to the
// prompt (in a <hook_context> part) and keeps on resume.
func (gemini) Notice(text string) []byte { return contextJSON("BeforeAgent", text) }

// Position: the session file's length and the id of its last record.
func (gemini) Position(ev *Event) (string, journal.ForkPoint, error) {
	if ev.Transcript == "" {
		return "", journal.ForkPoint{}, nil // nothing to record
	}
	p, err := readPoint(ev.Transcript, geminiID)
	return ev.Transcript, p, err
}

// geminiID is the id of a message record line ("" for other lines).
func geminiID(line []byte) string { return topString(bytes.TrimSuffix(line, []byte("\n")), "id") }

// Fork: a copy of the session file cut at the position, every sessionId
// set to a new id, beside the original and named as Gemini CLI names a
// session started now (it deletes sessions by the date in their name);
// `gemini --resume <id>` continues it.
func (gemini) Fork(r ForkRequest) (*Forked, error) {
	if r.End && r.Point.ForkBytes == 0 {
		return nil, noEnd
	}
	if _, err := os.Lstat(r.Transcript); errors.Is(err, fs.ErrNotExist) && r.Session != "" &&
		!geminiHolds(filepath.Dir(r.Transcript), r.Session) {
		return nil, refusef("Gemini CLI no longer has session %s: its file %s is gone, and no other file in that folder holds the session "+
			"(Gemini CLI deletes a session's files itself: at the start of another session once this one was resumed in a later minute "+
			"than the one its file is named after, and when the session is older than its retention period)", r.Session, r.Transcript)
	}
	f, fi, err := openAt(r.Transcript, r.Point)
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
			old = topString(bytes.TrimSuffix(l, []byte("\n")), "sessionId")
		}
	}
	if last != r.Point.ForkUUID {
		return nil, refusef("the session file %s changed under the fork point: its last record before byte %d is %q, not %q as recorded",
			r.Transcript, r.Point.ForkBytes, last, r.Point.ForkUUID)
	}
	if old == "" {
		return nil, refusef("the session file %s names no session", r.Transcript)
	}
	if !r.End {
		lines = lines[:geminiPromptTail(lines, r.Prompt)]
	}
	kept := bytes.Join(lines, nil)
	// Compact JSON: the token is a member, never inside a string, where
	// its quotes would be escaped.
	if !bytes.Contains(kept, []byte(`"type":"gemini"`)) {
		return nil, firstTurn
	}
	id := uuid.NewString()
	kept = bytes.ReplaceAll(kept, []byte(`"sessionId":"`+old+`"`), []byte(`"sessionId":"`+id+`"`))
	dir := filepath.Dir(r.Transcript)
	name := "session-" + strings.ReplaceAll(time.Now().UTC().Format("2006-01-02T15:04"), ":", "-") + "-" + id[:8] + ".jsonl"
	err = writeNew(dir, name, fi.Mode().Perm(), func(tmp *os.File) error {
		_, err := tmp.Write(kept)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write forked session: %w", err)
	}
	return &Forked{Session: id, Transcript: filepath.Join(dir, name), Resume: "gemini --resume " + id}, nil
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
		if topString(bytes.TrimSuffix(line, []byte("\n")), "sessionId") == id {
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
		if topString(bytes.TrimSuffix(lines[i], []byte("\n")), "type") == "user" && bytes.Contains(lines[i], []byte(`"text":`+quote(p))) {
			return i
		}
		break
	}
	return len(lines)
}

// geminiHome is the folder holding Gemini CLI's .gemini: $GEMINI_CLI_HOME,
// else the user's home.
func geminiHome() (string, error) { return homeDir("GEMINI_CLI_HOME", "") }

// Setup merges the hooks into the user's settings.json: Gemini CLI runs a
// project's hooks only in a folder it trusts. Its hook timeouts are in
// milliseconds.
func (gemini) Setup(o SetupOptions) (*SetupResult, error) {
	home, err := geminiHome()
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	path := filepath.Join(home, ".gemini", "settings.json")
	cmd := hookCommand(o, Gemini, "")
	added, err := mergeHooks(path, Gemini, []hookSpec{
		{event: "SessionStart", command: cmd, timeout: 10_000},
		{event: "BeforeAgent", command: cmd, timeout: 10_000},
		{event: "BeforeTool", matcher: "write_file|replace|run_shell_command|mcp_.*", command: cmd, timeout: 10_000},
		{event: "AfterTool", matcher: "write_file|replace|run_shell_command|mcp_.*", command: cmd, timeout: 10_000},
		{event: "AfterAgent", command: cmd, timeout: 10_000},
	})
	if err != nil {
		return nil, err
	}
	return &SetupResult{File: path, Added: added}, nil
}

// ACPName: Gemini CLI runs as an ACP agent with --acp.
func (gemini) ACPName() string { return "gemini-cli" }

// ACPTranscript: ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl.
func (gemini) ACPTranscript(id string) string {
	return acpGlob(id, func(home, id string) string {
		return filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*-"+id[:8]+".jsonl")
	})
}

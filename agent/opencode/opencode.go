package opencode

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/hookfile"
	ocplugin "github.com/rewind-lsp/rewind-lsp/extensions/opencode"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// openCode is opencode, or Kilo, its fork (the same plugins, sessions,
// server and undo; its own names). Neither runs command hooks: the plugin
// rewind-lsp ships for them (extensions/opencode/rewind-lsp.js, installed
// by Setup) hands each event to `rewind-lsp hook opencode|kilo` as one
// JSON object — hook_event_name, session_id, cwd (the agent's folder);
// chat.message the prompt, its message_id and leaf_id, the id of the
// session's last message before it ("" for none); tool.execute.before and
// .after tool_name, tool_input and tool_use_id; session.idle leaf_id, the
// session's last message — and puts the notice its stdout carries into
// the prompt as a synthetic text part.
//
// A session lives in the agent's SQLite database, never written here; it
// is forked by the agent itself: `opencode serve` (`kilo serve`) started
// for the moment, POST /session/{id}/fork with the id of the first message
// to leave out (docs/ARCHITECTURE.md, "opencode and Kilo"). Message ids ascend
// with time, so the fork point, a message id, orders the turns too: a
// prompt whose leaf is not after an earlier turn's fork point continues
// from before that turn — the agent's own /undo (session.revert, which
// restores the files itself) dropped it (OwnRewindDropped).
//
// The agent names the session to its shell's commands through the plugin
// (shell.env sets REWIND_LSP_SESSION, agents.SessionFromEnv).
type openCode struct {
	name, title string
	bin         string // the command
	dir         string // the folder name of its configuration and data
	project     string // its project configuration folder
	env         string // the prefix of its environment variables
	db          string // its database's file name
}

// The names of opencode and Kilo on the command line and in the journal.
const (
	Name     = "opencode"
	KiloName = "kilo"
)

var (
	Agent = openCode{name: Name, title: "opencode", bin: "opencode", dir: "opencode", project: ".opencode", env: "OPENCODE", db: "opencode.db"}
	Kilo  = openCode{name: KiloName, title: "Kilo", bin: "kilo", dir: "kilo", project: ".kilo", env: "KILO", db: "kilo.db"}
)

func (a openCode) Name() string  { return a.name }
func (a openCode) Title() string { return a.title }

var openCodeEvents = map[string]agent.EventKind{
	"session.created": agent.SessionStart, "chat.message": agent.Prompt,
	"tool.execute.before": agent.PreTool, "tool.execute.after": agent.PostTool, "session.idle": agent.Stop,
}

func (a openCode) Parse(data []byte, event string) (*agent.Event, error) {
	ev, err := agent.ParseHook(data, event, openCodeEvents)
	if err != nil {
		return nil, err
	}
	var p struct {
		MessageID string  `json:"message_id"`
		Leaf      *string `json:"leaf_id"`
	}
	json.Unmarshal(data, &p)
	ev.PromptID, ev.Leaf = p.MessageID, p.Leaf
	return ev, nil
}

// Writes: write, edit and multiedit name filePath; patch and apply_patch
// carry a patch (patchText) naming its files; bash may write anything, and
// so may a tool that is not the agent's own (an MCP server's, a plugin's,
// named as its server or plugin chose). The agent's tools that write
// nothing are not relevant; task runs a subagent, whose own tool calls are
// reported in its own session.
func (openCode) Writes(ev *agent.Event) ([]string, bool, bool) {
	switch ev.ToolName {
	case "bash":
		return nil, true, true
	case "write", "edit", "multiedit":
		return agent.FileTool(ev, "filePath")
	case "patch", "apply_patch":
		var in struct {
			PatchText string `json:"patchText"`
			Patch     string `json:"patch"`
		}
		json.Unmarshal(ev.ToolInput, &in)
		var paths []string
		for _, p := range agent.PatchPaths(cmp.Or(in.PatchText, in.Patch)) {
			paths = append(paths, ev.Abs(p))
		}
		if len(paths) == 0 {
			return nil, true, true
		}
		return paths, false, true
	case "read", "glob", "grep", "list", "webfetch", "websearch", "codesearch", "todowrite", "todoread",
		"skill", "question", "lsp", "task", "invalid", "plan_enter", "plan_exit":
		return nil, false, false
	}
	return nil, true, true
}

// Notice: {"additionalContext": text}, which the plugin adds to the prompt
// as a synthetic text part (the model reads it with the prompt, and the
// session keeps it).
func (openCode) Notice(text string) []byte {
	return agent.MarshalLine(struct {
		AdditionalContext string `json:"additionalContext"`
	}{text})
}

// Position: the agent's database, and the leaf the plugin read: at a
// prompt the session's last message before it, at a turn's end its last
// message.
func (a openCode) Position(ev *agent.Event) (string, journal.ForkPoint, error) {
	if ev.Leaf == nil {
		return "", journal.ForkPoint{}, agent.Refusef("the %s plugin could not read the session's messages", a.title)
	}
	db, err := a.database()
	if err != nil {
		return "", journal.ForkPoint{}, err
	}
	return db, journal.ForkPoint{ForkUUID: *ev.Leaf}, nil
}

// database is the agent's SQLite database, as it finds it: $OPENCODE_DB
// (an absolute path, or a name in its data folder), else opencode.db in
// its data folder ($XDG_DATA_HOME/opencode, else ~/.local/share/opencode);
// Kilo's the same with KILO and kilo.
func (a openCode) database() (string, error) {
	data, err := xdgDir("XDG_DATA_HOME", filepath.Join(".local", "share"), a.dir)
	if err != nil {
		return "", err
	}
	switch db := os.Getenv(a.env + "_DB"); {
	case db == ":memory:":
		return "", fmt.Errorf("%s_DB is :memory:: %s keeps its sessions nowhere to fork them from", a.env, a.title)
	case filepath.IsAbs(db):
		return db, nil
	case db != "":
		return filepath.Join(data, db), nil
	}
	return filepath.Join(data, a.db), nil
}

// xdgDir is $env/name, else ~/fallback/name: where opencode and Kilo keep
// their files on every system (they follow the XDG folders everywhere).
func xdgDir(env, fallback, name string) (string, error) {
	if d := os.Getenv(env); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, name), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home folder: %w", err)
	}
	return filepath.Join(home, fallback, name), nil
}

// Fork: the agent forks the session itself, through a server of its own
// started on the recorded database: the messages through the fork point
// are copied into a new session (the first message after it, the turn's
// prompt or the next one, is the one the fork leaves out; none: all of
// them). The new session gets the original's permission rules, which a
// fork does not copy (`kilo run` denies the model's question tool, so
// that no question waits on a person; without them a non-interactive
// resume can wait on one). Kilo's own question about slow snapshots is
// not a rule's to stop (README, "opencode and Kilo").
// `opencode --session <id>` (`kilo --session <id>`) continues it.
func (a openCode) Fork(r agent.ForkRequest) (*agent.Forked, error) {
	if r.Point.ForkUUID == "" {
		if r.End {
			return nil, agent.NoEnd
		}
		return nil, agent.FirstTurn
	}
	if _, err := os.Stat(r.Transcript); errors.Is(err, fs.ErrNotExist) {
		return nil, agent.Refusef("%s's database %s is missing", a.title, r.Transcript)
	}
	var forked string
	err := a.withServer(r.Transcript, r.Dir, func(s *ocServer) error {
		var msgs []struct {
			Info struct {
				ID string `json:"id"`
			} `json:"info"`
		}
		if err := s.call("GET", "/session/"+r.Session+"/message", nil, &msgs); err != nil {
			var nf *ocNotFound
			if errors.As(err, &nf) {
				return agent.Refusef("%s has no session %s in %s (deleted?)", a.title, r.Session, r.Transcript)
			}
			return err
		}
		ids := make([]string, 0, len(msgs))
		for _, m := range msgs {
			ids = append(ids, m.Info.ID)
		}
		sort.Strings(ids)
		i := sort.SearchStrings(ids, r.Point.ForkUUID)
		if i == len(ids) || ids[i] != r.Point.ForkUUID {
			return agent.Refusef("%s session %s no longer holds message %s, where the conversation stood then (its own undo or a compaction removed it)",
				a.title, r.Session, r.Point.ForkUUID)
		}
		body := map[string]any{}
		if i+1 < len(ids) {
			body["messageID"] = ids[i+1]
		}
		var orig, fk struct {
			ID         string          `json:"id"`
			Permission json.RawMessage `json:"permission"`
		}
		if err := s.call("GET", "/session/"+r.Session, nil, &orig); err != nil {
			return err
		}
		if err := s.call("POST", "/session/"+r.Session+"/fork", body, &fk); err != nil {
			return err
		}
		if fk.ID == "" {
			return fmt.Errorf("%s's fork answered no session", a.title)
		}
		forked = fk.ID
		if len(orig.Permission) > 0 && string(orig.Permission) != "null" {
			if err := s.call("PATCH", "/session/"+fk.ID, map[string]any{"permission": orig.Permission}, nil); err != nil {
				return fmt.Errorf("fork %s made, but its permission rules were not set: %w", fk.ID, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &agent.Forked{Session: forked, Transcript: r.Transcript, Resume: a.bin + " --session " + forked}, nil
}

// Setup writes the plugin into the agent's plugin folder: the project's
// (.opencode/plugins, .kilo/plugins), or with User the user's
// (~/.config/opencode/plugins, ~/.config/kilo/plugins). It is rewind-lsp's
// own file; other plugins are left alone. A file of that name rewind-lsp
// did not write is refused.
func (a openCode) Setup(o agent.SetupOptions) (*agent.SetupResult, error) {
	dir := filepath.Join(o.Root, a.project)
	if o.User {
		d, err := xdgDir("XDG_CONFIG_HOME", ".config", a.dir)
		if err != nil {
			return nil, fmt.Errorf("setup: %w", err)
		}
		dir = d
	} else if o.Root == "" {
		return nil, fmt.Errorf("setup %s: no project folder here; run it in the project, or with --user", a.name)
	}
	path := filepath.Join(dir, "plugins", ocplugin.FileName)
	want, err := ocplugin.Render(o.Command, a.name)
	if err != nil {
		return nil, err
	}
	r := &agent.SetupResult{File: path}
	old, err := os.ReadFile(path)
	switch {
	case err == nil && string(old) == want:
		return r, nil
	case err == nil && !strings.HasPrefix(string(old), ocplugin.Marker):
		return nil, fmt.Errorf("%s: not rewind-lsp's plugin; move it, rewind-lsp changed nothing", path)
	case err == nil:
		r.Added = append(r.Added, "plugin (updated)")
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read %s: %w", path, err)
	default:
		r.Added = append(r.Added, "plugin")
	}
	if err := hookfile.WriteSettings(path, []byte(want), 0o644); err != nil {
		return nil, err
	}
	return r, nil
}

// OwnRewindDropped finds, for a prompt of an opencode or Kilo session
// whose leaf (the last message before it) is leaf, the first of the
// session's earlier turns it dropped: the agent's own undo removed the
// messages from that turn's prompt on, so the prompt now follows a message
// from before it. forkPoints are the leaves recorded at the earlier
// prompts, oldest first; it returns the index of the first one the new
// leaf is not after, or -1.
func OwnRewindDropped(leaf string, forkPoints []string) int {
	for i, p := range forkPoints {
		if leaf <= p {
			return i
		}
	}
	return -1
}

// IsOpenCode reports whether agent name is opencode or Kilo.
func IsOpenCode(name string) bool { return name == Name || name == KiloName }

// OwnRewindShows: the leaf a prompt recorded shows the agent's undo at
// any later event of the prompt.
func (openCode) OwnRewindShows(*agent.Event) bool { return true }

// FindOwnRewind finds the first earlier turn of the session on the branch
// that the open turn's prompt dropped (its own /undo: OwnRewindDropped
// compares the leaves the prompts recorded). The agent restored the files
// itself, its shell's edits too, and tracks none of them here.
func (openCode) FindOwnRewind(open *journal.Entry, _ string, past agent.Past) (*agent.OwnRewind, error) {
	var turns []*journal.Entry
	var points []string
	for _, t := range past.Session() {
		if t.Agent == open.Agent && t.Transcript != "" && t.Turn < open.Turn {
			turns, points = append(turns, t), append(points, t.ForkUUID)
		}
	}
	if i := OwnRewindDropped(open.ForkUUID, points); i >= 0 {
		return &agent.OwnRewind{Dropped: turns[i], RestoresAll: true}, nil
	}
	return nil, nil
}

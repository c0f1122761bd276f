package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rewind-lsp/rewind-lsp/osfile"
	"github.com/rewind-lsp/rewind-lsp/store"
)

// Entry kinds.
const (
	KindSession    = "session"
	KindTurnStart  = "turnStart"
	KindTurnEnd    = "turnEnd"
	KindCheckpoint = "checkpoint"
	KindRewind     = "rewind"
	KindUndo       = "undo"
	KindSummary    = "summary"
	KindGC         = "gc"
	// KindTool records what one tool call of an agent session wrote, and
	// KindNotice that a session was told of the rewinds before it. Neither
	// is part of the conversation tree (no parent, never the leaf).
	KindTool   = "tool"
	KindNotice = "notice"
	// KindDone completes an operation (a rewind, revert or undo) recorded
	// before it changed any file: Of names it, Applied says how it ended.
	KindDone = "done"
	// KindRevert takes back one turn's changes and keeps the later ones.
	KindRevert = "revert"
)

// SourceRewindFork is the Source of a session entry that records a
// conversation fork rewind-lsp made (rewind --mode conversation|both): its
// TargetEntry is the rewind's target.
const SourceRewindFork = "rewind"

// IsOperation reports whether kind changes files and is undoable: a
// rewind, a revert or an undo (undoing an undo is a redo).
func IsOperation(kind string) bool {
	return kind == KindRewind || kind == KindRevert || kind == KindUndo
}

// Entry is one immutable journal record. Which fields are set depends on
// Kind; Snapshot is always the state of the files once the entry was made
// (none when the entry changed no files and captured nothing).
//
// Agent sessions. session, turnStart and turnEnd entries
// carry the agent session's id (Session) and, from a hook, its agent
// ("claude-code") and transcript file. Several sessions may have a turn
// open at once (History.OpenTurns). What each session's tool calls wrote
// is read back in two ways:
//
//   - per turn: a turnEnd with Attributed set lists in Wrote exactly the
//     root-relative paths the turn's own session's tool calls wrote between
//     its start and its end (sorted, possibly none). Without Attributed no
//     tool call was reported, and only Changed (everything that changed
//     during the turn, whoever changed it) is known.
//   - per call: a tool entry (KindTool, outside the conversation tree)
//     with Session, Start (the session's open turn then, "" if none), Tool,
//     ToolUse (the call's id) and Phase. Phase "post" lists in Files what
//     the call wrote (Write/Edit/MultiEdit/NotebookEdit: the path in its
//     input; Bash: what changed between the "pre" entry's Snapshot and the
//     post entry's Snapshot). A "pre" entry (Bash only) holds the state
//     before the call.
type Entry struct {
	ID     string    `json:"id"`
	Parent string    `json:"parent,omitempty"`
	Time   time.Time `json:"time"`
	Kind   string    `json:"kind"`
	Actor  string    `json:"actor,omitempty"`

	Snapshot Snap `json:"snapshot,omitzero"`

	// Turns.
	Turn    int    `json:"turn,omitempty"`
	Prompt  string `json:"prompt,omitempty"`
	Summary string `json:"summary,omitempty"`
	Session string `json:"session,omitempty"`
	Source  string `json:"source,omitempty"`
	Start   string `json:"start,omitempty"` // turnEnd: its turnStart entry
	// Changed is what the turn changed (turnEnd only).
	Changed []Change `json:"changed,omitempty"`
	// Agent is the agent of the session ("claude-code"), when known.
	Agent string `json:"agent,omitempty"`
	// Transcript is the agent's conversation file (session, turnStart).
	Transcript string `json:"transcript,omitempty"`
	// ForkBytes and ForkUUID are the fork point of an agent's turn
	// (turnStart: its conversation before the prompt; turnEnd: when the
	// turn ended): the conversation file's length and a marker of its last
	// entry (see agent.ForkPoint).
	ForkBytes int64  `json:"forkBytes,omitempty"`
	ForkUUID  string `json:"forkUuid,omitempty"`
	// PromptID is the agent's id of the prompt that opened the turn
	// (Claude Code's prompt_id: the promptId of its user entry), when the
	// hook gives one.
	PromptID string `json:"promptId,omitempty"`
	// Continues marks a turn start that carries on the turn Continues
	// started, on the branch an agent's own rewind made (see Agent on a
	// rewind): the same prompt, its start state the earlier turn's with
	// what the rewind restored.
	Continues string `json:"continues,omitempty"`
	// Wrote and Attributed: what the session's own tool calls wrote during
	// the turn (turnEnd; see above).
	Wrote      []string `json:"wrote,omitempty"`
	Attributed bool     `json:"attributed,omitempty"`
	// Tool calls (KindTool).
	Tool    string `json:"tool,omitempty"`
	ToolUse string `json:"toolUse,omitempty"`
	Phase   string `json:"phase,omitempty"`

	// Checkpoints.
	Label string `json:"label,omitempty"`
	Goal  string `json:"goal,omitempty"`
	// Conn is the connection (an MCP server) an agent's checkpoint was
	// made through; while it runs it holds a lock in the store named by
	// it. An agent's checkpoint made in its own turn has InTurn instead.
	Conn string `json:"conn,omitempty"`

	// Rewinds and undos.
	Target          string   `json:"target,omitempty"`
	TargetEntry     string   `json:"targetEntry,omitempty"`
	Mode            string   `json:"mode,omitempty"`
	UndoSnapshot    Snap     `json:"undoSnapshot,omitzero"`
	Files           []string `json:"files,omitempty"`
	EntriesAffected int      `json:"entriesAffected,omitempty"`
	Report          string   `json:"report,omitempty"`
	PrevLeaf        string   `json:"prevLeaf,omitempty"` // rewind that moved the leaf: the leaf before
	Undoes          string   `json:"undoes,omitempty"`   // undo: the rewind it undoes
	// InTurn marks an operation an agent ran during its own turn (over
	// MCP, or from its shell): the start entry of that turn, which stayed
	// open. The files it changed count as written by the turn's session.
	InTurn string `json:"inTurn,omitempty"`
	// A rewind with Agent set records the agent's own rewind of session
	// Session (Claude Code's Esc Esc), noticed afterwards: the conversation
	// moved back to TargetEntry; with mode both rewind-lsp restored the
	// rest of the dropped turns' changes (Files) and left Kept alone,
	// changed since by someone else; with mode conversation the agent
	// restored no file and Offered lists the files a code rewind to the
	// target would restore (the editors offer it). Undo takes back its
	// files, never the agent's conversation.
	Kept    []string `json:"kept,omitempty"`
	Offered []string `json:"offered,omitempty"`
	// Notice (KindNotice): the last journal entry the session was told
	// about.
	Through       string `json:"through,omitempty"`
	Applied       *bool  `json:"applied,omitempty"`
	FailureReason string `json:"failureReason,omitempty"`
	// Pending marks an operation recorded before any file changed (its
	// intent): Snapshot is the state it leads to, UndoSnapshot the state
	// before, Files what it changes. A done entry completes it; one
	// without is finished by the next command (recovery).
	Pending bool `json:"pending,omitempty"`
	// Of is the operation a done entry completes.
	Of string `json:"of,omitempty"`
	// Recovered marks a done entry written by recovery after an
	// interruption.
	Recovered bool `json:"recovered,omitempty"`

	// Key is the idempotency key of the call that made the entry: a
	// command retried after a lost answer finds it and returns what was
	// recorded instead of running again.
	Key string `json:"key,omitempty"`
	// Count is the number of files a checkpoint captured.
	Count int `json:"count,omitempty"`

	// gc: snapshots whose content was dropped.
	Gone []store.ID `json:"gone,omitempty"`

	// Damaged marks an entry History made up for one whose journal line is
	// damaged: the start of a turn whose end is intact (its id, turn number
	// and session come from the end; no snapshot, prompt or time). Never
	// written.
	Damaged bool `json:"-"`

	// pos is the entry's position in the view plus one, when it was read
	// through the view (0: not known; looked up by id).
	pos int32
}

// Change is one file a turn changed.
type Change struct {
	Path    string `json:"path"`
	Change  string `json:"change"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	// Kind is "binary" or "symlink" when line counts do not describe the
	// change (snapshot.FileOp.ContentKind); Mode is "+x" or "-x" when the
	// executable bit changed. Both are empty in older journals.
	Kind string `json:"kind,omitempty"`
	Mode string `json:"mode,omitempty"`
}

// LineError is a damaged journal line.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("journal line %d: %v", e.Line, e.Err) }

// Journal is the append-only record of one root: one line per entry, each
// "<crc32c hex> <json>\n". Appends hold an exclusive file lock, so several
// processes can append at once. A torn last line (a crash or a full disk
// mid-write) is skipped by History, reported by ReadAll (fsck), and set aside
// by the next append: its bytes move to a file beside the journal, which
// fsck names once as repaired (Repairs). Whole lines are never rewritten
// or cut.
type Journal struct {
	path     string
	lockPath string
	sem      chan struct{} // serializes this process's lock holders

	// The view as this process holds it (viewload.go), under vmu.
	vmu           sync.Mutex
	st            *storage
	hist          *History
	jid           osfile.ID
	manifestStamp string // size and time of the manifest last read or written
	gen           string
	viewPath      string // the view's folder, when not the store's view/ (CheckView)
}

// Open opens the journal in store folder dir.
func Open(dir string) *Journal {
	return &Journal{path: filepath.Join(dir, "journal"), lockPath: filepath.Join(dir, "lock"), sem: make(chan struct{}, 1)}
}

// Path is the journal file.
func (j *Journal) Path() string { return j.path }

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func encodeLine(e *Entry) ([]byte, error) {
	js, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(js)+10)
	line = fmt.Appendf(line, "%08x ", crc32.Checksum(js, crcTable))
	line = append(line, js...)
	return append(line, '\n'), nil
}

func decodeLine(line []byte) (*Entry, error) {
	if len(line) < 10 || line[8] != ' ' {
		return nil, errors.New("malformed record")
	}
	sum, err := strconv.ParseUint(string(line[:8]), 16, 32)
	if err != nil {
		return nil, errors.New("malformed checksum")
	}
	js := line[9:]
	if crc32.Checksum(js, crcTable) != uint32(sum) {
		return nil, errors.New("checksum mismatch")
	}
	var e Entry
	if err := json.Unmarshal(js, &e); err != nil {
		return nil, fmt.Errorf("bad JSON: %w", err)
	}
	if e.ID == "" || e.Kind == "" {
		return nil, errors.New("record without id or kind")
	}
	return &e, nil
}

// ErrTornLine is the damage of a last line without its newline: a write
// cut off by a crash or a full disk.
var ErrTornLine = errors.New("torn last line (no final newline): a write was cut off; the next append sets it aside in a file beside the journal")

// ReadAll reads the whole journal afresh (fsck: damage made in place is
// seen too). Unlike Read it reports a torn last line, once no append is in
// progress: it must not be called while holding the journal's lock.
func (j *Journal) ReadAll() ([]*Entry, []*LineError, error) {
	data, err := j.readFile()
	if err == nil && len(data) > 0 && data[len(data)-1] != '\n' {
		// The tail may be an append in progress in another process: look
		// again once the appenders let go.
		if unlock := j.shared(5 * time.Second); unlock != nil {
			data, err = j.readFile()
			unlock()
		}
	}
	if err != nil {
		return nil, nil, err
	}
	ents, bad, _ := parseJournal(data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		bad = append(bad, &LineError{Line: bytes.Count(data, []byte{'\n'}) + 1, Err: ErrTornLine})
	}
	return ents, bad, nil
}

func (j *Journal) readFile() ([]byte, error) {
	data, err := osfile.ReadFile(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	return data, nil
}

// shared takes the journal lock shared, waiting at most max, and returns
// its release (nil when it could not be had).
func (j *Journal) shared(max time.Duration) (unlock func()) {
	f, err := osfile.OpenFile(j.lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	for deadline := time.Now().Add(max); ; time.Sleep(10 * time.Millisecond) {
		ok, err := osfile.TryLock(f, osfile.Shared)
		if ok {
			return func() { osfile.Unlock(f); f.Close() }
		}
		if err != nil || time.Now().After(deadline) {
			f.Close()
			return nil
		}
	}
}

func parseJournal(data []byte) ([]*Entry, []*LineError, error) {
	ents, bad, _, _ := parseLines(data, 0)
	return ents, bad, nil
}

// parseLines parses the complete lines of data (numbered after the first
// `before` lines) and returns the bytes and lines it consumed.
func parseLines(data []byte, before int) (ents []*Entry, bad []*LineError, consumed, lines int) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // torn last record
		}
		line := data[:i]
		data = data[i+1:]
		consumed += i + 1
		lines++
		if len(line) == 0 {
			continue
		}
		e, err := decodeLine(line)
		if err != nil {
			bad = append(bad, &LineError{Line: before + lines, Err: err})
			continue
		}
		ents = append(ents, e)
	}
	return ents, bad, consumed, lines
}

// Lock holds the journal's exclusive lock until Unlock.
type Lock struct {
	j *Journal
	f *os.File
}

// Lock takes the exclusive lock of the journal (waiting for other holders).
func (j *Journal) Lock() (*Lock, error) { return j.LockContext(context.Background()) }

// LockContext takes the exclusive lock of the journal, waiting for other
// holders until ctx ends (a hook must return within its time, even when a
// stopped process holds the lock).
func (j *Journal) LockContext(ctx context.Context) (*Lock, error) {
	select {
	case j.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("lock journal: %w", ctx.Err())
	}
	f, err := osfile.OpenFile(j.lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		<-j.sem
		return nil, fmt.Errorf("lock journal: %w", err)
	}
	if ctx.Done() == nil {
		err = osfile.Lock(f, osfile.Exclusive)
	} else {
		pause := time.Millisecond
		for {
			var ok bool
			if ok, err = osfile.TryLock(f, osfile.Exclusive); ok || err != nil {
				break
			}
			select {
			case <-ctx.Done():
				holder, _ := osfile.ReadFile(j.lockPath)
				err = fmt.Errorf("the store is locked by another process (%s): %w", strings.TrimSpace(string(holder)), ctx.Err())
			case <-time.After(pause):
				pause = min(2*pause, 50*time.Millisecond)
				continue
			}
			break
		}
	}
	if err != nil {
		f.Close()
		<-j.sem
		return nil, fmt.Errorf("lock journal: %w", err)
	}
	// Who holds it, for people reading the store.
	f.Truncate(0)
	f.WriteAt([]byte(fmt.Sprintf("pid %d since %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))), 0)
	return &Lock{j: j, f: f}, nil
}

// Unlock releases the lock, then writes what this process read of the
// journal to its view when that is due (Persist).
func (l *Lock) Unlock() {
	osfile.Unlock(l.f)
	l.f.Close()
	<-l.j.sem
	l.j.Persist()
}

// Append writes entries durably; the caller holds the lock. IDs and times
// are filled in when empty. A torn last line left by an earlier crash is
// set aside first: its bytes are kept in a file beside the journal, which
// is cut back to its last whole line (torn.go).
func (l *Lock) Append(ents ...*Entry) error {
	j := l.j
	f, err := osfile.OpenFile(j.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	if torn, err := endsTorn(f, size); err != nil {
		return fmt.Errorf("append journal: %w", err)
	} else if torn {
		// Under the lock no append is in progress: the tail is what a
		// crash left. It goes beside the journal (torn.go).
		if size, err = j.setAside(f, size); err != nil {
			return fmt.Errorf("append journal: %w", err)
		}
		if _, err := f.Seek(size, io.SeekStart); err != nil {
			return fmt.Errorf("append journal: %w", err)
		}
	}
	var buf []byte
	for _, e := range ents {
		if e.ID == "" {
			e.ID = NewID()
		}
		if e.Time.IsZero() {
			e.Time = time.Now().UTC()
		}
		line, err := encodeLine(e)
		if err != nil {
			return fmt.Errorf("append journal: %w", err)
		}
		buf = append(buf, line...)
	}
	if _, err := f.Write(buf); err != nil {
		// A short write (a full disk) is taken back: only this append's
		// own bytes, so no torn line of ours is left behind.
		f.Truncate(size)
		return fmt.Errorf("append journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	return nil
}

// endsTorn reports whether a journal of size bytes ends inside a line.
func endsTorn(f *os.File, size int64) (bool, error) {
	if size == 0 {
		return false, nil
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}

// NewID returns a new entry ID (a UUIDv7: time-ordered).
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

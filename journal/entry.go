package journal

// The journal's entries: their kinds, ids, modes and phases as types, the
// fields each kind carries, and a constructor per kind.

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/store"
)

// Kind is what an entry records.
type Kind string

// Entry kinds.
const (
	KindSession    Kind = "session"
	KindTurnStart  Kind = "turnStart"
	KindTurnEnd    Kind = "turnEnd"
	KindCheckpoint Kind = "checkpoint"
	KindRewind     Kind = "rewind"
	KindUndo       Kind = "undo"
	KindSummary    Kind = "summary"
	KindGC         Kind = "gc"
	// KindTool records what one tool call of an agent session wrote, and
	// KindNotice that a session was told of the rewinds before it. Neither
	// is part of the conversation tree (no parent, never the leaf).
	KindTool   Kind = "tool"
	KindNotice Kind = "notice"
	// KindDone completes an operation (a rewind, revert or undo) recorded
	// before it changed any file: Of names it, Applied says how it ended.
	KindDone Kind = "done"
	// KindRevert takes back one turn's changes and keeps the later ones.
	KindRevert Kind = "revert"
)

// IsOperation reports whether kind changes files and is undoable: a
// rewind, a revert or an undo (undoing an undo is a redo).
func IsOperation(kind Kind) bool {
	return kind == KindRewind || kind == KindRevert || kind == KindUndo
}

// EntryID names an entry: a UUIDv7 (time-ordered) for every entry written
// since ids were given here.
type EntryID string

// NewID returns a new entry id.
func NewID() EntryID {
	id, err := uuid.NewV7()
	if err != nil {
		return EntryID(uuid.NewString())
	}
	return EntryID(id.String())
}

// Mode is what a rewind takes back (docs/PROTOCOL.md, "Rewind modes"):
// ModeCode restores the files; ModeConversation moves the active branch's
// leaf back to the target; ModeBoth does both; ModeSummarize changes
// neither and appends the report as a summary entry; ModePlan only returns
// the plan. A revert's entries and plans say ModeRevert.
type Mode string

// Modes of rewinds and reverts.
const (
	ModeCode         Mode = "code"
	ModeConversation Mode = "conversation"
	ModeBoth         Mode = "both"
	ModeSummarize    Mode = "summarize"
	ModePlan         Mode = "plan"
	ModeRevert       Mode = "revert"
)

// Modes lists the rewind modes.
var Modes = []Mode{ModeCode, ModeConversation, ModeBoth, ModeSummarize, ModePlan}

// ParseMode checks a mode as written ("" is code).
func ParseMode(m string) (Mode, error) {
	if m == "" {
		return ModeCode, nil
	}
	for _, x := range Modes {
		if Mode(m) == x {
			return x, nil
		}
	}
	return "", fmt.Errorf("unknown mode %q (want one of code, conversation, both, summarize, plan)", m)
}

// MovesConversation reports whether mode moves the conversation back.
func (m Mode) MovesConversation() bool { return m == ModeConversation || m == ModeBoth }

// ChangesFiles reports whether mode restores files.
func (m Mode) ChangesFiles() bool { return m == ModeCode || m == ModeBoth }

// Phase is when a tool entry was made: before its call ran or after.
type Phase string

// Tool-call phases.
const (
	PhasePre  Phase = "pre"
	PhasePost Phase = "post"
)

// AgentLabelPrefix starts the labels of agents' checkpoints: agent-1,
// agent-2… (an agent's checkpoint is pinned only while it is active).
const AgentLabelPrefix = "agent-"

// Source says where an entry came from. On a turn start it is the door
// that opened the turn (one of the constants below but SourceRewindFork);
// on a session entry it is why the session began: the agent's own word for
// it as its hook reports it ("startup", "resume", "clear", "compact"…), or
// SourceRewindFork.
type Source string

// Sources of turns and sessions.
const (
	// SourceHook is a coding agent's hook (rewind-lsp hook <agent>) or a
	// plugin that runs it: the turn is the agent's, of its session.
	SourceHook Source = "hook"
	// SourceCLI is the command line (rewind-lsp turn start).
	SourceCLI Source = "cli"
	// SourceEditor is an editor, through the language server.
	SourceEditor Source = "editor"
	// SourceMCP is an agent through rewind-lsp's MCP tools.
	SourceMCP Source = "mcp"
	// SourceACP is the ACP proxy, for a prompt of the agent behind it.
	SourceACP Source = "acp"
	// SourceAuto is a running server's automatic turn: changes on disk
	// that no turn was open for (workspace/live). Any turn that opens ends
	// an open automatic turn, as it ends its own session's.
	SourceAuto Source = "auto"
	// SourceRewindFork is the Source of a session entry that records a
	// conversation fork rewind-lsp made (rewind --mode conversation|both):
	// its TargetEntry is the rewind's target.
	SourceRewindFork Source = "rewind"
)

// Entry is one immutable journal record. Which fields are set depends on
// Kind; Snapshot is always the state of the files once the entry was made
// (none when the entry changed no files and captured nothing). Fields that
// one kind alone carries are grouped (ForkPoint, ToolCall, AgentRewind);
// they read as the entry's own and are written inline.
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
	ID     EntryID   `json:"id"`
	Parent EntryID   `json:"parent,omitempty"`
	Time   time.Time `json:"time"`
	Kind   Kind      `json:"kind"`
	Actor  string    `json:"actor,omitempty"`

	Snapshot Snap `json:"snapshot,omitzero"`

	// Turns.
	Turn    int     `json:"turn,omitempty"`
	Prompt  string  `json:"prompt,omitempty"`
	Summary string  `json:"summary,omitempty"`
	Session string  `json:"session,omitempty"`
	Source  Source  `json:"source,omitempty"`
	Start   EntryID `json:"start,omitempty"` // turnEnd, tool: a turnStart
	// Changed is what the turn changed (turnEnd only).
	Changed []Change `json:"changed,omitempty"`
	// Agent is the agent of the session ("claude-code"), when known.
	Agent string `json:"agent,omitempty"`
	// Transcript is the agent's conversation file (session, turnStart).
	Transcript string `json:"transcript,omitempty"`
	// ForkPoint is where an agent's turn stood in its conversation
	// (turnStart: before the prompt; turnEnd: when the turn ended).
	ForkPoint
	// PromptID is the agent's id of the prompt that opened the turn
	// (Claude Code's prompt_id: the promptId of its user entry), when the
	// hook gives one.
	PromptID string `json:"promptId,omitempty"`
	// Continues marks a turn start that carries on the turn Continues
	// started, on the branch an agent's own rewind made (see Agent on a
	// rewind): the same prompt, its start state the earlier turn's with
	// what the rewind restored.
	Continues EntryID `json:"continues,omitempty"`
	// Wrote and Attributed: what the session's own tool calls wrote during
	// the turn (turnEnd; see above).
	Wrote      []string `json:"wrote,omitempty"`
	Attributed bool     `json:"attributed,omitempty"`
	// ToolCall is a tool entry's call (KindTool).
	ToolCall

	// Checkpoints.
	Label string `json:"label,omitempty"`
	Goal  string `json:"goal,omitempty"`
	// Conn is the connection (an MCP server) an agent's checkpoint was
	// made through; while it runs it holds a lock in the store named by
	// it. An agent's checkpoint made in its own turn has InTurn instead.
	Conn string `json:"conn,omitempty"`

	// Rewinds and undos.
	Target          string   `json:"target,omitempty"`
	TargetEntry     EntryID  `json:"targetEntry,omitempty"`
	Mode            Mode     `json:"mode,omitempty"`
	UndoSnapshot    Snap     `json:"undoSnapshot,omitzero"`
	Files           []string `json:"files,omitempty"`
	EntriesAffected int      `json:"entriesAffected,omitempty"`
	Report          string   `json:"report,omitempty"`
	PrevLeaf        EntryID  `json:"prevLeaf,omitempty"` // rewind that moved the leaf: the leaf before
	Undoes          EntryID  `json:"undoes,omitempty"`   // undo: the rewind it undoes
	// InTurn marks an operation an agent ran during its own turn (over
	// MCP, or from its shell): the start entry of that turn, which stayed
	// open. The files it changed count as written by the turn's session.
	InTurn EntryID `json:"inTurn,omitempty"`
	// AgentRewind: a rewind with Agent set records the agent's own rewind.
	AgentRewind
	// Notice (KindNotice): the last journal entry the session was told
	// about.
	Through       EntryID `json:"through,omitempty"`
	Applied       *bool   `json:"applied,omitempty"`
	FailureReason string  `json:"failureReason,omitempty"`
	// Pending marks an operation recorded before any file changed (its
	// intent): Snapshot is the state it leads to, UndoSnapshot the state
	// before, Files what it changes. A done entry completes it; one
	// without is finished by the next command (recovery).
	Pending bool `json:"pending,omitempty"`
	// Of is the operation a done entry completes.
	Of EntryID `json:"of,omitempty"`
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

// ForkPoint is where an agent's conversation stood at a turn boundary: its
// conversation file's length and a marker of its last entry. The one shape
// of a fork point, from a hook's event to the journal and back to the fork
// a rewind makes.
type ForkPoint struct {
	// ForkBytes is the conversation file's length up to its last complete
	// line.
	ForkBytes int64 `json:"forkBytes,omitempty"`
	// ForkUUID is the marker of what the file held by then: for Claude
	// Code the uuid of its last entry, for Gemini CLI the id of its last
	// record, for Codex the id of the last turn to keep.
	ForkUUID string `json:"forkUuid,omitempty"`
}

// IsZero reports whether the point is unknown.
func (f ForkPoint) IsZero() bool { return f.ForkBytes == 0 && f.ForkUUID == "" }

// ToolCall is what a tool entry says of its call: the tool (Write, Edit,
// Bash…), the call's id when the agent gives one, and the phase; what the
// call was about (Detail: a shell command, the file a file tool wrote);
// and, once a call that changed files ended, its step: Step numbers it
// within its turn (1, 2…; 0: it changed nothing), StepStart is the state
// just before it ran, the entry's Snapshot the state after, and the
// entry's Changed what it changed (docs/STEPS.md). On a rewind, revert or
// undo, Step is the step of the turn it went back to or took back.
type ToolCall struct {
	Tool      string `json:"tool,omitempty"`
	ToolUse   string `json:"toolUse,omitempty"`
	Phase     Phase  `json:"phase,omitempty"`
	Detail    string `json:"detail,omitempty"`
	Step      int    `json:"step,omitempty"`
	StepStart Snap   `json:"stepStart,omitzero"`
}

// IsBurst reports whether tool entry e is an automatic turn's burst of
// changes (a step no agent reported: it names no tool), not a call.
func (e *Entry) IsBurst() bool { return e.Kind == KindTool && e.Tool == "" }

// AgentRewind is what a rewind with Agent set says: the agent's own rewind
// of session Session (Claude Code's Esc Esc), noticed afterwards. The
// conversation moved back to TargetEntry; with mode both rewind-lsp
// restored the rest of the dropped turns' changes (Files) and left Kept
// alone, changed since by someone else; with mode conversation the agent
// restored no file and Offered lists the files a code rewind to the target
// would restore (the editors offer it). Undo takes back its files, never
// the agent's conversation.
type AgentRewind struct {
	Kept    []string `json:"kept,omitempty"`
	Offered []string `json:"offered,omitempty"`
}

// Change is one file a turn changed.
type Change struct {
	Path    string        `json:"path"`
	Change  fileop.Change `json:"change"`
	Added   int           `json:"added"`
	Removed int           `json:"removed"`
	// Kind is "binary" or "symlink" when line counts do not describe the
	// change (snapshot.FileOp.ContentKind); Mode is "+x" or "-x" when the
	// executable bit changed. Both are empty in older journals.
	Kind string `json:"kind,omitempty"`
	Mode string `json:"mode,omitempty"`
}

// The constructors: one per kind, with what the kind needs; the rest
// (Actor, Key, a session's agent…) is set on the entry they return.

// NewSession records that an agent session started (a hook's
// SessionStart), or that rewind-lsp forked a conversation (source
// SourceRewindFork).
func NewSession(parent EntryID, session string, source Source) *Entry {
	return &Entry{Parent: parent, Kind: KindSession, Session: session, Source: source}
}

// NewTurnStart opens turn n of session (source: hook, cli, editor, auto…)
// with the files at snap.
func NewTurnStart(parent EntryID, n int, session string, source Source, snap Snap) *Entry {
	return &Entry{Parent: parent, Kind: KindTurnStart, Turn: n, Session: session, Source: source, Snapshot: snap}
}

// NewTurnEnd ends the turn start opened, the files at snap, with what
// changed since its start.
func NewTurnEnd(parent EntryID, start *Entry, snap Snap, changed []Change) *Entry {
	return &Entry{Parent: parent, Kind: KindTurnEnd, Turn: start.Turn, Start: start.ID, Session: start.Session, Agent: start.Agent,
		Snapshot: snap, Changed: changed}
}

// NewCheckpoint records the files at snap, labeled.
func NewCheckpoint(parent EntryID, snap Snap, label, goal string, count int) *Entry {
	return &Entry{Parent: parent, Kind: KindCheckpoint, Snapshot: snap, Label: label, Goal: goal, Count: count}
}

// NewTool records one phase of a tool call of session during its turn
// start ("" when none was open).
func NewTool(session string, start EntryID, call ToolCall) *Entry {
	return &Entry{Kind: KindTool, Session: session, Start: start, ToolCall: call}
}

// NewRewind records a rewind of mode to target (as written), whose entry
// is targetEntry.
func NewRewind(parent EntryID, target string, targetEntry EntryID, mode Mode) *Entry {
	return &Entry{Parent: parent, Kind: KindRewind, Target: target, TargetEntry: targetEntry, Mode: mode}
}

// NewUndo records the undo of operation op.
func NewUndo(parent EntryID, op *Entry) *Entry {
	u := &Entry{Parent: parent, Kind: KindUndo, Undoes: op.ID, Mode: op.Mode, Target: op.Target, Turn: op.Turn}
	u.Step = op.Step
	return u
}

// NewRevert records the revert of the turns of target (as written), the
// latest started by targetEntry.
func NewRevert(parent EntryID, target string, targetEntry EntryID) *Entry {
	return &Entry{Parent: parent, Kind: KindRevert, Target: target, TargetEntry: targetEntry, Mode: ModeRevert}
}

// NewSummary keeps report about the work since target.
func NewSummary(parent EntryID, target string, targetEntry EntryID, report string) *Entry {
	return &Entry{Parent: parent, Kind: KindSummary, Target: target, TargetEntry: targetEntry, Report: report}
}

// NewDone completes operation op: applied, leading to snap; or not, for
// reason.
func NewDone(op *Entry, applied bool, snap Snap, reason string) *Entry {
	d := &Entry{Kind: KindDone, Of: op.ID, Actor: op.Actor}
	if applied {
		d.Snapshot = snap
	} else {
		f := false
		d.Applied, d.FailureReason = &f, reason
	}
	return d
}

// NewNotice records that session was told of everything up to through.
func NewNotice(session string, through EntryID) *Entry {
	return &Entry{Kind: KindNotice, Session: session, Through: through}
}

// NewGC records the snapshots retention dropped.
func NewGC(gone []store.ID) *Entry {
	return &Entry{Kind: KindGC, Gone: gone}
}

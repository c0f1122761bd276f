package commands

import "github.com/rewind-lsp/rewind-lsp/journal"

// Scope selects a workspace root when a server has several. Every argument
// struct embeds it; the single-root command line ignores it.
type Scope struct {
	Root string `json:"root,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// CheckpointArgs is the argument of rewind.checkpoint.
type CheckpointArgs struct {
	Scope
	Label string `json:"label,omitempty"`
	Goal  string `json:"goal,omitempty"`
}

// CheckpointResult is the result of rewind.checkpoint.
type CheckpointResult struct {
	Entry    string       `json:"entry"`
	Snapshot journal.Snap `json:"snapshot"`
	Files    int          `json:"files"`
}

// TurnStartArgs is the argument of rewind.turnStart.
type TurnStartArgs struct {
	Scope
	Prompt  string `json:"prompt,omitempty"`
	Session string `json:"session,omitempty"`
	// Source is who opened the turn: "hook", "cli", "editor" or "auto".
	// Not part of the wire contract; set by the caller.
	Source string `json:"-"`
	// Agent names the session's agent ("claude-code"); Transcript is its
	// conversation file and ForkBytes/ForkUUID the transcript's fork point
	// before this prompt. Set by agent hooks.
	Agent      string `json:"agent,omitempty"`
	Transcript string `json:"transcript,omitempty"`
	ForkBytes  int64  `json:"forkBytes,omitempty"`
	ForkUUID   string `json:"forkUuid,omitempty"`
	// PromptID is the agent's id of the prompt (Claude Code's prompt_id).
	PromptID string `json:"promptId,omitempty"`
}

// TurnStartResult is the result of rewind.turnStart.
type TurnStartResult struct {
	Entry    string       `json:"entry"`
	Turn     int          `json:"turn"`
	Snapshot journal.Snap `json:"snapshot"`
}

// TurnEndArgs is the argument of rewind.turnEnd.
type TurnEndArgs struct {
	Scope
	Summary string `json:"summary,omitempty"`
	Session string `json:"session,omitempty"`
	// ForkBytes/ForkUUID: the transcript when the turn ended (agent hooks).
	ForkBytes int64  `json:"forkBytes,omitempty"`
	ForkUUID  string `json:"forkUuid,omitempty"`
}

// TurnEndResult is the result of rewind.turnEnd. Entry is empty and Turn 0
// when no turn was open (nothing is recorded then).
type TurnEndResult struct {
	Entry    string       `json:"entry"`
	Turn     int          `json:"turn"`
	Snapshot journal.Snap `json:"snapshot"`
	Changed  []FileChange `json:"changed"`
}

// FileChange is one file a turn changed, with line counts.
type FileChange struct {
	Path    string `json:"path"`
	Change  string `json:"change"` // create, modify, delete
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Kind    string `json:"kind,omitempty"` // "binary" or "symlink": line counts do not apply
	Mode    string `json:"mode,omitempty"` // "+x" or "-x": the executable bit changed
}

// ListArgs is the argument of rewind.list.
type ListArgs struct {
	Scope
	Limit int  `json:"limit,omitempty"`
	All   bool `json:"all,omitempty"`
}

// ListResult is the result of rewind.list; every list is oldest first.
type ListResult struct {
	Turns       []TurnInfo       `json:"turns"`
	Checkpoints []CheckpointInfo `json:"checkpoints"`
	Rewinds     []RewindInfo     `json:"rewinds"`
	Summaries   []SummaryInfo    `json:"summaries"`
}

// SummaryInfo is one report kept as a summary entry: of a rewind that
// carried one, or of mode summarize. Target is the target as written.
type SummaryInfo struct {
	Entry  string `json:"entry"`
	Target string `json:"target"`
	Report string `json:"report"`
	Time   string `json:"time"`
}

// TurnInfo describes one turn.
type TurnInfo struct {
	Turn    int          `json:"turn"`
	Entry   string       `json:"entry"`
	Prompt  string       `json:"prompt"`
	Summary string       `json:"summary"`
	Started string       `json:"started"`
	Ended   string       `json:"ended"` // empty while the turn is open
	Source  string       `json:"source"`
	Session string       `json:"session,omitempty"`
	Agent   string       `json:"agent,omitempty"`
	Changed []FileChange `json:"changed"`
	// Abandoned is true for turns off the active branch (only with all).
	Abandoned bool `json:"abandoned,omitempty"`
}

// CheckpointInfo describes one checkpoint.
type CheckpointInfo struct {
	Entry    string       `json:"entry"`
	Label    string       `json:"label"`
	Goal     string       `json:"goal"`
	Time     string       `json:"time"`
	Snapshot journal.Snap `json:"snapshot"`
}

// RewindInfo describes one rewind.
type RewindInfo struct {
	Entry  string `json:"entry"`
	Target string `json:"target"`
	Mode   string `json:"mode"`
	Time   string `json:"time"`
	Undone bool   `json:"undone"`
	// Applied is false for a rewind the editor did not apply.
	Applied bool `json:"applied"`
	// Agent and Session name the agent whose own rewind this records
	// (Claude Code's Esc Esc); Files are what rewind-lsp restored, Kept
	// what it left alone (changed since by someone else), Offered what a
	// code rewind to the target would still restore when the agent
	// restored no file (the editors offer it).
	Agent   string   `json:"agent,omitempty"`
	Session string   `json:"session,omitempty"`
	Turn    int      `json:"turn,omitempty"`
	Prompt  string   `json:"prompt,omitempty"`
	Files   []string `json:"files,omitempty"`
	Kept    []string `json:"kept,omitempty"`
	Offered []string `json:"offered,omitempty"`
}

// PreviewArgs is the argument of rewind.preview.
type PreviewArgs struct {
	Scope
	Target string   `json:"target"`
	Mode   string   `json:"mode,omitempty"`
	Paths  []string `json:"paths,omitempty"`
	Range  *Range   `json:"range,omitempty"`
}

// RewindArgs is the argument of rewind.rewind.
type RewindArgs struct {
	Scope
	Target string   `json:"target"`
	Mode   string   `json:"mode,omitempty"`
	Paths  []string `json:"paths,omitempty"`
	Range  *Range   `json:"range,omitempty"`
	Force  bool     `json:"force,omitempty"`
	Report string   `json:"report,omitempty"`
	// OwnSince is an entry id (an agent's checkpoint): the changes made
	// since it count as the caller's own, except files the editor saved
	// since or holds unsaved — those stay conflicts. Used by the MCP
	// rewind tool; not an argument editors send.
	OwnSince string `json:"ownSince,omitempty"`
}

// UndoArgs is the argument of rewind.undo.
type UndoArgs struct {
	Scope
	Force bool `json:"force,omitempty"`
}

// RewindResult is the result of rewind.rewind and rewind.undo.
type RewindResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
	Entry         string `json:"entry"`
	Plan          *Plan  `json:"plan"`
	// Conversation is set by a rewind with mode conversation or both: the
	// agent's conversation it rewound, or why only the journal moved.
	Conversation *ConversationResult `json:"conversation,omitempty"`
}

// ConversationResult is what a conversation rewind did to the agent's own
// conversation: Agent names the agent ("claude-code", "codex", "gemini",
// "copilot") with the new session, its conversation file and the command
// that resumes it; or Agent is empty and Reason says why only rewind-lsp's
// journal moved back.
type ConversationResult struct {
	Agent      string `json:"agent"`
	Session    string `json:"session,omitempty"`
	Transcript string `json:"transcript,omitempty"`
	Resume     string `json:"resume,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// Range is an LSP range; only its lines matter to a hunk rewind.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Position is an LSP position.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Plan is what a rewind would do (docs/PROTOCOL.md, "The plan").
type Plan struct {
	Target       PlanTarget   `json:"target"`
	Mode         string       `json:"mode"`
	Files        []PlanFile   `json:"files"`
	Skipped      []Skipped    `json:"skipped"`
	Conversation Conversation `json:"conversation"`
	Diff         string       `json:"diff"`
}

// PlanTarget names the state a rewind goes to.
type PlanTarget struct {
	ID       string       `json:"id"`
	Turn     int          `json:"turn"`
	Label    string       `json:"label"`
	Prompt   string       `json:"prompt"`
	Snapshot journal.Snap `json:"snapshot"`
	// Kind is the kind of the target entry: "turnStart" (the state before
	// the turn), "turnEnd", "checkpoint", or "rewind" for an undo.
	Kind string `json:"kind,omitempty"`
}

// PlanFile is one file a rewind changes.
type PlanFile struct {
	Path     string `json:"path"`
	Change   string `json:"change"` // modify, create, delete
	Added    int    `json:"added"`
	Removed  int    `json:"removed"`
	Binary   bool   `json:"binary"`
	Conflict bool   `json:"conflict"`
	Via      string `json:"via"`            // edit, disk
	Kind     string `json:"kind,omitempty"` // "binary" or "symlink": line counts do not apply
	Mode     string `json:"mode,omitempty"` // "+x" or "-x": the executable bit changes
	// Overlaps, in a revert's plan, names who changed the file since the
	// reverted turn where that turn's change lies ("turn N" or "user"):
	// the file is in conflict and the revert is refused.
	Overlaps []string `json:"overlaps,omitempty"`
}

// Skipped is a file a rewind leaves alone because its content was not captured.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Conversation is the conversation part of a plan.
type Conversation struct {
	EntriesAffected int `json:"entriesAffected"`
}

// FileHistoryArgs is the argument of rewind.fileHistory.
type FileHistoryArgs struct {
	Scope
}

// FileHistoryResult is the result of rewind.fileHistory, oldest first.
type FileHistoryResult struct {
	History []FileHistoryItem `json:"history"`
}

// FileHistoryItem is one turn that changed the file.
type FileHistoryItem struct {
	Turn     int          `json:"turn"`
	Entry    string       `json:"entry"`
	Change   string       `json:"change"`
	Added    int          `json:"added"`
	Removed  int          `json:"removed"`
	Snapshot journal.Snap `json:"snapshot"` // the turn's start snapshot: the file before the turn
	// EndSnapshot is the turn's end snapshot (the file after the turn).
	EndSnapshot journal.Snap `json:"endSnapshot,omitzero"`
	Prompt      string       `json:"prompt,omitempty"`
}

// StatusArgs is the argument of rewind.status.
type StatusArgs struct {
	Scope
}

// StatusResult is the result of rewind.status.
type StatusResult struct {
	Root       string `json:"root"`
	Store      string `json:"store"`
	Turns      int    `json:"turns"`
	Snapshots  int    `json:"snapshots"`
	StoreBytes int64  `json:"storeBytes"`
	// Watching is true while file-system notifications feed captures; false
	// when a running server polls, or on the command line.
	Watching bool `json:"watching"`
	// WatchMode says how changes are seen: "watch", "poll" or "none".
	WatchMode string `json:"watchMode"`
	// PollReason says why a running server rescans the root instead of
	// watching it (the folders outnumber the kernel's watch limit, ...).
	PollReason string    `json:"pollReason,omitempty"`
	OpenTurn   *OpenTurn `json:"openTurn"`
	// LastCaptureMs is the duration of the last capture this process made.
	LastCaptureMs float64 `json:"lastCaptureMs"`
	// MaxStoreBytes is the budget automatic retention keeps the store's
	// objects within (0: none); MaxAgeDays the age past which unpinned
	// snapshots are dropped (0: none).
	MaxStoreBytes int64   `json:"maxStoreBytes"`
	MaxAgeDays    float64 `json:"maxAgeDays"`
}

// OpenTurn describes the turn that is open, if any.
type OpenTurn struct {
	Turn    int    `json:"turn"`
	Entry   string `json:"entry"`
	Prompt  string `json:"prompt"`
	Source  string `json:"source"`
	Session string `json:"session,omitempty"`
	Started string `json:"started"`
}

package commands

import (
	"encoding/json"

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// Scope selects a workspace root when a server has several. Every argument
// struct embeds it; the single-root command line ignores it.
type Scope struct {
	// Root selects the workspace root by its path or file:// URI.
	Root string `json:"root,omitempty"`
	// URI names a file (a file:// URI or a root-relative path); without Root, its root is the one selected.
	URI string `json:"uri,omitempty"`
}

// CheckpointArgs is the argument of rewind.checkpoint.
type CheckpointArgs struct {
	Scope
	// Label names the checkpoint, so @label targets it; labeled checkpoints are never dropped by gc.
	Label string `json:"label,omitempty"`
	// Goal says what the checkpoint is for.
	Goal string `json:"goal,omitempty"`
	// Agent makes it an agent's checkpoint, labeled agent-N with the next
	// free N: kept whatever the store's budget only while it is the
	// agent's active one (not yet rewound to, not followed by a newer one
	// of the same connection, its connection still open or its turn
	// still going), then like any turn.
	Agent bool `json:"agent,omitempty"`
	// Conn names the agent's connection (its MCP server), which holds a
	// lock in the store while it runs.
	Conn string `json:"conn,omitempty"`
}

// CheckpointResult is the result of rewind.checkpoint.
type CheckpointResult struct {
	// Entry is the journal entry of the checkpoint.
	Entry journal.EntryID `json:"entry"`
	// Snapshot is the snapshot captured.
	Snapshot journal.Snap `json:"snapshot"`
	// Files counts the files in the snapshot.
	Files int `json:"files"`
	// Label is the checkpoint's label (an agent's: the one it was given).
	Label string `json:"label,omitempty"`
}

// TurnStartArgs is the argument of rewind.turnStart.
type TurnStartArgs struct {
	Scope
	// Prompt is what the agent was asked.
	Prompt string `json:"prompt,omitempty"`
	// Session is the agent session whose turn this is; one turn is open per session.
	Session string `json:"session,omitempty"`
	// Source is who opened the turn (journal.Source). Not part of the
	// wire contract; set by the caller.
	Source journal.Source `json:"-"`
	// Agent names the session's agent ("claude-code"); set by agent hooks,
	// like the transcript fields.
	Agent string `json:"agent,omitempty"`
	// Transcript is the session's conversation file.
	Transcript string `json:"transcript,omitempty"`
	// ForkPoint is where the transcript stood before this prompt: where a
	// conversation rewind to this turn cuts it.
	journal.ForkPoint
	// PromptID is the agent's id of the prompt (Claude Code's prompt_id).
	PromptID string `json:"promptId,omitempty"`
	// Ensure opens the turn only if the session's latest turn is not the
	// turn of PromptID already (open or ended), which is then returned:
	// for agents whose hooks cannot tell when a prompt is sent, so that
	// each of a prompt's events may open its turn.
	Ensure bool `json:"ensure,omitempty"`
}

// TurnStartResult is the result of rewind.turnStart.
type TurnStartResult struct {
	// Entry is the turn's start entry, which names the turn.
	Entry journal.EntryID `json:"entry"`
	// Turn is the turn's number on the active branch.
	Turn int `json:"turn"`
	// Snapshot is the state before the turn.
	Snapshot journal.Snap `json:"snapshot"`
}

// TurnEndArgs is the argument of rewind.turnEnd.
type TurnEndArgs struct {
	Scope
	// Summary says what the turn did.
	Summary string `json:"summary,omitempty"`
	// Session is the agent session whose turn ends.
	Session string `json:"session,omitempty"`
	// ForkPoint is where the transcript stood when the turn ended (agent
	// hooks).
	journal.ForkPoint
	// PromptID, when given, ends the session's open turn only if it is the
	// turn of that prompt (the agent's id of it): a turn end that arrives
	// late, after the next prompt opened its turn, ends nothing.
	PromptID string `json:"promptId,omitempty"`
}

// TurnEndResult is the result of rewind.turnEnd. Entry is empty and Turn 0
// when no turn was open (nothing is recorded then).
type TurnEndResult struct {
	// Entry is the turn's end entry.
	Entry journal.EntryID `json:"entry"`
	// Turn is the number of the turn that ended.
	Turn int `json:"turn"`
	// Snapshot is the state after the turn.
	Snapshot journal.Snap `json:"snapshot"`
	// Changed lists the files the turn changed.
	Changed []FileChange `json:"changed"`
	// What says what the turn changed in all: "3 files changed (+4 -1)".
	What string `json:"what"`
}

// FileChange is one file a turn changed, with line counts.
type FileChange struct {
	// Path is the file, relative to the root.
	Path   string        `json:"path"`
	Change fileop.Change `json:"change"` // create, modify, delete
	// Added counts the lines added.
	Added int `json:"added"`
	// Removed counts the lines removed.
	Removed int    `json:"removed"`
	Kind    string `json:"kind,omitempty"` // "binary" or "symlink": line counts do not apply
	Mode    string `json:"mode,omitempty"` // "+x" or "-x": the executable bit changed
	// What says the change in words: "+3 -1", "binary", "symlink", "mode +x".
	What string `json:"what"`
	// Line is the file's line in a list: "M src/auth.go  +3 -1".
	Line string `json:"line"`
}

// ListArgs is the argument of rewind.list.
type ListArgs struct {
	Scope
	// Limit lists only the latest Limit turns (0: all), and what was
	// recorded among them: checkpoints, rewinds and reports.
	Limit int `json:"limit,omitempty"`
	// Before, a turn number, lists the turns before it (the next page
	// back), and what was recorded among them.
	Before int `json:"before,omitempty"`
	// All includes the turns of abandoned branches.
	All bool `json:"all,omitempty"`
}

// ListResult is the result of rewind.list; every list is oldest first.
type ListResult struct {
	// Turns are the turns of the active branch (with all, of every branch).
	Turns []TurnInfo `json:"turns"`
	// Checkpoints are the checkpoints of the active branch.
	Checkpoints []CheckpointInfo `json:"checkpoints"`
	// Rewinds are every rewind and revert, on any branch.
	Rewinds []RewindInfo `json:"rewinds"`
	// Summaries are the reports kept.
	Summaries []SummaryInfo `json:"summaries"`
	// More says that older turns are left for the next page (Before: the
	// first turn listed).
	More bool `json:"more,omitempty"`
}

// SummaryInfo is one report kept as a summary entry: of a rewind that
// carried one, or of mode summarize. Target is the target as written.
type SummaryInfo struct {
	// Entry is the summary entry.
	Entry journal.EntryID `json:"entry"`
	// Target is the rewind's target as it was written ("3", "@label").
	Target string `json:"target"`
	// Report is what was learnt on the abandoned path.
	Report string `json:"report"`
	// Time is when the report was kept (RFC 3339).
	Time string `json:"time"`
	// Age is how long ago Time was, in words ("5m ago").
	Age string `json:"age"`
	// Title names the report in words, by its rewind's target: "Report
	// since turn 3 (fix auth)".
	Title string `json:"title"`
}

// TurnInfo describes one turn.
type TurnInfo struct {
	// Turn is the turn's number on its branch.
	Turn int `json:"turn"`
	// Entry is the turn's start entry, which names the turn.
	Entry journal.EntryID `json:"entry"`
	// Prompt is what the agent was asked.
	Prompt string `json:"prompt"`
	// Title names the turn in words: "Turn 3: refactor auth to JWT".
	Title string `json:"title"`
	// Summary says what the turn did, when its end said so.
	Summary string `json:"summary"`
	// Started is when the turn started (RFC 3339).
	Started string `json:"started"`
	Ended   string `json:"ended"` // empty while the turn is open
	// Age is how long ago the turn started, in words ("5m ago").
	Age string `json:"age"`
	// Source is who opened the turn: "hook", "cli", "editor", "mcp" or "auto".
	Source journal.Source `json:"source"`
	// Session is the agent session that ran the turn, when a hook said so.
	Session string `json:"session,omitempty"`
	// Agent is the session's agent, by its name in package agent
	// ("claude-code", "codex", "qwen", "opencode"…).
	Agent string `json:"agent,omitempty"`
	// SessionLabel names the session in words, when there is one:
	// "claude-code 6db2232a", "codex …6c0d1a72".
	SessionLabel string `json:"sessionLabel,omitempty"`
	// Changed lists the files the turn changed (empty while it is open).
	Changed []FileChange `json:"changed"`
	// What says what the turn changed in all, once it ended: "3 files
	// changed (+4 -1)", "no files changed".
	What string `json:"what,omitempty"`
	// Abandoned is true for turns off the active branch (only with all).
	Abandoned bool `json:"abandoned,omitempty"`
	// Steps are the turn's tool calls that changed files (an automatic
	// turn's bursts of changes), in order.
	Steps []StepInfo `json:"steps"`
}

// StepInfo describes one step of a turn: a tool call that changed files.
type StepInfo struct {
	// Step is the step's number within its turn.
	Step int `json:"step"`
	// Entry is the step's tool entry.
	Entry journal.EntryID `json:"entry"`
	// Target names the state just before the step, as a target: "3.2".
	Target string `json:"target"`
	// Tool is the tool ("Bash", "Edit"; empty for an automatic turn's
	// burst), and Detail what the call was about (its command, its file).
	Tool   string `json:"tool"`
	Detail string `json:"detail,omitempty"`
	// Time is when the step ended (RFC 3339), and Age how long ago.
	Time string `json:"time"`
	Age  string `json:"age"`
	// Changed lists the files the step changed.
	Changed []FileChange `json:"changed"`
	// What says what it changed in all ("2 files changed (+4 -1)").
	What string `json:"what"`
	// Title names the step: `turn 3, step 2: Bash "npm test"`.
	Title string `json:"title"`
}

// CheckpointInfo describes one checkpoint.
type CheckpointInfo struct {
	// Entry is the checkpoint's entry.
	Entry journal.EntryID `json:"entry"`
	// Label is the checkpoint's label ("" for none).
	Label string `json:"label"`
	// Goal says what the checkpoint is for.
	Goal string `json:"goal"`
	// Time is when it was captured (RFC 3339).
	Time string `json:"time"`
	// Snapshot is the state captured.
	Snapshot journal.Snap `json:"snapshot"`
	// Age is how long ago Time was, in words ("5m ago").
	Age string `json:"age"`
	// Title names the checkpoint in words: "Checkpoint @base: before the
	// refactor", "Checkpoint 0190a0b1-2c3d-7e4f".
	Title string `json:"title"`
}

// RewindInfo describes one rewind.
type RewindInfo struct {
	// Entry is the rewind's entry.
	Entry journal.EntryID `json:"entry"`
	// Target is the target as it was written; for a revert, its turn.
	Target string `json:"target"`
	// Mode is the rewind mode, or "revert".
	Mode journal.Mode `json:"mode"`
	// Time is when it happened (RFC 3339).
	Time string `json:"time"`
	// Undone is true once an undo took it back.
	Undone bool `json:"undone"`
	// Applied is false for a rewind the editor did not apply.
	Applied bool `json:"applied"`
	// Agent names the agent whose own rewind this records (Claude Code's
	// Esc Esc); the fields up to Offered are set only then.
	Agent string `json:"agent,omitempty"`
	// Session is that agent's session.
	Session string `json:"session,omitempty"`
	// Turn is the turn the agent went back to before.
	Turn int `json:"turn,omitempty"`
	// Prompt is that turn's prompt.
	Prompt string `json:"prompt,omitempty"`
	// Files are what rewind-lsp restored beside the agent's own files.
	Files []string `json:"files,omitempty"`
	// Kept are the files it left alone (changed since by someone else).
	Kept []string `json:"kept,omitempty"`
	// Offered are what a code rewind to the target would still restore
	// when the agent restored no file (the editors offer it).
	Offered []string `json:"offered,omitempty"`
	// SessionLabel names the agent's session in words ("claude-code
	// 6db2232a").
	SessionLabel string `json:"sessionLabel,omitempty"`
	// Message says what the agent's own rewind did and what rewind-lsp
	// did about it, in a sentence (the text of rewind/agentRewind).
	Message string `json:"message,omitempty"`
	// Age is how long ago Time was, in words ("5m ago").
	Age string `json:"age"`
	// Title names the rewind in words: "Rewind to turn 3 (fix auth)",
	// "Revert turn 3 (fix auth), later changes kept", "Claude Code rewound
	// to turn 2 (add a cache), conversation only", "… — undone".
	Title string `json:"title"`
}

// PreviewArgs is the argument of rewind.preview.
type PreviewArgs struct {
	Scope
	// Target is where to go (docs/PROTOCOL.md, "Targets").
	Target string `json:"target"`
	// Mode is the rewind mode (default "code").
	Mode string `json:"mode,omitempty"`
	// Paths limit the plan to these files (root-relative paths or file:// URIs).
	Paths []string `json:"paths,omitempty"`
	// Range, with exactly one path, limits the plan to the changed hunks it overlaps.
	Range *Range `json:"range,omitempty"`
}

// RewindArgs is the argument of rewind.rewind.
type RewindArgs struct {
	Scope
	// Target is where to go (docs/PROTOCOL.md, "Targets").
	Target string `json:"target"`
	// Mode is the rewind mode (default "code").
	Mode string `json:"mode,omitempty"`
	// Paths limit the rewind to these files (root-relative paths or file:// URIs).
	Paths []string `json:"paths,omitempty"`
	// Range, with exactly one path, limits the rewind to the changed hunks it overlaps.
	Range *Range `json:"range,omitempty"`
	// Force overwrites conflicts (files changed since they were recorded).
	Force bool `json:"force,omitempty"`
	// Report is what was learnt on the abandoned path; it is kept as a summary entry.
	Report string `json:"report,omitempty"`
	// OwnSince is an entry id (an agent's checkpoint): the changes made
	// since it count as the caller's own, except files the editor saved
	// since or holds unsaved — those stay conflicts. Used by the MCP
	// rewind tool; not an argument editors send.
	OwnSince journal.EntryID `json:"ownSince,omitempty"`
}

// UndoArgs is the argument of rewind.undo.
type UndoArgs struct {
	Scope
	// Force overwrites files changed since the rewind.
	Force bool `json:"force,omitempty"`
}

// RewindResult is the result of rewind.rewind and rewind.undo.
type RewindResult struct {
	// Applied is true once the editor applied the edit and every via-disk file was written.
	Applied bool `json:"applied"`
	// FailureReason says why the rewind was not applied.
	FailureReason string `json:"failureReason,omitempty"`
	// Entry is the rewind's journal entry ("" when nothing was recorded).
	Entry journal.EntryID `json:"entry"`
	// Plan is what the rewind did, or would have done.
	Plan *Plan `json:"plan"`
	// Conversation is set by a rewind with mode conversation or both: the
	// agent's conversation it rewound, or why only the journal moved.
	Conversation *ConversationResult `json:"conversation,omitempty"`
}

// ConversationResult is what a conversation rewind did to the agent's own
// conversation: Agent names the agent (by its name in package agent:
// "claude-code", "codex", "qwen", "opencode"…) with the new session, its conversation file and the command
// that resumes it; or Agent is empty and Reason says why only rewind-lsp's
// journal moved back.
type ConversationResult struct {
	// Agent is the agent whose conversation was forked ("" when none was).
	Agent string `json:"agent"`
	// Session is the new, forked session.
	Session string `json:"session,omitempty"`
	// Transcript is the forked conversation's file.
	Transcript string `json:"transcript,omitempty"`
	// Resume is the command that continues the forked conversation ("claude --resume <id>").
	Resume string `json:"resume,omitempty"`
	// Reason says why only the journal moved.
	Reason string `json:"reason,omitempty"`
}

// Range is an LSP range; only its lines matter to a hunk rewind.
type Range struct {
	// Start is the first position of the range.
	Start Position `json:"start"`
	// End is the position after the range.
	End Position `json:"end"`
}

// Position is an LSP position.
type Position struct {
	// Line is 0-based.
	Line int `json:"line"`
	// Character is 0-based, in the negotiated position encoding.
	Character int `json:"character"`
}

// Plan is what a rewind would do (docs/PROTOCOL.md, "The plan").
type Plan struct {
	// Target names the state the rewind goes to.
	Target PlanTarget `json:"target"`
	// Mode is the rewind mode.
	Mode journal.Mode `json:"mode"`
	// Files are the files the rewind changes, by path.
	Files []PlanFile `json:"files"`
	// Skipped are the files it leaves alone because their content was not captured.
	Skipped []Skipped `json:"skipped"`
	// Conversation is what it does to the conversation.
	Conversation Conversation `json:"conversation"`
	// Diff is the unified diff from the current state to the target, paths relative to the root.
	Diff string `json:"diff"`

	// diff makes Diff when it is first asked for (DiffText, or the plan
	// encoded as JSON): the command line's own output never shows it, and
	// a thousand files' diff takes longer to make than to write the files.
	diff func() string
}

// DiffText returns the plan's Diff, made when first asked for.
func (p *Plan) DiffText() string {
	if p.diff != nil {
		p.Diff, p.diff = p.diff(), nil
	}
	return p.Diff
}

// MarshalJSON encodes the plan, its Diff made first.
func (p *Plan) MarshalJSON() ([]byte, error) {
	p.DiffText()
	type plain Plan
	return json.Marshal((*plain)(p))
}

// PlanTarget names the state a rewind goes to.
type PlanTarget struct {
	// ID is the target entry.
	ID journal.EntryID `json:"id"`
	// Turn is the target turn's number (0 for a checkpoint).
	Turn int `json:"turn"`
	// Step is the target step's number within its turn (0: not a step).
	Step int `json:"step,omitempty"`
	// Label is the target checkpoint's label.
	Label string `json:"label"`
	// Prompt is the target turn's prompt.
	Prompt string `json:"prompt"`
	// Snapshot is the state the rewind restores.
	Snapshot journal.Snap `json:"snapshot"`
	// Kind is the kind of the target entry: "turnStart" (the state before
	// the turn), "turnEnd", "checkpoint", or "rewind" for an undo.
	Kind journal.Kind `json:"kind,omitempty"`
	// Title names the target inside a sentence ("Rewind to …?"): "turn 3
	// (refactor auth)", "the end of turn 3 (refactor auth)", "checkpoint
	// @base", "before the rewind" (an undo's); for a revert, what it takes back.
	Title string `json:"title"`
}

// PlanFile is one file a rewind changes.
type PlanFile struct {
	// Path is the file, relative to the root.
	Path   string        `json:"path"`
	Change fileop.Change `json:"change"` // modify, create, delete
	// Added counts the lines the rewind adds to the file.
	Added int `json:"added"`
	// Removed counts the lines it removes.
	Removed int `json:"removed"`
	// Binary is true for binary or invalid UTF-8 content (no line counts).
	Binary bool `json:"binary"`
	// Conflict is true when the file changed since it was recorded: it is left alone unless forced.
	Conflict bool         `json:"conflict"`
	Via      snapshot.Via `json:"via"`            // edit, disk
	Kind     string       `json:"kind,omitempty"` // "binary" or "symlink": line counts do not apply
	Mode     string       `json:"mode,omitempty"` // "+x" or "-x": the executable bit changes
	// What says the change in words: "+3 -1", "binary", "symlink", "mode +x"
	// (empty for a revert's conflict, whose lines were not counted).
	What string `json:"what,omitempty"`
	// Line is the file's line in a plan: "M src/auth.go  +12 -30", with a
	// note on a conflict ("… (conflict: changed since recorded)").
	Line string `json:"line"`
	// Overlaps, in a revert's plan, names who changed the file since the
	// reverted turn where that turn's change lies ("turn N" or "user"):
	// the file is in conflict and the revert is refused.
	Overlaps []string `json:"overlaps,omitempty"`
}

// Skipped is a file a rewind leaves alone because its content was not captured.
type Skipped struct {
	// Path is the file, relative to the root.
	Path string `json:"path"`
	// Reason says why its content was not captured.
	Reason string `json:"reason"`
}

// Conversation is the conversation part of a plan.
type Conversation struct {
	// EntriesAffected counts the journal entries the conversation part moves off the active branch.
	EntriesAffected int `json:"entriesAffected"`
}

// FileHistoryArgs is the argument of rewind.fileHistory.
type FileHistoryArgs struct {
	Scope
}

// FileHistoryResult is the result of rewind.fileHistory, oldest first.
type FileHistoryResult struct {
	// History lists the turns that changed the file, oldest first.
	History []FileHistoryItem `json:"history"`
}

// FileHistoryItem is one turn that changed the file.
type FileHistoryItem struct {
	// Turn is the turn's number.
	Turn int `json:"turn"`
	// Entry is the turn's start entry.
	Entry journal.EntryID `json:"entry"`
	// Change is what the turn did to the file: create, modify or delete.
	Change fileop.Change `json:"change"`
	// Added counts the lines the turn added.
	Added int `json:"added"`
	// Removed counts the lines the turn removed.
	Removed  int          `json:"removed"`
	Snapshot journal.Snap `json:"snapshot"` // the turn's start snapshot: the file before the turn
	// EndSnapshot is the turn's end snapshot (the file after the turn).
	EndSnapshot journal.Snap `json:"endSnapshot,omitzero"`
	// Prompt is the turn's prompt.
	Prompt string `json:"prompt,omitempty"`
}

// StatusArgs is the argument of rewind.status.
type StatusArgs struct {
	Scope
}

// StatusResult is the result of rewind.status.
type StatusResult struct {
	// Root is the workspace root.
	Root string `json:"root"`
	// Store is the root's store folder.
	Store string `json:"store"`
	// Turns counts the turns of the active branch.
	Turns int `json:"turns"`
	// Snapshots counts the snapshots the journal names.
	Snapshots int `json:"snapshots"`
	// StoreBytes is the size of the store on disk: its objects, the journal
	// and the journal's view (maxStoreBytes bounds the objects alone: the
	// journal is the record, never dropped).
	StoreBytes int64 `json:"storeBytes"`
	// Watching is true while file-system notifications feed captures; false
	// when a running server polls, or on the command line.
	Watching bool `json:"watching"`
	// WatchMode says how changes are seen: "watch", "poll" or "none".
	WatchMode string `json:"watchMode"`
	// PollReason says why a running server rescans the root instead of
	// watching it (the folders outnumber the kernel's watch limit, ...).
	PollReason string `json:"pollReason,omitempty"`
	// OpenTurn is the open turn, or null.
	OpenTurn *OpenTurn `json:"openTurn"`
	// LastCaptureMs is the duration of the last capture this process made.
	LastCaptureMs float64 `json:"lastCaptureMs"`
	// MaxStoreBytes is the budget automatic retention keeps the store's
	// objects within (0: none).
	MaxStoreBytes int64 `json:"maxStoreBytes"`
	// MaxAgeDays is the age past which unpinned snapshots are dropped (0:
	// none).
	MaxAgeDays float64 `json:"maxAgeDays"`
}

// OpenTurn describes the turn that is open, if any.
type OpenTurn struct {
	// Turn is the open turn's number.
	Turn int `json:"turn"`
	// Entry is its start entry.
	Entry journal.EntryID `json:"entry"`
	// Prompt is what the agent was asked.
	Prompt string `json:"prompt"`
	// Title names the turn in words: "Turn 3: refactor auth to JWT".
	Title string `json:"title"`
	// Source is who opened it.
	Source journal.Source `json:"source"`
	// Session is its agent session.
	Session string `json:"session,omitempty"`
	// SessionLabel names the session in words ("claude-code 6db2232a").
	SessionLabel string `json:"sessionLabel,omitempty"`
	// Started is when it started (RFC 3339).
	Started string `json:"started"`
	// Age is how long ago the turn started, in words ("5m ago").
	Age string `json:"age"`
}

package commands

//go:generate go run ./protogen -root ..

import (
	"context"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// The command set, each command defined once (docs/PROTOCOL.md,
// "Commands"). A new command is a Service method, its argument and result
// types, and one entry here; then `go generate ./commands` refreshes the
// editors' protocol files and docs/PROTOCOL.md
// (docs/ARCHITECTURE.md, "Where a new command goes").

// Names of the public commands, the editors' protocol.
const (
	NameCheckpoint  = "rewind.checkpoint"
	NameTurnStart   = "rewind.turnStart"
	NameTurnEnd     = "rewind.turnEnd"
	NameList        = "rewind.list"
	NamePreview     = "rewind.preview"
	NameRewind      = "rewind.rewind"
	NameUndo        = "rewind.undo"
	NameFileHistory = "rewind.fileHistory"
	NameStatus      = "rewind.status"
	NameRevert      = "rewind.revert"
	NameBlame       = "rewind.blame"
)

// NameToolCall is the command that reports an agent's tool call: the hooks'
// own, and the language server's too (not advertised), so an editor or an
// agent over LSP reports its calls as steps.
const NameToolCall = "rewind.toolCall"

// Names of the internal commands: the command line's and the hooks' own,
// which reach a running server through the root's socket only.
const (
	NameRecordSession = "rewind.recordSession"
	NameNotices       = "rewind.notices"
	NameGC            = "rewind.gc"
	NameFsck          = "rewind.fsck"
	NameRecover       = "rewind.recover"
	NameAgentRewind   = "rewind.agentRewind"
	NameAgentTarget   = "rewind.agentTarget"
)

// The public commands, in the order the language server advertises them.
var (
	Checkpoint = define(Spec{Name: NameCheckpoint, Public: true, Mutating: true,
		Progress: "Capturing a checkpoint", Verb: "checkpoint", Tool: "checkpoint",
		Doc: "Captures the workspace as a checkpoint, with an optional label and goal."},
		(*Service).Checkpoint)
	TurnStart = define(Spec{Name: NameTurnStart, Public: true, Mutating: true,
		Progress: "Capturing the workspace", Verb: "turn start",
		Doc: "Opens a turn of a session (ending that session's open turn first) and captures its start."},
		(*Service).TurnStart)
	TurnEnd = define(Spec{Name: NameTurnEnd, Public: true, Mutating: true,
		Progress: "Capturing the workspace", Verb: "turn end",
		Doc: "Ends the session's open turn, captures its end and lists what changed; with no turn open it records nothing."},
		(*Service).TurnEnd)
	List = define(Spec{Name: NameList, Public: true, Verb: "log", Tool: "turns",
		Doc: "Lists turns, checkpoints, rewinds and summaries, oldest first."},
		(*Service).List)
	Preview = define(Spec{Name: NamePreview, Public: true, Progress: "Planning the rewind", Verb: "diff", Tool: "diff",
		Doc: "Computes the plan of a rewind without changing anything."},
		(*Service).Preview)
	Rewind = define(Spec{Name: NameRewind, Public: true, Mutating: true, Progress: "Rewinding", Verb: "rewind", Tool: "rewind",
		Doc: "Rewinds files and/or the conversation to a target, as the mode says."},
		(*Service).Rewind)
	Undo = define(Spec{Name: NameUndo, Public: true, Mutating: true, Progress: "Undoing the last rewind", Verb: "undo",
		Doc: "Undoes the latest rewind or revert not yet undone."},
		(*Service).Undo)
	FileHistory = define(Spec{Name: NameFileHistory, Public: true,
		Doc: "Lists the turns of the active branch that changed a file."},
		(*Service).FileHistory)
	Status = define(Spec{Name: NameStatus, Public: true, Verb: "status",
		Doc: "Reports the root, its store and the open turn."},
		(*Service).Status)
	Revert = define(Spec{Name: NameRevert, Public: true, Mutating: true, Verb: "revert",
		Doc: "Takes back one turn, or every turn of one session, keeping the changes made after it."},
		(*Service).Revert)
	Blame = define(Spec{Name: NameBlame, Public: true, Verb: "blame",
		Doc: "Names, for each run of lines of a file, the agent turn that wrote it."},
		(*Service).Blame)
)

// The internal commands.
var (
	ToolCall = define(Spec{Name: NameToolCall, Reported: true, Mutating: true,
		Doc: "Records one phase of an agent's tool call (pre: before it runs; post: after): the files it wrote, and the step of its turn when it changed files."},
		(*Service).ToolCall)
	RecordSession = define(Spec{Name: NameRecordSession, Mutating: true,
		Doc: "Records that an agent session started, with its agent and transcript."},
		(*Service).RecordSession)
	Notices = define(Spec{Name: NameNotices, Mutating: true,
		Doc: "Takes the words a session has not heard yet (the rewinds, reverts, undos and reports since it last heard), once."},
		(*Service).Notices)
	GC = define(Spec{Name: NameGC, Verb: "gc",
		Doc: "Drops unpinned snapshot content beyond the limits; journal entries stay and say their snapshot is gone."},
		(*Service).GC)
	Fsck = define(Spec{Name: NameFsck, NoRecover: true, Verb: "fsck",
		Doc: "Verifies every stored object and journal entry, naming any damage."},
		(*Service).Fsck)
	Recover = define(Spec{Name: NameRecover, NoRecover: true,
		Doc: "Finishes or rolls back what an interrupted rewind, revert or undo left half done."},
		(*Service).Recover)
	AgentRewind = define(Spec{Name: NameAgentRewind, Mutating: true,
		Doc: "Records an agent's own rewind of its conversation, noticed by its hook, and restores the rest of the dropped turns' changes when the agent restored its own files; after an agent's own rewind tool (oh-my-pi's), restores the files its session changed since its checkpoint."},
		(*Service).AgentRewind)
	AgentTarget = define(Spec{Name: NameAgentTarget,
		Doc: "Finds the recorded state of the files that goes with an entry of an agent's conversation, where the person takes it back in the agent's own interface."},
		(*Service).AgentTarget)
)

// All lists the public commands' names, in the order the language server
// advertises them; Dispatch accepts exactly these.
var All []string

func init() {
	All = publicNames()
	// A turn opened through the language server was opened by the editor,
	// unless the call was forwarded from the command line or a hook.
	TurnStart.fromWire = func(ctx context.Context, a *TurnStartArgs) {
		a.Source = CallOf(ctx).Source
		if a.Source == "" {
			a.Source = journal.SourceEditor
		}
	}
}

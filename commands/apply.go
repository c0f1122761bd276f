package commands

import (
	"context"
	"time"

	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// Overlay gives the content of files an editor holds open. The text of an
// open document is the file's current content for plans, conflicts, undo
// snapshots and edits. A nil Overlay means "disk only".
type Overlay interface {
	// Open returns the editor's text of root-relative path rel and true when
	// the editor holds it open.
	Open(rel string) (text []byte, ok bool)
}

// EditorTouch is an Overlay that knows what the person did in the editor:
// whether it saved rel after since, or holds it with unsaved changes. A
// rewind with RewindArgs.OwnSince refuses exactly those files.
type EditorTouch interface {
	EditorTouched(rel string, since time.Time) bool
}

// OverlayLister is an Overlay that can list the root-relative paths it
// holds open; a running server then patches just those into its captures.
type OverlayLister interface {
	Paths() []string
}

// Applier carries out the file part of a rewind or undo. The command line
// writes the disk; the language server sends one WorkspaceEdit and writes
// the `via: disk` files itself.
type Applier interface {
	Apply(ctx context.Context, ch *Change) error
}

// Change is the file part of one rewind or undo, already checked for
// conflicts: applying it must make every listed file equal to its target.
type Change struct {
	// Root is the absolute workspace root.
	Root string
	// Label is the human title of the edit ("Rewind to turn 3: fix auth").
	Label string
	// Tag names the operation's temporary files (snapshot.Writer).
	Tag string
	// Files are the files to change, sorted by path.
	Files []ChangeFile
}

// ChangeFile is one file of a Change: the file operation the workspace
// planned, as snapshot.Writer carries it out — Path (root-relative,
// slash-separated), Change, Before (the current content: the open
// buffer's text when the file is open in the editor; nil for a create),
// After (the target content, a link's target; nil for a delete), their
// kinds (BeforeKind none for a create, AfterKind none for a delete), and
// Via, decided by the workspace (workspace.ViaPolicy): snapshot.ViaEdit
// files go in the editor's edit, snapshot.ViaDisk files are written by
// snapshot.Writer.
type ChangeFile struct {
	snapshot.FileOp
	// Open is true when the editor holds the file open.
	Open bool
}

// The errors of the command set, declared once in package workspace (which
// raises them) and named here for the clients; each wire maps them once
// (the socket in remote.go, the language server, the MCP server, the
// command line's exit status).
type (
	// NotAppliedError reports that the editor (or the disk) did not apply
	// a change; Reason becomes the result's failureReason.
	NotAppliedError = workspace.NotAppliedError
	// ArgError is a bad command argument; Field names the offending field.
	ArgError = workspace.ArgError
	// RefusedError is a request refused for a reason the user can fix: a
	// conflict, nothing to undo. The command line exits 3 on it.
	RefusedError = workspace.RefusedError
)

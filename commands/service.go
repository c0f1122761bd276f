package commands

import (
	"context"
	"errors"
)

// Options configure a Service for one workspace root.
type Options struct {
	// Root is the workspace root (made absolute by Open).
	Root string
	// StoreDir overrides the store location (SPEC §2); empty means default.
	StoreDir string
	// Actor records who acts: "cli", "hook", "editor".
	Actor string
	// Overlay gives open editor buffers; nil on the command line.
	Overlay Overlay
	// Applier applies rewinds; nil writes the disk directly.
	Applier Applier
	// MaxFileBytes bounds captured file size; 0 means 10 MiB.
	MaxFileBytes int64
}

// Service is the typed command set of SPEC §5.1 for one root. The command
// line and the language server both call it. It is safe for concurrent use.
type Service struct {
	opts Options
}

var errTODO = errors.New("not implemented yet")

// Open opens (creating if needed) the store of opts.Root.
func Open(opts Options) (*Service, error) { return &Service{opts: opts}, nil }

// Close releases the service's resources.
func (s *Service) Close() error { return nil }

// Root is the absolute workspace root.
func (s *Service) Root() string { return s.opts.Root }

// StoreDir is the store folder of the root.
func (s *Service) StoreDir() string { return s.opts.StoreDir }

// JournalPath is the journal file; it changes whenever any process appends.
func (s *Service) JournalPath() string { return "" }

// Checkpoint captures a labeled checkpoint.
func (s *Service) Checkpoint(ctx context.Context, a CheckpointArgs) (*CheckpointResult, error) {
	return nil, errTODO
}

// TurnStart opens a turn (ending an open one first).
func (s *Service) TurnStart(ctx context.Context, a TurnStartArgs) (*TurnStartResult, error) {
	return nil, errTODO
}

// TurnEnd ends the open turn; with none open it records nothing.
func (s *Service) TurnEnd(ctx context.Context, a TurnEndArgs) (*TurnEndResult, error) {
	return nil, errTODO
}

// List lists turns, checkpoints and rewinds, oldest first.
func (s *Service) List(ctx context.Context, a ListArgs) (*ListResult, error) { return nil, errTODO }

// Preview computes the plan of a rewind without changing anything.
func (s *Service) Preview(ctx context.Context, a PreviewArgs) (*Plan, error) { return nil, errTODO }

// Rewind rewinds files and/or the conversation (SPEC §3, §5.2).
func (s *Service) Rewind(ctx context.Context, a RewindArgs) (*RewindResult, error) {
	return nil, errTODO
}

// Undo undoes the latest rewind not yet undone.
func (s *Service) Undo(ctx context.Context, a UndoArgs) (*RewindResult, error) {
	return nil, errTODO
}

// FileHistory lists the turns on the active branch that changed a file.
func (s *Service) FileHistory(ctx context.Context, a FileHistoryArgs) (*FileHistoryResult, error) {
	return nil, errTODO
}

// Status reports the state of the root's store.
func (s *Service) Status(ctx context.Context, a StatusArgs) (*StatusResult, error) {
	return nil, errTODO
}

// Content returns a file's content in a snapshot (for rewind:/ URIs) and
// its kind ("file", "exec", "symlink"). It fails for a missing path or a
// snapshot whose content is gone.
func (s *Service) Content(snapshot, rel string) ([]byte, string, error) {
	return nil, "", errTODO
}

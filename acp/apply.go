package acp

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// applier is the proxy's commands.Applier: a rewind's text files that
// change go to the editor as fs/write_text_file, so they land in its
// buffers, when the editor offers it; everything else — creates and
// deletes (ACP has no delete), binary files, modes, links, an editor
// without fs/write_text_file — is written on disk by snapshot.Writer, as
// the command line does. It serves the rewinds this process runs; a
// language server running for the root runs them itself, on disk.
type applier struct {
	p *Proxy

	mu      sync.Mutex
	session string // the session whose prompt asked for the rewind
}

var (
	_ commands.Applier     = (*applier)(nil)
	_ commands.ResourceOps = (*applier)(nil)
)

// use names the session the next rewinds are asked from: the editor
// writes files for a session.
func (a *applier) use(session string) {
	a.mu.Lock()
	a.session = session
	a.mu.Unlock()
}

// ResourceOps implements commands.ResourceOps: creates and deletes go by
// disk.
func (a *applier) ResourceOps() bool { return false }

// Apply implements commands.Applier.
func (a *applier) Apply(ctx context.Context, ch *commands.Change) error {
	a.mu.Lock()
	session := a.session
	a.mu.Unlock()
	a.p.mu.Lock()
	editor := a.p.fsWrite && session != ""
	a.p.mu.Unlock()

	w, err := snapshot.OpenWriter(ch.Root, ch.Tag)
	if err != nil {
		return err
	}
	defer w.Close()
	var disk []snapshot.FileOp
	var edits []commands.ChangeFile
	for _, f := range ch.Files {
		if editor && f.Via == snapshot.ViaEdit && f.Change == fileop.Modify && utf8.Valid(f.After) {
			edits = append(edits, f)
			continue
		}
		disk = append(disk, f.FileOp)
	}
	for _, f := range edits {
		abs := filepath.Join(ch.Root, filepath.FromSlash(f.Path))
		if _, err := a.p.request(ctx, "fs/write_text_file", map[string]any{"sessionId": session, "path": abs, "content": string(f.After)}); err != nil {
			return &commands.NotAppliedError{Reason: err.Error()}
		}
		// An editor that kept the text in its buffer without saving it:
		// the disk follows.
		if got, err := os.ReadFile(abs); err != nil || !bytes.Equal(got, f.After) {
			disk = append(disk, snapshot.FileOp{Path: f.Path, Change: fileop.Modify, Before: got, After: f.After, AfterKind: f.AfterKind, BeforeKind: f.BeforeKind})
		}
	}
	if err := w.Apply(disk); err != nil {
		return &commands.NotAppliedError{Reason: err.Error()}
	}
	return w.Sync()
}

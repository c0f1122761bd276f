package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/sourcegraph/jsonrpc2"
)

// applier is the commands.Applier of one workspace folder: it turns an
// operation's Change into one workspace/applyEdit (docs/PROTOCOL.md,
// "Applying a rewind"), checks that
// the editor applied it, and writes the files the workspace sent `via: disk`.
// How each file travels was decided by the workspace (workspace.ViaPolicy);
// the applier only translates.
type applier struct {
	s *Server
	f *folder
}

// ResourceOps implements commands.ResourceOps: true when the client creates
// and deletes files itself (it lists both in resourceOperations); otherwise
// the workspace sends creates and deletes `via: disk`.
func (a *applier) ResourceOps() bool {
	return a.s.caps.createFiles && a.s.caps.deleteFiles
}

// Apply implements commands.Applier: the `via: edit` files travel in one
// WorkspaceEdit; the `via: disk` ones are written with snapshot.Writer once
// the editor applied the edit (an open buffer of such a text file is edited
// to the same text, so the editor shows it); the folders the editor's
// deletes emptied are pruned, as on the command line.
func (a *applier) Apply(ctx context.Context, ch *commands.Change) error {
	root := ch.Root
	if root == "" {
		root = a.f.path
	}
	files := append([]commands.ChangeFile(nil), ch.Files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })

	var edits []editFile
	var disk []snapshot.FileOp
	verify := map[string]sentDoc{} // open documents and the text they must end with
	for _, cf := range files {
		if !snapshot.ValidPath(cf.Path) {
			return fmt.Errorf("rewind of %s: invalid path %q", root, cf.Path)
		}
		d, open := a.openDoc(root, cf.Path)
		// URIs use the folder as the client named it.
		ef := editFile{rel: cf.Path, uri: uriFromPath(filepath.Join(a.f.path, filepath.FromSlash(cf.Path))),
			change: cf.Change, before: string(cf.Before), after: string(cf.After)}
		if cf.Via == snapshot.ViaDisk {
			disk = append(disk, cf.FileOp)
			// The buffer of a text file written on disk follows.
			if !(open && cf.Change != fileop.Delete && cf.AfterKind != snapshot.KindSymlink && editableText(cf.After) &&
				(cf.Change == fileop.Create || a.s.docs.holds(d.text, cf.Before) && editableText(cf.Before))) {
				continue
			}
			ef.change, ef.before = fileop.Modify, d.text
		}
		switch {
		case open && !a.s.docs.holds(d.text, []byte(ef.before)):
			return &commands.NotAppliedError{Reason: fmt.Sprintf(
				"%s changed in the editor while the rewind was being prepared; try again", cf.Path)}
		case !open && cf.Open:
			return &commands.NotAppliedError{Reason: fmt.Sprintf(
				"%s was closed in the editor while the rewind was being prepared; try again", cf.Path)}
		case open:
			v := d.version
			ef.uri, ef.version = d.uri, &v
			if ef.change != fileop.Delete {
				verify[d.path] = sentDoc{text: ef.after, before: d.text, version: v}
			}
		}
		edits = append(edits, ef)
	}

	w, err := snapshot.OpenWriter(root, ch.Tag)
	if err != nil {
		return err
	}
	defer w.Close()
	t0 := time.Now()
	b := buildEdit(edits, a.s.caps, a.s.caps.enc)
	t1 := time.Now()
	for _, rel := range b.creates {
		if err := w.MakeParents(rel); err != nil {
			return &commands.NotAppliedError{Reason: err.Error()}
		}
	}
	t2 := t1
	if !b.empty {
		if err := a.send(ctx, ch.Label, b.edit); err != nil {
			return err
		}
		t2 = time.Now()
		if err := a.verify(ctx, verify); err != nil {
			return err
		}
	}
	t3 := time.Now()
	// The editor applied its part: prune what its deletes emptied, then
	// write the files that go by disk.
	for _, ef := range edits {
		if ef.change == fileop.Delete {
			if err := w.Prune(ef.rel); err != nil {
				a.s.log.Printf("%s: %v", ch.Label, err)
			}
		}
	}
	if err := w.Apply(disk); err != nil {
		return &commands.NotAppliedError{Reason: err.Error()}
	}
	if err := w.Sync(); err != nil {
		return err
	}
	for _, op := range disk {
		if d, ok := a.s.docs.byPath(filepath.Join(root, filepath.FromSlash(op.Path))); ok {
			a.s.docs.setGone(d.path, op.Change == fileop.Delete)
		}
	}
	a.s.log.Printf("%s: %d files by edit, %d by the server; edit built in %v, the editor answered in %v, verified in %v, disk written in %v",
		ch.Label, len(edits), len(disk), t1.Sub(t0).Round(time.Microsecond), t2.Sub(t1).Round(time.Microsecond),
		t3.Sub(t2).Round(time.Microsecond), time.Since(t3).Round(time.Microsecond))
	return nil
}

// sentDoc is what an open document must hold once the editor applied the
// edit, and what it held (text and version) when the edit was sent.
type sentDoc struct {
	text, before string
	version      int
}

// echoGrace is how long the server waits for an editor's didChange after
// its applyEdit answer before trusting the answer alone: Emacs eglot sends
// the change only when idle, a second or two later.
const echoGrace = 300 * time.Millisecond

// verify checks that the open documents hold the rewound text once the
// editor answered. A document changed to anything else was edited over, or
// its editor skipped the edit as stale: not applied. A document with no
// change at all since the edit was sent is trusted after echoGrace — its
// editor answers before it reports the change — and checked again later.
func (a *applier) verify(ctx context.Context, want map[string]sentDoc) error {
	if len(want) == 0 {
		return nil
	}
	texts := map[string]string{}
	for p, w := range want {
		texts[p] = w.text
	}
	start := time.Now()
	for {
		wait := a.s.verifyTimeout - time.Since(start)
		if g := echoGrace - time.Since(start); g > 0 {
			wait = g
		}
		differ := a.s.docs.waitFor(ctx, texts, wait)
		if len(differ) == 0 {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var silent []string
		for _, p := range differ {
			if d, ok := a.s.docs.byPath(p); ok && d.version == want[p].version && d.text == want[p].before {
				silent = append(silent, p)
			}
		}
		switch {
		case time.Since(start) < echoGrace:
			continue
		case len(silent) == len(differ):
			a.s.log.Printf("the editor answered applyEdit before sending its changes of %s: trusting its answer", a.relNames(silent))
			go a.verifyLater(silent, texts)
			return nil
		case time.Since(start) < a.s.verifyTimeout:
			continue
		}
		return &commands.NotAppliedError{Reason: fmt.Sprintf(
			"the editor reported the edit applied, but %s does not hold the rewound text (the edit was probably skipped as stale)",
			a.relNames(differ))}
	}
}

// verifyLater checks, a while after a trusted answer, that the documents
// reached their rewound text, and logs the ones that did not.
func (a *applier) verifyLater(paths []string, texts map[string]string) {
	want := map[string]string{}
	for _, p := range paths {
		want[p] = texts[p]
	}
	if differ := a.s.docs.waitFor(context.Background(), want, 10*time.Second); len(differ) > 0 {
		a.s.log.Printf("warning: %s still does not hold the rewound text 10 s after the editor reported the edit applied", a.relNames(differ))
	}
}

// send sends the edit and maps a refusal to a NotAppliedError.
func (a *applier) send(ctx context.Context, label string, edit workspaceEdit) error {
	var res applyWorkspaceEditResult
	// The store stays locked while the editor applies the edit, and agent
	// hooks wait on that lock: an editor that never answers must not hang
	// them.
	cctx, cancel := context.WithTimeout(ctx, a.s.applyTimeout)
	defer cancel()
	err := a.s.conn.Call(cctx, "workspace/applyEdit", applyWorkspaceEditParams{Label: label, Edit: edit}, &res)
	var rpcErr *jsonrpc2.Error
	switch {
	case err == nil:
	case errors.As(err, &rpcErr):
		return &commands.NotAppliedError{Reason: "the editor refused the edit: " + rpcErr.Message}
	case ctx.Err() != nil:
		return ctx.Err()
	case cctx.Err() != nil:
		return &commands.NotAppliedError{Reason: fmt.Sprintf(
			"the editor did not answer workspace/applyEdit within %v; it may still apply the edit, check before retrying", a.s.applyTimeout)}
	default:
		return fmt.Errorf("sending workspace/applyEdit: %w", err)
	}
	if !res.Applied {
		reason := res.FailureReason
		if reason == "" {
			reason = "the editor did not apply the edit"
		}
		return &commands.NotAppliedError{Reason: reason}
	}
	return nil
}

// openDoc returns the open document of rel, under the root as the client
// or as the service names it.
func (a *applier) openDoc(root, rel string) (document, bool) {
	for _, r := range append([]string{root}, a.f.roots()...) {
		if d, ok := a.s.docs.byPath(filepath.Join(r, filepath.FromSlash(rel))); ok && !d.gone {
			return d, true
		}
	}
	return document{}, false
}

func (a *applier) relNames(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = p
		if rel, ok := a.f.rel(p); ok {
			names[i] = rel
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

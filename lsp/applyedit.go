package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/sourcegraph/jsonrpc2"
)

// applier is the commands.Applier of one workspace folder: it turns a
// rewind's Change into one workspace/applyEdit (SPEC §5.2), checks that the
// editor really applied it, and writes the files an edit cannot carry.
type applier struct {
	s *Server
	f *folder
}

// ResourceOps implements commands.ResourceOps: true when the client creates
// and deletes files itself (it lists both in resourceOperations); otherwise
// the plan sends creates and deletes `via: disk` and the server does them.
func (a *applier) ResourceOps() bool {
	return a.s.caps.createFiles && a.s.caps.deleteFiles
}

// editFile is one file of a Change that travels in the WorkspaceEdit.
type editFile struct {
	rel, uri      string
	change        string // create, modify, delete
	before, after string
	kind          string
	version       *int // the open document's version; nil when not open
}

// serverOp is a file the server changes on disk itself.
type serverOp struct {
	rel    string
	delete bool
	data   []byte
	kind   string
}

// builtEdit is a WorkspaceEdit and the disk work around it.
type builtEdit struct {
	edit    workspaceEdit
	empty   bool
	creates []string   // CreateFile targets: their folders must exist first
	server  []serverOp // done by the server after the client applied the edit
}

// buildEdit builds the WorkspaceEdit for files: creates, then text edits,
// then deletes. Resource operations are used only when the client lists them
// in resourceOperations; otherwise the server creates and deletes on disk.
// Clients with neither documentChanges nor resource operations get the
// `changes` form.
func buildEdit(files []editFile, caps clientCaps, enc encoding) builtEdit {
	var b builtEdit
	useDC := caps.documentChanges || caps.createFiles || caps.deleteFiles
	var creates, edits, deletes []documentChange
	changes := map[string][]TextEdit{}
	diffs := computeAll(files, enc)
	for i, f := range files {
		if f.before == "" && f.after != "" && f.change == "modify" {
			diffs[i] = fillEmpty(f.after, caps)
		}
	}
	addEdits := func(f editFile, te []TextEdit) {
		if len(te) == 0 {
			return
		}
		if useDC {
			edits = append(edits, documentChange{Edit: &textDocumentEdit{
				TextDocument: optionalVersionedTextDocumentIdentifier{URI: f.uri, Version: f.version},
				Edits:        te,
			}})
		} else {
			changes[f.uri] = te
		}
	}
	for i, f := range files {
		switch f.change {
		case "create":
			if f.version != nil {
				// The editor holds a buffer of the missing file. A CreateFile
				// would make an empty file that the editor may load into the
				// buffer; the server writes the target instead, and the
				// buffer is edited to it.
				b.server = append(b.server, serverOp{rel: f.rel, data: []byte(f.after), kind: f.kind})
				addEdits(f, diffs[i])
				continue
			}
			if !useDC || !caps.createFiles {
				b.server = append(b.server, serverOp{rel: f.rel, data: []byte(f.after), kind: f.kind})
				continue
			}
			creates = append(creates, documentChange{Create: &createFile{
				Kind: "create", URI: f.uri, Options: &createFileOptions{IgnoreIfExists: true},
			}})
			b.creates = append(b.creates, f.rel)
			if f.after != "" {
				addEdits(f, fillEmpty(f.after, caps))
			}
		case "delete":
			if !useDC || !caps.deleteFiles {
				b.server = append(b.server, serverOp{rel: f.rel, delete: true})
				continue
			}
			deletes = append(deletes, documentChange{Delete: &deleteFile{
				Kind: "delete", URI: f.uri, Options: &deleteFileOptions{IgnoreIfNotExists: true},
			}})
		default:
			addEdits(f, diffs[i])
		}
	}
	if useDC {
		b.edit.DocumentChanges = append(append(creates, edits...), deletes...)
		b.empty = len(b.edit.DocumentChanges) == 0
	} else {
		b.edit.Changes = changes
		b.empty = len(changes) == 0
	}
	return b
}

// computeAll computes the text edits of every file that needs them (the
// modified ones and creates into open buffers), on all CPUs.
func computeAll(files []editFile, enc encoding) [][]TextEdit {
	out := make([][]TextEdit, len(files))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				out[i] = computeEdits(files[i].before, files[i].after, enc)
			}
		}()
	}
	for i, f := range files {
		if f.change == "modify" || f.change == "create" && f.version != nil {
			work <- i
		}
	}
	close(work)
	wg.Wait()
	return out
}

// Apply implements commands.Applier.
func (a *applier) Apply(ctx context.Context, ch *commands.Change) error {
	root := ch.Root
	if root == "" {
		root = a.f.path
	}
	files := append([]commands.ChangeFile(nil), ch.Files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })

	var edits []editFile
	var disk []serverOp
	verify := map[string]string{} // open documents and the text they must end with
	for _, cf := range files {
		if err := checkRel(cf.Path); err != nil {
			return fmt.Errorf("rewind of %s: %w", root, err)
		}
		d, open := a.openDoc(root, cf.Path)
		byEdit := viaEdit(cf)
		if !byEdit {
			disk = append(disk, serverOp{rel: cf.Path, delete: cf.Change == "delete", data: cf.After, kind: cf.Kind})
			// An open buffer of a text file written on disk (a mode change,
			// or a create for a client without resource operations)
			// follows through the edit too, so the editor shows the target.
			if !(open && cf.Change != "delete" && cf.Kind != "symlink" && editableText(cf.After) &&
				(cf.Change == "create" || d.text == string(cf.Before) && editableText(cf.Before))) {
				continue
			}
		}
		// URIs use the folder as the client named it.
		ef := editFile{rel: cf.Path, uri: uriFromPath(filepath.Join(a.f.path, filepath.FromSlash(cf.Path))),
			change: cf.Change, before: string(cf.Before), after: string(cf.After), kind: cf.Kind}
		if open && cf.Change == "create" {
			// The file is missing on disk but the editor still holds its
			// buffer (deleted behind it): the buffer is edited to the target.
			ef.before = d.text
		}
		if !byEdit {
			ef.change = "modify" // only the buffer: the server writes the file
		}
		switch {
		case open && d.text != ef.before:
			return &commands.NotAppliedError{Reason: fmt.Sprintf(
				"%s changed in the editor while the rewind was being prepared; try again", cf.Path)}
		case !open && cf.Open:
			return &commands.NotAppliedError{Reason: fmt.Sprintf(
				"%s was closed in the editor while the rewind was being prepared; try again", cf.Path)}
		case open:
			v := d.version
			ef.uri, ef.version = d.uri, &v
			if cf.Change != "delete" {
				verify[d.path] = ef.after
			}
		}
		edits = append(edits, ef)
	}

	t0 := time.Now()
	b := buildEdit(edits, a.s.caps, a.s.caps.enc)
	t1 := time.Now()
	for _, rel := range b.creates {
		if err := makeParents(root, rel); err != nil {
			return &commands.NotAppliedError{Reason: err.Error()}
		}
	}
	t2 := t1
	if !b.empty {
		if err := a.send(ctx, ch.Label, b.edit); err != nil {
			return err
		}
		t2 = time.Now()
		if differ := a.s.docs.waitFor(ctx, verify, a.s.verifyTimeout); len(differ) > 0 {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &commands.NotAppliedError{Reason: fmt.Sprintf(
				"the editor reported the edit applied, but %s does not hold the rewound text (the edit was probably skipped as stale)",
				a.relNames(differ))}
		}
	}
	t3 := time.Now()
	// Server-side work: creates and deletes the client could not do, then
	// the files that went via disk; deletes last.
	ops := append(b.server, disk...)
	sort.SliceStable(ops, func(i, j int) bool { return !ops[i].delete && ops[j].delete })
	for _, op := range ops {
		var err error
		if op.delete {
			err = removeFile(root, op.rel)
		} else {
			err = writeFile(root, op.rel, op.data, op.kind)
		}
		if d, ok := a.s.docs.byPath(filepath.Join(root, filepath.FromSlash(op.rel))); ok && err == nil {
			a.s.docs.setGone(d.path, op.delete)
		}
		if err != nil {
			return &commands.NotAppliedError{Reason: err.Error()}
		}
	}
	for _, ef := range edits {
		if ef.change == "create" && ef.kind == "exec" {
			if err := setExec(root, ef.rel, true); err != nil {
				a.s.log.Printf("setting the executable bit of %s: %v", ef.rel, err)
			}
		}
	}
	a.s.log.Printf("%s: %d files by edit, %d by the server; edit built in %v, the editor answered in %v, verified in %v, disk written in %v",
		ch.Label, len(edits), len(ops), t1.Sub(t0).Round(time.Microsecond), t2.Sub(t1).Round(time.Microsecond),
		t3.Sub(t2).Round(time.Microsecond), time.Since(t3).Round(time.Microsecond))
	return nil
}

// viaEdit reports whether a file can travel as a text edit; anything else
// (binary, invalid UTF-8, symlinks) is written by the server.
func viaEdit(cf commands.ChangeFile) bool {
	if cf.Via == "disk" || cf.Kind == "symlink" {
		return false
	}
	return editableText(cf.Before) && editableText(cf.After)
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

// fillEmpty is the edit that fills an empty document with text.
func fillEmpty(text string, caps clientCaps) []TextEdit {
	te := TextEdit{NewText: text}
	if caps.wholeFirstLine {
		te.Range.End = Position{Line: 1}
	}
	return []TextEdit{te}
}

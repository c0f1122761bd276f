package lsp

import (
	"runtime"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/fileop"
)

// editFile is one file of a Change that travels in the WorkspaceEdit.
type editFile struct {
	rel, uri      string
	change        fileop.Change
	before, after string
	version       *int // the open document's version; nil when not open
}

// builtEdit is a WorkspaceEdit and the folders its creates need.
type builtEdit struct {
	edit    workspaceEdit
	empty   bool
	creates []string // CreateFile targets: their folders must exist first
}

// buildEdit builds the WorkspaceEdit for files: creates, then text edits,
// then deletes. Creates and deletes only come for clients that
// do them: the workspace sends the others `via: disk`. Clients with neither
// documentChanges nor resource operations get the `changes` form.
func buildEdit(files []editFile, caps clientCaps, enc encoding) builtEdit {
	var b builtEdit
	useDC := caps.documentChanges || caps.createFiles || caps.deleteFiles
	var creates, edits, deletes []documentChange
	changes := map[string][]TextEdit{}
	diffs := computeAll(files, enc)
	for i, f := range files {
		if f.before == "" && f.after != "" && f.change == fileop.Modify {
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
		case fileop.Create:
			creates = append(creates, documentChange{Create: &createFile{
				Kind: "create", URI: f.uri, Options: &createFileOptions{IgnoreIfExists: true},
			}})
			b.creates = append(b.creates, f.rel)
			if f.after != "" {
				addEdits(f, fillEmpty(f.after, caps))
			}
		case fileop.Delete:
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

// computeAll computes the text edits of every modified file, on all CPUs.
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
		if f.change == fileop.Modify {
			work <- i
		}
	}
	close(work)
	wg.Wait()
	return out
}

// fillEmpty is the edit that fills an empty document with text.
func fillEmpty(text string, caps clientCaps) []TextEdit {
	te := TextEdit{NewText: text}
	if caps.wholeFirstLine {
		te.Range.End = Position{Line: 1}
	}
	return []TextEdit{te}
}

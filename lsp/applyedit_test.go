package lsp

import (
	"encoding/json"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/fileop"
)

func intp(v int) *int { return &v }

// goldenFiles is a small rewind: an open document with astral characters
// before the change, a file not open, one without a final newline, a
// create and a delete.
func goldenFiles() []editFile {
	return []editFile{
		{rel: "del.txt", uri: "file:///w/del.txt", change: fileop.Create, after: "restored\r\nfile\r\n"},
		{rel: "mod.go", uri: "file:///w/mod.go", change: fileop.Modify, version: intp(7),
			before: "// 😀 𝄞\nfunc A() int { return 42 }\nfunc B() {}\n",
			after:  "// 😀 𝄞\nfunc A() int { return 1 }\nfunc B() {}\n"},
		{rel: "new file.txt", uri: "file:///w/new%20file.txt", change: fileop.Delete, before: "agent's\n"},
		{rel: "noeol.txt", uri: "file:///w/noeol.txt", change: fileop.Modify,
			before: "first\nlast 𝄞 changed", after: "first\nlast 𝄞"},
	}
}

func TestWorkspaceEditGolden(t *testing.T) {
	forms := map[string]workspaceEdit{}
	for name, caps := range map[string]clientCaps{
		"vscode (documentChanges, resource operations)": {documentChanges: true, createFiles: true, deleteFiles: true},
		"neovim (resource operations only)":             {createFiles: true, deleteFiles: true},
		"documentChanges without resource operations":   {documentChanges: true},
		"plain (neither)":                               {},
	} {
		// The workspace sends creates and deletes `via: disk` to clients
		// without resource operations: they never reach buildEdit.
		files := goldenFiles()
		if !caps.createFiles {
			files = onlyModified(files)
		}
		b := buildEdit(files, caps, encUTF16)
		forms[name] = b.edit
		want := 0
		for _, f := range files {
			if f.change == fileop.Create {
				want++
			}
		}
		if len(b.creates) != want {
			t.Errorf("%s: creates %v", name, b.creates)
		}
	}
	golden(t, "workspaceedit.golden.json", forms)

	// Every form applies to the exact targets.
	for name, we := range forms {
		for _, f := range goldenFiles() {
			var edits []TextEdit
			for _, dc := range we.DocumentChanges {
				if dc.Edit != nil && dc.Edit.TextDocument.URI == f.uri {
					edits = append(edits, dc.Edit.Edits...)
				}
			}
			edits = append(edits, we.Changes[f.uri]...)
			if f.change == fileop.Delete || (f.change == fileop.Create && len(edits) == 0) {
				continue
			}
			got, err := editorApply(f.before, edits, false)
			if err != nil || got != f.after {
				t.Errorf("%s: %s: got %q, %v; want %q", name, f.rel, got, err, f.after)
			}
		}
	}
}

func onlyModified(fs []editFile) []editFile {
	var out []editFile
	for _, f := range fs {
		if f.change == fileop.Modify {
			out = append(out, f)
		}
	}
	return out
}

func TestWorkspaceEditJSON(t *testing.T) {
	b := buildEdit([]editFile{{uri: "file:///w/a", change: fileop.Modify, before: "a\n", after: "a\n"}}, clientCaps{createFiles: true, deleteFiles: true}, encUTF16)
	if !b.empty {
		t.Fatalf("no change must give an empty edit: %+v", b)
	}
	raw, _ := json.Marshal(documentChange{Edit: &textDocumentEdit{TextDocument: optionalVersionedTextDocumentIdentifier{URI: "file:///x"}}})
	if string(raw) != `{"textDocument":{"uri":"file:///x","version":null},"edits":[]}` {
		t.Fatalf("text document edit JSON: %s", raw)
	}
	var dc documentChange
	if err := json.Unmarshal([]byte(`{"kind":"delete","uri":"file:///x","options":{"ignoreIfNotExists":true}}`), &dc); err != nil || dc.Delete == nil || !dc.Delete.Options.IgnoreIfNotExists {
		t.Fatalf("delete round trip: %+v %v", dc, err)
	}
}

func TestParseRewindURI(t *testing.T) {
	for uri, want := range map[string]string{
		"rewind:/abc123/src/a%20b.go":  "abc123 src/a b.go",
		"rewind:///abc123/x.txt":       "abc123 x.txt",
		"rewind://abc123/dir/x.txt":    "abc123 dir/x.txt",
		"rewind:/abc123/x.txt?root=/w": "abc123 x.txt",
	} {
		snap, rel, err := parseRewindURI(uri)
		if err != nil || snap+" "+rel != want {
			t.Errorf("%s: %q %q %v; want %s", uri, snap, rel, err, want)
		}
	}
	for _, bad := range []string{"file:///x", "rewind:/only", "rewind:/s/../etc/passwd"} {
		if _, _, err := parseRewindURI(bad); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}

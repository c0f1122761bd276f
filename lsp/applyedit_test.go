package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func intp(v int) *int { return &v }

// goldenFiles is a small rewind: an open document with astral characters
// before the change, a file not open, one without a final newline, a
// create and a delete.
func goldenFiles() []editFile {
	return []editFile{
		{rel: "del.txt", uri: "file:///w/del.txt", change: "create", after: "restored\r\nfile\r\n", kind: "file"},
		{rel: "mod.go", uri: "file:///w/mod.go", change: "modify", version: intp(7),
			before: "// 😀 𝄞\nfunc A() int { return 42 }\nfunc B() {}\n",
			after:  "// 😀 𝄞\nfunc A() int { return 1 }\nfunc B() {}\n"},
		{rel: "new file.txt", uri: "file:///w/new%20file.txt", change: "delete", before: "agent's\n"},
		{rel: "noeol.txt", uri: "file:///w/noeol.txt", change: "modify",
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
		b := buildEdit(goldenFiles(), caps, encUTF16)
		forms[name] = b.edit
		switch {
		case caps.createFiles:
			if len(b.server) != 0 || len(b.creates) != 1 {
				t.Errorf("%s: server ops %v, creates %v", name, b.server, b.creates)
			}
		default:
			if len(b.server) != 2 {
				t.Errorf("%s: want the create and the delete done by the server, got %v", name, b.server)
			}
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
			if f.change == "delete" || (f.change == "create" && len(edits) == 0) {
				continue
			}
			got, err := editorApply(f.before, edits, false)
			if err != nil || got != f.after {
				t.Errorf("%s: %s: got %q, %v; want %q", name, f.rel, got, err, f.after)
			}
		}
	}
}

func TestWorkspaceEditJSON(t *testing.T) {
	b := buildEdit([]editFile{{uri: "file:///w/a", change: "modify", before: "a\n", after: "a\n"}}, clientCaps{createFiles: true, deleteFiles: true}, encUTF16)
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

func TestDiskWrites(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := writeFile(root, "a/b/c.sh", []byte("#!/bin/sh\n"), "exec"); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(root, "a/b/c.sh"))
	if fi.Mode().Perm() != 0o755 {
		t.Fatalf("exec mode %v", fi.Mode())
	}
	os.Chmod(filepath.Join(root, "a/b/c.sh"), 0o700)
	if err := writeFile(root, "a/b/c.sh", []byte("#!/bin/sh\necho\n"), "file"); err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Stat(filepath.Join(root, "a/b/c.sh"))
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("clearing the exec bit must keep the other bits: %v", fi.Mode())
	}
	if err := writeFile(root, "link", []byte("../../etc/passwd"), "symlink"); err != nil {
		t.Fatal(err)
	}
	if target, _ := os.Readlink(filepath.Join(root, "link")); target != "../../etc/passwd" {
		t.Fatalf("symlink target %q", target)
	}
	// A symlinked parent is never written through, nor deleted through.
	os.Symlink(outside, filepath.Join(root, "out"))
	os.WriteFile(filepath.Join(outside, "victim"), []byte("keep"), 0o644)
	for _, err := range []error{
		writeFile(root, "out/victim", []byte("pwned"), "file"),
		removeFile(root, "out/victim"),
		writeFile(root, "../escape", []byte("x"), "file"),
		writeFile(root, "/abs", []byte("x"), "file"),
		writeFile(root, "a/./b", []byte("x"), "file"),
		makeParents(root, "out/new/file"),
	} {
		if err == nil {
			t.Error("a write outside the root was allowed")
		}
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "victim")); string(data) != "keep" {
		t.Fatal("a file outside the root was changed")
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Fatal("a folder was created outside the root")
	}
	// Deleting a symlink deletes the link, not its target.
	os.WriteFile(filepath.Join(root, "target"), []byte("t"), 0o644)
	os.Symlink("target", filepath.Join(root, "l2"))
	if err := removeFile(root, "l2"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "target")); err != nil {
		t.Fatal("the symlink's target was deleted")
	}
	if err := removeFile(root, "missing/file"); err != nil {
		t.Fatalf("deleting a missing file: %v", err)
	}
	// No temporary files are left behind.
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if strings.Contains(p, ".rewind-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
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

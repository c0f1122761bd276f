package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// editor is a VS Code-like editor of one root: it offers documentChanges
// with create/rename/delete, applies the server's WorkspaceEdits to its
// buffers in UTF-16 positions, opens the files an edit touches (as VS
// Code's document models do), saves what a rewind changed afterwards, and
// reloads clean buffers whose file changed on disk.
type editor struct {
	root string
	c    *conn
	logf func(format string, a ...any) // nil: no log

	mu    sync.Mutex
	docs  map[string]*doc // by root-relative path
	edits int             // WorkspaceEdits applied
	fails []string        // WorkspaceEdits it could not apply
}

type doc struct {
	text    string
	version int
	dirty   bool
	byUser  bool // opened by the user (kept open), not by an edit
}

func (e *editor) uri(rel string) string {
	return (&url.URL{Scheme: "file", Path: filepath.Join(e.root, filepath.FromSlash(rel))}).String()
}

func (e *editor) rel(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", fmt.Errorf("not a file URI: %s", uri)
	}
	r, err := filepath.Rel(e.root, u.Path)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return "", fmt.Errorf("outside the root: %s", uri)
	}
	return filepath.ToSlash(r), nil
}

func (e *editor) abs(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type textEdit struct {
	Range struct {
		Start position `json:"start"`
		End   position `json:"end"`
	} `json:"range"`
	NewText string `json:"newText"`
}

type docChange struct {
	Kind         string `json:"kind"`
	URI          string `json:"uri"`
	OldURI       string `json:"oldUri"`
	NewURI       string `json:"newUri"`
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int   `json:"version"`
	} `json:"textDocument"`
	Edits   []textEdit `json:"edits"`
	Options struct {
		Overwrite         bool `json:"overwrite"`
		IgnoreIfExists    bool `json:"ignoreIfExists"`
		Recursive         bool `json:"recursive"`
		IgnoreIfNotExists bool `json:"ignoreIfNotExists"`
	} `json:"options"`
}

// handle answers the server's requests.
func (e *editor) handle(method string, params json.RawMessage) any {
	if method != "workspace/applyEdit" {
		return nil
	}
	var p struct {
		Edit struct {
			Changes         map[string][]textEdit `json:"changes"`
			DocumentChanges []docChange           `json:"documentChanges"`
		} `json:"edit"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return map[string]any{"applied": false, "failureReason": err.Error()}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	err := e.apply(p.Edit.DocumentChanges, p.Edit.Changes)
	if err != nil {
		e.fails = append(e.fails, err.Error())
		return map[string]any{"applied": false, "failureReason": err.Error()}
	}
	e.edits++
	return map[string]any{"applied": true}
}

// apply applies one WorkspaceEdit (e.mu held).
func (e *editor) apply(dcs []docChange, changes map[string][]textEdit) error {
	for _, dc := range dcs {
		switch dc.Kind {
		case "create":
			rel, err := e.rel(dc.URI)
			if err != nil {
				return err
			}
			if _, err := os.Lstat(e.abs(rel)); err == nil && (dc.Options.IgnoreIfExists || !dc.Options.Overwrite) {
				continue
			}
			if err := os.MkdirAll(filepath.Dir(e.abs(rel)), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(e.abs(rel), nil, 0o644); err != nil {
				return err
			}
		case "delete":
			rel, err := e.rel(dc.URI)
			if err != nil {
				return err
			}
			rm := os.Remove
			if dc.Options.Recursive {
				rm = os.RemoveAll
			}
			if err := rm(e.abs(rel)); err != nil && !(errors.Is(err, fs.ErrNotExist) && dc.Options.IgnoreIfNotExists) {
				return fmt.Errorf("delete %s: %w", rel, err)
			}
			if d := e.docs[rel]; d != nil {
				delete(e.docs, rel)
				e.c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": e.uri(rel)}})
			}
		case "rename":
			from, err := e.rel(dc.OldURI)
			if err != nil {
				return err
			}
			to, err := e.rel(dc.NewURI)
			if err != nil {
				return err
			}
			if err := os.Rename(e.abs(from), e.abs(to)); err != nil {
				return err
			}
		default:
			if err := e.editDoc(dc.TextDocument.URI, dc.TextDocument.Version, dc.Edits); err != nil {
				return err
			}
		}
	}
	uris := make([]string, 0, len(changes))
	for u := range changes {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	for _, u := range uris {
		if err := e.editDoc(u, nil, changes[u]); err != nil {
			return err
		}
	}
	return nil
}

// editDoc applies text edits to a buffer, opening the file when no buffer
// holds it, and tells the server (didOpen with the new text, or didChange).
func (e *editor) editDoc(uri string, version *int, edits []textEdit) error {
	rel, err := e.rel(uri)
	if err != nil {
		return err
	}
	d := e.docs[rel]
	opened := false
	if d == nil {
		data, err := os.ReadFile(e.abs(rel))
		if err != nil {
			return fmt.Errorf("open %s: %w", rel, err)
		}
		d = &doc{text: string(data)}
		opened = true
	}
	if version != nil && (opened || *version != d.version) {
		return fmt.Errorf("%s: the edit is for version %d, the buffer has %d", rel, *version, d.version)
	}
	e.log("edit %s (open before: %v)", rel, !opened)
	nt, err := applyEdits(d.text, edits)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	d.text, d.dirty = nt, true
	if opened {
		d.version = 1
		e.docs[rel] = d
		return e.c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": "plaintext", "version": d.version, "text": d.text}})
	}
	d.version++
	return e.c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": d.version},
		"contentChanges": []any{map[string]any{"text": d.text}},
	})
}

// saveAll writes the dirty buffers (keeping each file's mode) and sends
// didSave; buffers an edit opened are closed again, as VS Code drops their
// models. It returns the paths written.
func (e *editor) saveAll(closeOpened bool) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var saved []string
	for rel, d := range e.docs {
		if d.dirty {
			mode := fs.FileMode(0o644)
			if fi, err := os.Lstat(e.abs(rel)); err == nil {
				mode = fi.Mode().Perm()
			}
			if err := os.WriteFile(e.abs(rel), []byte(d.text), mode); err != nil {
				return saved, fmt.Errorf("save %s: %w", rel, err)
			}
			d.dirty = false
			saved = append(saved, rel)
			e.c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": e.uri(rel)}})
		}
		if closeOpened && !d.byUser {
			delete(e.docs, rel)
			e.c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": e.uri(rel)}})
		}
	}
	sort.Strings(saved)
	return saved, nil
}

// reload brings clean buffers up to date with the disk (VS Code reloads a
// file changed behind a buffer that has no unsaved changes); a file that is
// gone or not a regular file closes its buffer.
func (e *editor) reload() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for rel, d := range e.docs {
		if d.dirty {
			continue
		}
		fi, err := os.Lstat(e.abs(rel))
		var data []byte
		if err == nil && fi.Mode().IsRegular() {
			data, err = os.ReadFile(e.abs(rel))
		}
		if err != nil || !fi.Mode().IsRegular() {
			delete(e.docs, rel)
			e.c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": e.uri(rel)}})
			continue
		}
		if string(data) != d.text {
			e.log("reload %s (changed on disk)", rel)
			d.text = string(data)
			d.version++
			e.c.notify("textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": e.uri(rel), "version": d.version},
				"contentChanges": []any{map[string]any{"text": d.text}},
			})
		}
	}
}

// userEdit is the person at the editor: open rel (if not open), append a
// line, save. It returns the new content.
func (e *editor) userEdit(rel, line string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := e.docs[rel]
	if d == nil {
		data, err := os.ReadFile(e.abs(rel))
		if err != nil {
			return "", err
		}
		d = &doc{text: string(data), version: 1}
		e.docs[rel] = d
		e.c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": e.uri(rel), "languageId": "plaintext", "version": 1, "text": d.text}})
	}
	d.byUser = true
	e.log("person types in %s and saves", rel)
	// Typed at the end, as an incremental change.
	end := endPosition(d.text)
	d.text += line
	d.version++
	e.c.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": e.uri(rel), "version": d.version},
		"contentChanges": []any{map[string]any{
			"range": map[string]any{"start": end, "end": end}, "text": line}},
	})
	mode := fs.FileMode(0o644)
	if fi, err := os.Lstat(e.abs(rel)); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.WriteFile(e.abs(rel), []byte(d.text), mode); err != nil {
		return "", err
	}
	e.c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": e.uri(rel)}})
	return d.text, nil
}

// closeUser closes the user's buffers but keep (the most recent ones stay).
func (e *editor) closeUser(keep int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var open []string
	for rel, d := range e.docs {
		if d.byUser && !d.dirty {
			open = append(open, rel)
		}
	}
	sort.Strings(open)
	for len(open) > keep {
		rel := open[0]
		open = open[1:]
		delete(e.docs, rel)
		e.c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": e.uri(rel)}})
	}
}

// endPosition is the position after the last character of text (UTF-16).
func endPosition(text string) position {
	line, start := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			line, start = line+1, i+1
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue
			}
			line, start = line+1, i+1
		}
	}
	return position{Line: line, Character: utf16Len(text[start:])}
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// offset turns an LSP position (UTF-16 code units) into a byte offset of
// text; \n, \r\n and a lone \r end a line.
func offset(text string, p position) (int, error) {
	i := 0
	for line := 0; line < p.Line; line++ {
		j := strings.IndexAny(text[i:], "\r\n")
		if j < 0 {
			return 0, fmt.Errorf("line %d is past the end (%d lines)", p.Line, line+1)
		}
		i += j
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		i++
	}
	units := 0
	for units < p.Character {
		if i >= len(text) || text[i] == '\n' || text[i] == '\r' {
			return 0, fmt.Errorf("character %d is past the end of line %d", p.Character, p.Line)
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			return 0, fmt.Errorf("invalid UTF-8 on line %d", p.Line)
		}
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += size
	}
	if units != p.Character {
		return 0, fmt.Errorf("character %d of line %d is inside a surrogate pair", p.Character, p.Line)
	}
	return i, nil
}

// applyEdits applies non-overlapping edits, all positions against text.
func applyEdits(text string, edits []textEdit) (string, error) {
	type span struct {
		from, to int
		s        string
	}
	spans := make([]span, 0, len(edits))
	for _, te := range edits {
		a, err := offset(text, te.Range.Start)
		if err != nil {
			return "", err
		}
		b, err := offset(text, te.Range.End)
		if err != nil {
			return "", err
		}
		if b < a {
			return "", fmt.Errorf("an edit ends before it starts")
		}
		spans = append(spans, span{a, b, te.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var out strings.Builder
	at := 0
	for _, s := range spans {
		if s.from < at {
			return "", fmt.Errorf("overlapping edits")
		}
		out.WriteString(text[at:s.from])
		out.WriteString(s.s)
		at = s.to
	}
	out.WriteString(text[at:])
	return out.String(), nil
}

func (e *editor) log(format string, a ...any) {
	if e.logf != nil {
		e.logf("editor: "+format, a...)
	}
}

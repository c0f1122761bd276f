package lsp

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
	"testing"
	"time"
)

// editorKind selects how the fake editor behaves, after real clients
// (NOTES.md "Clients").
type editorKind string

const (
	// vscodeLike advertises documentChanges and resource operations,
	// rejects stale versioned edits, opens (didOpen) the files it edits.
	vscodeLike editorKind = "vscode"
	// neovimLike advertises only resourceOperations, skips stale edits but
	// answers applied:true, and echoes didChange after answering.
	neovimLike editorKind = "neovim"
	// plainClient advertises neither: it gets the `changes` form.
	plainClient editorKind = "plain"
	// eglotLike is Emacs eglot (NOTES.md): documentChanges without resource
	// operations, rejects stale versioned edits, visits (didOpen) the files
	// it edits, and answers applied:true echoDelay before it sends the
	// matching didChange (its idle timer).
	eglotLike editorKind = "eglot"
)

// buffer is an editor buffer.
type buffer struct {
	uri     string
	text    string
	version int
	synced  bool // the server was told (didOpen)
	dirty   bool
}

// editor is the fake editor on top of a connection.
type editor struct {
	t    testing.TB
	c    *conn
	kind editorKind
	utf8 bool // the server chose utf-8

	mu     sync.Mutex
	bufs   map[string]*buffer // by absolute path
	edits  []json.RawMessage  // every applyEdit params received
	save   bool               // save edited buffers like an editor that saves
	before func(e *editor)    // runs before an applyEdit is applied (tests)
	// echoDelay is how long an eglot-like editor waits after answering
	// before it sends its didChange (1.5 s unless set).
	echoDelay time.Duration
	echoed    int      // applyEdits whose changes were sent to the server
	gone      bool     // the test ended: touch nothing any more
	srv       *server  // the server process, when started by startServer
	shown     []string // URIs the server asked to show (window/showDocument)
	// clientName is sent as clientInfo.name when set ("Neovim").
	clientName string
}

// stop makes the editor refuse further edits; tests whose hooks block call
// it before unblocking them at the end.
func (e *editor) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gone = true
}

func newEditor(t testing.TB, c *conn, kind editorKind) *editor {
	e := &editor{t: t, c: c, kind: kind, bufs: map[string]*buffer{}, save: true}
	go e.serve()
	return e
}

// capabilities are the client capabilities of the kind.
func (e *editor) capabilities(encodings ...string) map[string]any {
	we := map[string]any{}
	switch e.kind {
	case vscodeLike:
		we = map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"},
			"failureHandling": "textOnlyTransactional"}
	case neovimLike:
		we = map[string]any{"resourceOperations": []string{"rename", "create", "delete"}}
	case eglotLike:
		we = map[string]any{"documentChanges": true}
	}
	caps := map[string]any{
		"workspace": map[string]any{"workspaceEdit": we, "applyEdit": true, "workspaceFolders": true},
		"window":    map[string]any{"workDoneProgress": e.kind == vscodeLike},
	}
	if e.kind == vscodeLike {
		// VS Code renders markdown hovers and opens documents on request.
		caps["window"] = map[string]any{"workDoneProgress": true, "showDocument": map[string]any{"support": true}}
		caps["textDocument"] = map[string]any{"hover": map[string]any{"contentFormat": []string{"markdown", "plaintext"}}}
	}
	if len(encodings) > 0 {
		caps["general"] = map[string]any{"positionEncodings": encodings}
	}
	return caps
}

// initialize sends initialize and initialized.
func (e *editor) initialize(folders []string, options map[string]any, encodings ...string) initializeResult {
	e.t.Helper()
	wf := []map[string]string{}
	for _, f := range folders {
		wf = append(wf, map[string]string{"uri": uriFromPath(f), "name": filepath.Base(f)})
	}
	if _, set := options["rewindDidChange"]; !set && e.kind != plainClient {
		// The full integrations (VS Code, Neovim) handle rewind/didChange.
		opts := map[string]any{"rewindDidChange": true}
		for k, v := range options {
			opts[k] = v
		}
		options = opts
	}
	params := map[string]any{
		"processId": os.Getpid(), "capabilities": e.capabilities(encodings...),
		"workspaceFolders": wf, "initializationOptions": options,
	}
	if len(folders) > 0 {
		params["rootUri"] = uriFromPath(folders[0])
	}
	if e.clientName != "" {
		params["clientInfo"] = map[string]any{"name": e.clientName}
	}
	var res initializeResult
	if err := e.c.call("initialize", params, &res); err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	e.utf8 = res.Capabilities.PositionEncoding == "utf-8"
	e.c.notify("initialized", map[string]any{})
	// Registered after the test's temporary folders, so it runs before
	// they are removed: the server's background writes into its store
	// (caches, durable objects) end with it.
	e.t.Cleanup(e.c.hangUp)
	return res
}

// serve answers the server's requests in order.
func (e *editor) serve() {
	for {
		select {
		case m := <-e.c.serverReq:
			var result any
			var rerr *wireError
			switch m.Method {
			case "workspace/applyEdit":
				result = e.applyEdit(m.Params)
			case "window/workDoneProgress/create":
				result = nil
			case "window/showDocument":
				var p struct {
					URI string `json:"uri"`
				}
				json.Unmarshal(m.Params, &p)
				e.mu.Lock()
				e.shown = append(e.shown, p.URI)
				e.mu.Unlock()
				result = map[string]any{"success": true}
			default:
				rerr = &wireError{Code: -32601, Message: "unsupported " + m.Method}
			}
			resp := map[string]any{"jsonrpc": "2.0", "id": m.ID}
			if rerr != nil {
				resp["error"] = rerr
			} else {
				resp["result"] = result
			}
			e.c.send(resp)
		case <-e.c.closed:
			return
		}
	}
}

func (e *editor) path(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		e.t.Errorf("the server sent a bad file URI %q", uri)
		return ""
	}
	return filepath.Clean(u.Path)
}

// open opens path in the editor (didOpen) with its disk content.
func (e *editor) open(path string) {
	e.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatalf("open: %v", err)
	}
	e.mu.Lock()
	b := &buffer{uri: uriFromPath(path), text: string(data), version: 1, synced: true}
	e.bufs[path] = b
	e.mu.Unlock()
	e.c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": b.uri, "languageId": "plaintext", "version": b.version, "text": b.text}})
}

// text returns the buffer text of path (ok=false when not loaded).
func (e *editor) text(path string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := e.bufs[path]
	if b == nil {
		return "", false
	}
	return b.text, true
}

// typeText applies one incremental change to an open buffer and sends it;
// the buffer becomes dirty.
func (e *editor) typeText(path string, r Range, text string) {
	e.t.Helper()
	e.mu.Lock()
	b := e.bufs[path]
	if b == nil || !b.synced {
		e.mu.Unlock()
		e.t.Fatalf("typeText: %s is not open", path)
	}
	newText, err := editorApply(b.text, []TextEdit{{Range: r, NewText: text}}, e.utf8)
	if err != nil {
		e.mu.Unlock()
		e.t.Fatalf("typeText: %v", err)
	}
	b.text, b.dirty = newText, true
	b.version++
	uri, v := b.uri, b.version
	e.mu.Unlock()
	e.c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v},
		"contentChanges": []any{map[string]any{"range": r, "text": text}},
	})
}

// reload replaces a clean open buffer with the disk content, as editors do
// when a file changes on disk.
func (e *editor) reload(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	e.mu.Lock()
	b := e.bufs[path]
	if b == nil || b.dirty || b.text == string(data) {
		e.mu.Unlock()
		return
	}
	b.text = string(data)
	b.version++
	uri, v := b.uri, b.version
	e.mu.Unlock()
	e.c.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": v}, "contentChanges": []any{map[string]any{"text": string(data)}},
	})
}

// applyEdit applies a WorkspaceEdit the way the editor kind does.
func (e *editor) applyEdit(raw json.RawMessage) map[string]any {
	var p applyWorkspaceEditParams
	if err := json.Unmarshal(raw, &p); err != nil {
		e.t.Errorf("applyEdit params %s: %v", raw, err)
		return map[string]any{"applied": false, "failureReason": err.Error()}
	}
	e.mu.Lock()
	e.edits = append(e.edits, raw)
	hook := e.before
	e.mu.Unlock()
	if hook != nil {
		hook(e)
	}
	e.mu.Lock()
	gone := e.gone
	e.mu.Unlock()
	if gone {
		return map[string]any{"applied": false, "failureReason": "the editor is gone"}
	}
	if p.Edit.DocumentChanges != nil && e.kind == plainClient {
		e.t.Errorf("documentChanges sent to a client without documentChanges or resource operations")
	}
	if e.kind == neovimLike && strings.Contains(string(raw), `"changes"`) {
		e.t.Errorf("neovim-like client got the changes form")
	}
	e.mu.Lock()
	touched, stale, err := e.applyLocked(p.Edit)
	e.mu.Unlock()
	if err != nil {
		return map[string]any{"applied": false, "failureReason": err.Error()}
	}
	if stale != "" && (e.kind == vscodeLike || e.kind == eglotLike) {
		return map[string]any{"applied": false, "failureReason": stale}
	}
	answer := map[string]any{"applied": true}
	switch e.kind {
	case neovimLike:
		// Neovim answers first; its didChange follows (debounced).
		go func() { time.Sleep(50 * time.Millisecond); e.afterApply(touched) }()
		return answer
	case eglotLike:
		// eglot answers at once and reports the change when Emacs is idle.
		delay := e.echoDelay
		if delay == 0 {
			delay = 1500 * time.Millisecond
		}
		go func() { time.Sleep(delay); e.afterApply(touched) }()
		return answer
	}
	e.afterApply(touched)
	return answer
}

// applyLocked applies the edit to buffers and disk (resource operations).
// It returns the edited buffers; stale is set when a versioned edit was
// skipped (Neovim skips it silently).
func (e *editor) applyLocked(we workspaceEdit) (touched []*touch, stale string, err error) {
	edit := func(uri string, version *int, edits []TextEdit) error {
		p := e.path(uri)
		b := e.bufs[p]
		if b == nil {
			data, err := os.ReadFile(p)
			if err != nil {
				return fmt.Errorf("loading %s: %w", p, err)
			}
			b = &buffer{uri: uri, text: string(data), version: 0}
			e.bufs[p] = b
			if e.kind == eglotLike {
				// eglot visits the file: its buffer is managed at once.
				b.synced, b.version = true, 1
				e.c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
					"uri": b.uri, "languageId": "plaintext", "version": b.version, "text": b.text}})
			}
		}
		if version != nil && (!b.synced || *version != b.version) {
			stale = fmt.Sprintf("%s: version %d, buffer has %d", p, *version, b.version)
			return nil
		}
		old := b.text
		nt, err := editorApply(b.text, edits, e.utf8)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		b.text, b.dirty = nt, true
		touched = append(touched, &touch{path: p, b: b, old: old, edits: edits})
		return nil
	}
	for _, dc := range we.DocumentChanges {
		switch {
		case dc.Create != nil:
			p := e.path(dc.Create.URI)
			_, statErr := os.Lstat(p)
			if statErr == nil && dc.Create.Options != nil && dc.Create.Options.IgnoreIfExists {
				continue
			}
			if _, err := os.Stat(filepath.Dir(p)); err != nil {
				return nil, "", fmt.Errorf("create %s: parent folder missing", p) // as Neovim 0.7.2
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil { // truncates, as Neovim does
				return nil, "", err
			}
			if e.bufs[p] == nil { // an open buffer of the missing file stays
				e.bufs[p] = &buffer{uri: dc.Create.URI}
			}
		case dc.Delete != nil:
			p := e.path(dc.Delete.URI)
			if err := os.Remove(p); err != nil {
				if !errors.Is(err, fs.ErrNotExist) || dc.Delete.Options == nil || !dc.Delete.Options.IgnoreIfNotExists {
					return nil, "", fmt.Errorf("delete %s: %w", p, err)
				}
			}
			if b := e.bufs[p]; b != nil {
				delete(e.bufs, p)
				if b.synced {
					e.c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": b.uri}})
				}
			}
		case dc.Edit != nil:
			if dc.Edit.Edits == nil {
				return nil, "", fmt.Errorf("edits is null")
			}
			if err := edit(dc.Edit.TextDocument.URI, dc.Edit.TextDocument.Version, dc.Edit.Edits); err != nil {
				return nil, "", err
			}
		}
	}
	uris := make([]string, 0, len(we.Changes))
	for u := range we.Changes {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	for _, u := range uris {
		if err := edit(u, nil, we.Changes[u]); err != nil {
			return nil, "", err
		}
	}
	return touched, stale, nil
}

// touch is one buffer an edit changed.
type touch struct {
	path  string
	b     *buffer
	old   string
	edits []TextEdit
}

// afterApply echoes the edits to the server (didOpen or didChange) and, in
// an editor that saves, writes the buffers and sends didSave.
func (e *editor) afterApply(touched []*touch) {
	defer func() {
		e.mu.Lock()
		e.echoed++
		e.mu.Unlock()
	}()
	for _, tc := range touched {
		e.mu.Lock()
		b := tc.b
		if !b.synced {
			if e.kind != vscodeLike {
				e.mu.Unlock()
				continue // Neovim does not attach to buffers it loads for an edit
			}
			b.synced, b.version = true, 1
			msg := map[string]any{"textDocument": map[string]any{"uri": b.uri, "languageId": "plaintext", "version": 1, "text": b.text}}
			e.mu.Unlock()
			e.c.notify("textDocument/didOpen", msg)
			continue
		}
		b.version++
		changes := []any{}
		sorted := append([]TextEdit(nil), tc.edits...)
		sort.SliceStable(sorted, func(i, j int) bool { return less(sorted[j].Range.Start, sorted[i].Range.Start) })
		for _, te := range sorted { // bottom-up, so each range is valid as sent
			changes = append(changes, map[string]any{"range": te.Range, "text": te.NewText})
		}
		msg := map[string]any{"textDocument": map[string]any{"uri": b.uri, "version": b.version}, "contentChanges": changes}
		e.mu.Unlock()
		e.c.notify("textDocument/didChange", msg)
	}
	if e.save {
		e.saveAll()
	}
}

func less(a, b Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// saveAll writes every dirty buffer to disk (keeping the file's mode) and
// sends didSave for the synced ones.
func (e *editor) saveAll() {
	e.mu.Lock()
	var saved []*buffer
	for p, b := range e.bufs {
		if !b.dirty {
			continue
		}
		mode := fs.FileMode(0o644)
		if fi, err := os.Stat(p); err == nil {
			mode = fi.Mode().Perm()
		}
		if err := os.WriteFile(p, []byte(b.text), mode); err != nil {
			e.t.Errorf("saving %s: %v", p, err)
			continue
		}
		b.dirty = false
		if b.synced {
			saved = append(saved, b)
		}
	}
	e.mu.Unlock()
	for _, b := range saved {
		e.c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": b.uri}, "text": b.text})
	}
}

package testkit

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// EditorKind selects how the fake editor behaves, after real clients
// (NOTES.md "Clients").
type EditorKind string

const (
	// VSCodeLike advertises documentChanges and resource operations,
	// rejects stale versioned edits, opens (didOpen) the files it edits.
	VSCodeLike EditorKind = "vscode"
	// NeovimLike advertises only resourceOperations, skips stale edits but
	// answers applied:true, and echoes didChange after answering.
	NeovimLike EditorKind = "neovim"
	// PlainClient advertises neither: it gets the `changes` form.
	PlainClient EditorKind = "plain"
	// EglotLike is Emacs eglot (NOTES.md): documentChanges without resource
	// operations, rejects stale versioned edits, visits (didOpen) the files
	// it edits, and answers applied:true EchoDelay before it sends the
	// matching didChange (its idle timer).
	EglotLike EditorKind = "eglot"
)

// buffer is an editor buffer.
type buffer struct {
	uri     string
	text    string
	version int
	synced  bool // the server was told (didOpen)
	dirty   bool
}

// Editor is the fake editor on top of a connection: it keeps buffers,
// answers workspace/applyEdit by applying the edit to its buffers in the
// negotiated encoding (UTF-16 unless the server chose UTF-8) the way its
// kind does, creates, renames and deletes files, and, like an editor that
// saves, writes edited buffers to disk.
type Editor struct {
	T      testing.TB
	Conn   *Conn
	Kind   EditorKind
	Server *Server // the server, when the test keeps it here
	UTF8   bool    // the server chose utf-8

	mu     sync.Mutex
	bufs   map[string]*buffer // by absolute path
	edits  []json.RawMessage  // every applyEdit params received
	save   bool               // save edited buffers like an editor that saves
	before func(e *Editor)    // runs before an applyEdit is applied
	// echoDelay is how long an eglot-like editor waits after answering
	// before it sends its didChange (1.5 s unless set).
	echoDelay  time.Duration
	echoed     int      // applyEdits whose changes were sent to the server
	pending    int      // applyEdits received whose answer, echo and save are not all done
	gone       bool     // the test ended: touch nothing any more
	shown      []string // URIs the server asked to show (window/showDocument)
	clientName string   // sent as clientInfo.name when set ("Neovim")
}

// NewEditor starts an editor of kind on c; it serves the server's
// requests until the connection closes.
func NewEditor(t testing.TB, c *Conn, kind EditorKind) *Editor {
	e := &Editor{T: t, Conn: c, Kind: kind, bufs: map[string]*buffer{}, save: true}
	go e.serve()
	return e
}

// Stop makes the editor refuse further edits; tests whose hooks block call
// it before unblocking them at the end.
func (e *Editor) Stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gone = true
}

// SetSave says whether the editor saves the buffers an edit changed (it
// does unless told otherwise).
func (e *Editor) SetSave(save bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.save = save
}

// SetEchoDelay sets how long an eglot-like editor waits after answering an
// applyEdit before it sends its didChange.
func (e *Editor) SetEchoDelay(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.echoDelay = d
}

// SetClientName sets the clientInfo.name Initialize sends.
func (e *Editor) SetClientName(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.clientName = name
}

// SetBeforeApply sets fn (nil: none) to run before each applyEdit is
// applied, outside the editor's lock.
func (e *Editor) SetBeforeApply(fn func(e *Editor)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.before = fn
}

// Edits are the params of every applyEdit received, in order.
func (e *Editor) Edits() []json.RawMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]json.RawMessage(nil), e.edits...)
}

// Echoed counts the applyEdits whose changes the editor has sent back to
// the server.
func (e *Editor) Echoed() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.echoed
}

// WaitApplied waits (at most timeout) until every applyEdit the editor
// received is done with: answered and, when applied, its changes sent back
// to the server and saved by an editor that saves (a Neovim-like editor
// does that after it answers; a test may go on as soon as the server
// answered, or died). It reports whether they were.
func (e *Editor) WaitApplied(timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); ; time.Sleep(5 * time.Millisecond) {
		e.mu.Lock()
		done := e.pending == 0
		e.mu.Unlock()
		if done {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// Shown are the URIs the server asked the editor to show
// (window/showDocument).
func (e *Editor) Shown() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.shown...)
}

// capabilities are the client capabilities of the kind.
func (e *Editor) capabilities(encodings ...string) map[string]any {
	we := map[string]any{}
	switch e.Kind {
	case VSCodeLike:
		we = map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"},
			"failureHandling": "textOnlyTransactional"}
	case NeovimLike:
		we = map[string]any{"resourceOperations": []string{"rename", "create", "delete"}}
	case EglotLike:
		we = map[string]any{"documentChanges": true}
	}
	caps := map[string]any{
		"workspace": map[string]any{"workspaceEdit": we, "applyEdit": true, "workspaceFolders": true},
		"window":    map[string]any{"workDoneProgress": e.Kind == VSCodeLike},
	}
	if e.Kind == VSCodeLike {
		// VS Code renders markdown hovers and opens documents on request.
		caps["window"] = map[string]any{"workDoneProgress": true, "showDocument": map[string]any{"support": true}}
		caps["textDocument"] = map[string]any{"hover": map[string]any{"contentFormat": []string{"markdown", "plaintext"}}}
	}
	if len(encodings) > 0 {
		caps["general"] = map[string]any{"positionEncodings": encodings}
	}
	return caps
}

// Initialize sends initialize (the folders, the initialization options and
// the position encodings offered) and initialized, and returns the
// initialize result.
func (e *Editor) Initialize(folders []string, options map[string]any, encodings ...string) json.RawMessage {
	e.T.Helper()
	wf := []map[string]string{}
	for _, f := range folders {
		wf = append(wf, map[string]string{"uri": URI(f), "name": filepath.Base(f)})
	}
	if _, set := options["rewindDidChange"]; !set && e.Kind != PlainClient {
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
		params["rootUri"] = URI(folders[0])
	}
	e.mu.Lock()
	if e.clientName != "" {
		params["clientInfo"] = map[string]any{"name": e.clientName}
	}
	e.mu.Unlock()
	var res json.RawMessage
	if err := e.Conn.Call("initialize", params, &res); err != nil {
		e.T.Fatalf("initialize: %v", err)
	}
	var caps struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	json.Unmarshal(res, &caps)
	e.UTF8 = caps.Capabilities.PositionEncoding == "utf-8"
	e.Conn.Notify("initialized", map[string]any{})
	// Registered after the test's temporary folders, so it runs before
	// they are removed: the server's background writes into its store
	// (caches, durable objects) end with it.
	e.T.Cleanup(e.Conn.HangUp)
	return res
}

// Cmd runs a command over LSP (workspace/executeCommand with one
// argument), decoding its result into result when it is not nil.
func (e *Editor) Cmd(name string, arg any, result any) error {
	return e.Conn.Call("workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}}, result)
}

// MustCmd is Cmd that fails the test on an error.
func (e *Editor) MustCmd(name string, arg any, result any) {
	e.T.Helper()
	if err := e.Cmd(name, arg, result); err != nil {
		e.T.Fatalf("%s: %v", name, err)
	}
}

// serve answers the server's requests in order.
func (e *Editor) serve() {
	for {
		select {
		case m := <-e.Conn.Requests():
			var result any
			var rerr *RPCError
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
				rerr = &RPCError{Code: -32601, Message: "unsupported " + m.Method}
			}
			e.Conn.Reply(m, result, rerr)
		case <-e.Conn.Closed():
			return
		}
	}
}

// URI is the file:// URI of absolute path p.
func URI(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

func (e *Editor) path(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		e.T.Errorf("the server sent a bad file URI %q", uri)
		return ""
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/x is C:\x
	}
	return filepath.Clean(filepath.FromSlash(p))
}

// Open opens path in the editor (didOpen) with its disk content.
func (e *Editor) Open(path string) {
	e.T.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		e.T.Fatalf("open: %v", err)
	}
	e.OpenText(path, string(data), "plaintext")
}

// OpenText opens path in the editor (didOpen) with text, whatever the disk
// holds (Neovim shows an empty file as one empty line: "\n").
func (e *Editor) OpenText(path, text, languageID string) {
	e.mu.Lock()
	b := &buffer{uri: URI(path), text: text, version: 1, synced: true}
	e.bufs[path] = b
	e.mu.Unlock()
	e.Conn.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": b.uri, "languageId": languageID, "version": b.version, "text": b.text}})
}

// Close drops the buffer of path and tells the server (didClose).
func (e *Editor) Close(path string) {
	e.mu.Lock()
	delete(e.bufs, path)
	e.mu.Unlock()
	e.Conn.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": URI(path)}})
}

// Text returns the buffer text of path (ok=false when not loaded).
func (e *Editor) Text(path string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := e.bufs[path]
	if b == nil {
		return "", false
	}
	return b.text, true
}

// TypeText applies one incremental change to an open buffer and sends it;
// the buffer becomes dirty.
func (e *Editor) TypeText(path string, r Range, text string) {
	e.T.Helper()
	e.mu.Lock()
	b := e.bufs[path]
	if b == nil || !b.synced {
		e.mu.Unlock()
		e.T.Fatalf("typeText: %s is not open", path)
	}
	newText, err := ApplyEdits(b.text, []TextEdit{{Range: r, NewText: text}}, e.UTF8)
	if err != nil {
		e.mu.Unlock()
		e.T.Fatalf("typeText: %v", err)
	}
	b.text, b.dirty = newText, true
	b.version++
	uri, v := b.uri, b.version
	e.mu.Unlock()
	e.Conn.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v},
		"contentChanges": []any{map[string]any{"range": r, "text": text}},
	})
}

// Change replaces the whole text of an open buffer (one full-text
// didChange); the buffer becomes dirty.
func (e *Editor) Change(path, text string) {
	e.T.Helper()
	e.mu.Lock()
	b := e.bufs[path]
	if b == nil || !b.synced {
		e.mu.Unlock()
		e.T.Fatalf("change: %s is not open", path)
	}
	b.text, b.dirty = text, true
	b.version++
	uri, v := b.uri, b.version
	e.mu.Unlock()
	e.Conn.Notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": v}, "contentChanges": []any{map[string]any{"text": text}},
	})
}

// Reload replaces a clean open buffer with the disk content, as editors do
// when a file changes on disk.
func (e *Editor) Reload(path string) {
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
	e.Conn.Notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": v}, "contentChanges": []any{map[string]any{"text": string(data)}},
	})
}

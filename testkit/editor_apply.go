package testkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// applyEdit applies a WorkspaceEdit the way the editor kind does and
// returns the answer.
func (e *Editor) applyEdit(raw json.RawMessage) map[string]any {
	var p applyEditParams
	if err := json.Unmarshal(raw, &p); err != nil {
		e.T.Errorf("applyEdit params %s: %v", raw, err)
		return map[string]any{"applied": false, "failureReason": err.Error()}
	}
	e.mu.Lock()
	e.edits = append(e.edits, raw)
	e.pending++
	hook := e.before
	e.mu.Unlock()
	echo := false // afterApply ends the pending edit when it echoes
	defer func() {
		if !echo {
			e.mu.Lock()
			e.pending--
			e.mu.Unlock()
		}
	}()
	if hook != nil {
		hook(e)
	}
	e.mu.Lock()
	gone := e.gone
	e.mu.Unlock()
	if gone {
		return map[string]any{"applied": false, "failureReason": "the editor is gone"}
	}
	if p.Edit.DocumentChanges != nil && e.Kind == PlainClient {
		e.T.Errorf("documentChanges sent to a client without documentChanges or resource operations")
	}
	if e.Kind == NeovimLike && strings.Contains(string(raw), `"changes"`) {
		e.T.Errorf("neovim-like client got the changes form")
	}
	e.mu.Lock()
	touched, stale, err := e.applyLocked(p.Edit)
	e.mu.Unlock()
	if err != nil {
		return map[string]any{"applied": false, "failureReason": err.Error()}
	}
	if stale != "" && (e.Kind == VSCodeLike || e.Kind == EglotLike) {
		return map[string]any{"applied": false, "failureReason": stale}
	}
	answer := map[string]any{"applied": true}
	echo = true
	switch e.Kind {
	case NeovimLike:
		// Neovim answers first; its didChange follows (debounced).
		go func() { time.Sleep(50 * time.Millisecond); e.afterApply(touched) }()
		return answer
	case EglotLike:
		// eglot answers at once and reports the change when Emacs is idle.
		e.mu.Lock()
		delay := e.echoDelay
		e.mu.Unlock()
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
func (e *Editor) applyLocked(we WorkspaceEdit) (touched []*touch, stale string, err error) {
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
			if e.Kind == EglotLike {
				// eglot visits the file: its buffer is managed at once.
				b.synced, b.version = true, 1
				e.Conn.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
					"uri": b.uri, "languageId": "plaintext", "version": b.version, "text": b.text}})
			}
		}
		if version != nil && (!b.synced || *version != b.version) {
			stale = fmt.Sprintf("%s: version %d, buffer has %d", p, *version, b.version)
			return nil
		}
		old := b.text
		nt, err := ApplyEdits(b.text, edits, e.UTF8)
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
		case dc.Rename != nil:
			from, to := e.path(dc.Rename.OldURI), e.path(dc.Rename.NewURI)
			if _, err := os.Lstat(to); err == nil {
				if dc.Rename.Options != nil && dc.Rename.Options.IgnoreIfExists {
					continue
				}
				if dc.Rename.Options == nil || !dc.Rename.Options.Overwrite {
					return nil, "", fmt.Errorf("rename %s: %s exists", from, to)
				}
			}
			if err := os.Rename(from, to); err != nil {
				return nil, "", fmt.Errorf("rename %s: %w", from, err)
			}
			if b := e.bufs[from]; b != nil {
				delete(e.bufs, from)
				if b.synced {
					e.Conn.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": b.uri}})
				}
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
					e.Conn.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": b.uri}})
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
func (e *Editor) afterApply(touched []*touch) {
	defer func() {
		e.mu.Lock()
		e.echoed++
		e.pending--
		e.mu.Unlock()
	}()
	for _, tc := range touched {
		e.mu.Lock()
		b := tc.b
		if !b.synced {
			if e.Kind != VSCodeLike {
				e.mu.Unlock()
				continue // Neovim does not attach to buffers it loads for an edit
			}
			b.synced, b.version = true, 1
			msg := map[string]any{"textDocument": map[string]any{"uri": b.uri, "languageId": "plaintext", "version": 1, "text": b.text}}
			e.mu.Unlock()
			e.Conn.Notify("textDocument/didOpen", msg)
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
		e.Conn.Notify("textDocument/didChange", msg)
	}
	e.mu.Lock()
	save := e.save
	e.mu.Unlock()
	if save {
		e.SaveAll()
	}
}

func less(a, b Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// SaveAll writes every dirty buffer to disk (keeping the file's mode) and
// sends didSave for the synced ones.
func (e *Editor) SaveAll() {
	e.mu.Lock()
	var saved []*buffer
	for p, b := range e.bufs {
		if b.dirty && e.writeLocked(p, b) && b.synced {
			saved = append(saved, b)
		}
	}
	e.mu.Unlock()
	for _, b := range saved {
		e.Conn.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": b.uri}, "text": b.text})
	}
}

// Save writes the buffer of path to disk (keeping the file's mode) and
// sends didSave when the server knows the buffer.
func (e *Editor) Save(path string) {
	e.mu.Lock()
	b := e.bufs[path]
	ok := b != nil && e.writeLocked(path, b) && b.synced
	e.mu.Unlock()
	if ok {
		e.Conn.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": b.uri}, "text": b.text})
	}
}

// writeLocked writes buffer b to p; the editor's lock is held.
func (e *Editor) writeLocked(p string, b *buffer) bool {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(p); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.WriteFile(p, []byte(b.text), mode); err != nil {
		e.T.Errorf("saving %s: %v", p, err)
		return false
	}
	b.dirty = false
	return true
}

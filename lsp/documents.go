package lsp

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewind-lsp/rewind-lsp/rootpath"
)

// document is the editor's text of one open file.
type document struct {
	uri     string // as the client sent it
	path    string // clean absolute path; "" for non-file URIs
	version int
	text    string
	// gone is set when the server deleted the file on disk while the
	// editor kept the buffer (a client without resource operations): the
	// file no longer exists for plans until the editor edits or saves it.
	gone bool
	// savedText is the text at the editor's last didSave; saved is false
	// until one came.
	savedText string
	saved     bool
}

// documents is the store of open documents, keyed by path for file URIs
// (clients spell the same file's URI differently) and by URI otherwise.
// Notifications update it in arrival order; requests read it.
type documents struct {
	mu      sync.Mutex
	byKey   map[string]*document
	changed chan struct{} // closed and replaced on every change
	// emptyAsLine: the client keeps an empty buffer as one empty line and
	// reports its text as "\n" (Neovim), so such a buffer may hold an empty
	// file (see holds).
	emptyAsLine atomic.Bool
	// savedAt is when the editor last saved each path (didSave), kept
	// after the document closes: an agent's rewind must not overwrite what
	// the person saved since its checkpoint.
	savedAt map[string]time.Time
	// closedSaves is what the editor last saved of each document it closed
	// since (by path, for closedSaveKeep): a person who saves and closes at
	// once does so before the server has looked at the change on disk, and
	// the change is still the person's.
	closedSaves map[string]closedSave
}

// closedSave is the last save of a document closed since.
type closedSave struct {
	sum      [32]byte // sha256 of the text saved
	lineOnly bool     // the text saved was "\n" (see holds)
	at       time.Time
}

// closedSaveKeep is how long a closed document's last save still tells the
// person's change from an agent's: far longer than the server takes to
// look at a change on disk, even under load.
const closedSaveKeep = time.Minute

func newDocuments() *documents {
	return &documents{byKey: map[string]*document{}, changed: make(chan struct{}), savedAt: map[string]time.Time{},
		closedSaves: map[string]closedSave{}}
}

func docKey(uri string) (key, path string) {
	if p, err := pathFromURI(uri); err == nil {
		return "path:" + p, p
	}
	return "uri:" + uri, ""
}

// holds reports whether buffer text stands for file content: the same
// bytes, or for a client that reports an empty buffer as "\n", that
// buffer for an empty file. Every place where a buffer meets file content
// (plans, conflicts, the applier's checks, echoes) compares with it.
func (ds *documents) holds(text string, content []byte) bool {
	return text == string(content) || len(content) == 0 && text == "\n" && ds.emptyAsLine.Load()
}

// content is the file content the open document d stands for: its text,
// or "" for a "\n" buffer (see holds) of a file that is empty on disk.
func (ds *documents) content(d *document) []byte {
	if d.text == "\n" && d.path != "" && ds.emptyAsLine.Load() {
		if fi, err := os.Lstat(d.path); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			return []byte{}
		}
	}
	return []byte(d.text)
}

// notify wakes waiters; the caller holds mu.
func (ds *documents) notify() {
	close(ds.changed)
	ds.changed = make(chan struct{})
}

func (ds *documents) open(uri string, version int, text string) {
	key, p := docKey(uri)
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.byKey[key] = &document{uri: uri, path: p, version: version, text: text}
	delete(ds.closedSaves, p)
	ds.notify()
}

// change applies content changes in order, each relative to the text the
// previous one left, with positions in enc.
func (ds *documents) change(uri string, version int, changes []contentChange, enc encoding) error {
	key, _ := docKey(uri)
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d := ds.byKey[key]
	if d == nil {
		return fmt.Errorf("didChange for %s, which is not open", uri)
	}
	text := d.text
	for i, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		start, err := offsetAt(text, c.Range.Start, enc)
		if err != nil {
			return fmt.Errorf("didChange %s, change %d: %w", uri, i, err)
		}
		end, err := offsetAt(text, c.Range.End, enc)
		if err != nil {
			return fmt.Errorf("didChange %s, change %d: %w", uri, i, err)
		}
		if end < start {
			return fmt.Errorf("didChange %s, change %d: range end before start", uri, i)
		}
		text = text[:start] + c.Text + text[end:]
	}
	d.text = text
	d.version = version
	d.gone = false
	ds.notify()
	return nil
}

// save replaces the text when the client included it.
func (ds *documents) save(uri string, text *string) {
	if text == nil {
		return
	}
	key, _ := docKey(uri)
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if d := ds.byKey[key]; d != nil {
		d.gone = false
		d.text = *text
		d.savedText, d.saved = d.text, true
		ds.savedAt[d.path] = time.Now()
		ds.notify()
	}
}

// saved clears gone after a save that did not include the text.
func (ds *documents) saved(uri string) {
	key, _ := docKey(uri)
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if d := ds.byKey[key]; d != nil {
		d.gone = false
		d.savedText, d.saved = d.text, true
		ds.savedAt[d.path] = time.Now()
		ds.notify()
	}
}

// setGone records whether the server deleted (true) or wrote (false) the
// file of an open document.
func (ds *documents) setGone(p string, gone bool) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if d := ds.byKey["path:"+filepath.Clean(p)]; d != nil {
		d.gone = gone
	}
}

func (ds *documents) close(uri string) {
	key, _ := docKey(uri)
	ds.mu.Lock()
	defer ds.mu.Unlock()
	now := time.Now()
	for p, c := range ds.closedSaves {
		if now.Sub(c.at) > closedSaveKeep {
			delete(ds.closedSaves, p)
		}
	}
	if d := ds.byKey[key]; d != nil && d.saved && d.path != "" {
		ds.closedSaves[d.path] = closedSave{sum: sha256.Sum256([]byte(d.savedText)), lineOnly: d.savedText == "\n", at: now}
	}
	delete(ds.byKey, key)
	ds.notify()
}

// get returns a copy of the document of uri.
func (ds *documents) get(uri string) (document, bool) {
	key, _ := docKey(uri)
	return ds.getKey(key)
}

// byPath returns a copy of the open document of absolute path p.
func (ds *documents) byPath(p string) (document, bool) {
	return ds.getKey("path:" + filepath.Clean(p))
}

func (ds *documents) getKey(key string) (document, bool) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d := ds.byKey[key]
	if d == nil {
		return document{}, false
	}
	return *d, true
}

// waitFor waits until every path in want is either closed or holds its
// wanted text, or until the deadline. It returns the paths still differing.
func (ds *documents) waitFor(ctx context.Context, want map[string]string, timeout time.Duration) []string {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		ds.mu.Lock()
		var differ []string
		for p, text := range want {
			if d := ds.byKey["path:"+p]; d != nil && !ds.holds(d.text, []byte(text)) {
				differ = append(differ, p)
			}
		}
		ch := ds.changed
		ds.mu.Unlock()
		if len(differ) == 0 {
			return nil
		}
		select {
		case <-ch:
		case <-timer.C:
			return differ
		case <-ctx.Done():
			return differ
		}
	}
}

// rootOverlay is the commands.Overlay of one workspace folder: the open
// documents under it, by root-relative path.
type rootOverlay struct {
	docs  *documents
	roots []string // the folder's path and, if different, the service's root
}

// Paths implements commands.OverlayLister: the open documents under the
// folder, root-relative.
func (o *rootOverlay) Paths() []string {
	o.docs.mu.Lock()
	defer o.docs.mu.Unlock()
	var out []string
	for _, d := range o.docs.byKey {
		if d.path == "" || d.gone {
			continue
		}
		for _, r := range o.roots {
			if rel, ok := rootpath.Rel(r, d.path); ok {
				out = append(out, filepath.ToSlash(rel))
				break
			}
		}
	}
	return out
}

// Open implements commands.Overlay.
func (o *rootOverlay) Open(rel string) ([]byte, bool) {
	for _, r := range o.roots {
		p := filepath.Join(r, filepath.FromSlash(rel))
		if d, ok := o.docs.byPath(p); ok && !d.gone {
			return o.docs.content(&d), true
		}
	}
	return nil, false
}

// EditorTouched implements commands.EditorTouch: the editor saved rel
// after since, or holds it open with text that differs from the disk
// (unsaved changes).
func (o *rootOverlay) EditorTouched(rel string, since time.Time) bool {
	for _, r := range o.roots {
		p := filepath.Join(r, filepath.FromSlash(rel))
		o.docs.mu.Lock()
		at, saved := o.docs.savedAt[filepath.Clean(p)]
		o.docs.mu.Unlock()
		if saved && at.After(since) {
			return true
		}
		if d, ok := o.docs.byPath(p); ok && !d.gone {
			disk, err := os.ReadFile(p)
			if err != nil || !o.docs.holds(d.text, disk) {
				return true
			}
		}
	}
	return false
}

// editorHolds reports whether data is what the editor saved to path p: the
// text of its last didSave (of a document closed since, within
// closedSaveKeep), or its buffer's text followed by a didSave within wait
// (the editor writes the file before it says so). A buffer reloaded from
// the disk after an agent wrote it gets no didSave.
func (ds *documents) editorHolds(p string, data []byte, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	p = filepath.Clean(p)
	key := "path:" + p
	for {
		ds.mu.Lock()
		d := ds.byKey[key]
		if d == nil {
			c, ok := ds.closedSaves[p]
			ds.mu.Unlock()
			return ok && time.Since(c.at) <= closedSaveKeep &&
				(sha256.Sum256(data) == c.sum || len(data) == 0 && c.lineOnly && ds.emptyAsLine.Load())
		}
		if d.saved && ds.holds(d.savedText, data) {
			ds.mu.Unlock()
			return true
		}
		holds := ds.holds(d.text, data)
		ch := ds.changed
		ds.mu.Unlock()
		left := time.Until(deadline)
		if !holds || left <= 0 {
			return false
		}
		select {
		case <-ch:
		case <-time.After(left):
		}
	}
}

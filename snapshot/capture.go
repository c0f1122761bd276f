package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rewind-lsp/rewind-lsp/gitignore"
	"github.com/rewind-lsp/rewind-lsp/rootfs"
)

// DefaultMaxFileBytes is the largest file captured by default (10 MiB).
const DefaultMaxFileBytes = 10 << 20

// Capturer captures the files of one workspace root into an object store.
// It keeps a stat cache (in memory and in a file) so that an unchanged file
// is never read again. It is safe for concurrent use; captures are
// serialized.
type Capturer struct {
	root         string
	objects      *Objects
	cachePath    string
	maxFileBytes int64
	exclude      []string // absolute folders never captured (a store inside the root)

	mu    sync.Mutex
	cache *statCache // a running server's stat cache (the file is read by Capture)
	live  *liveTree  // the last capture without overlay, for CaptureChanged

	saveTimer  *time.Timer
	keepLive   bool // keep the live tree for CaptureChanged (a running server)
	checkCache bool // after a Reset: is the cache file's snapshot still stored?

	heal healState
}

// KeepLive makes full captures keep their tree in memory, so that
// CaptureChanged can update it; a running server sets it.
func (c *Capturer) KeepLive() {
	c.mu.Lock()
	c.keepLive = true
	c.mu.Unlock()
}

// DropLive stops keeping the live tree, and lets go of what was kept: a
// server that polls walks the whole root at every capture, and a walk
// against the stat cache file costs less than rebuilding the tree in
// memory each time.
func (c *Capturer) DropLive() {
	c.mu.Lock()
	c.keepLive = false
	c.cache = nil
	c.live = nil
	c.mu.Unlock()
}

// NewCapturer prepares captures of root (absolute) into objects, with the
// stat cache kept in cachePath. Folders in exclude (absolute) are never
// captured.
func NewCapturer(root string, objects *Objects, cachePath string, maxFileBytes int64, exclude ...string) *Capturer {
	if maxFileBytes <= 0 {
		maxFileBytes = DefaultMaxFileBytes
	}
	c := &Capturer{root: root, objects: objects, cachePath: cachePath, maxFileBytes: maxFileBytes, exclude: exclude}
	objects.AddFallback(c.fromDisk)
	return c
}

// Root is the captured root.
func (c *Capturer) Root() string { return c.root }

// MaxFileBytes is the largest file captured.
func (c *Capturer) MaxFileBytes() int64 { return c.maxFileBytes }

// Reset drops what this process keeps of earlier captures (after a gc:
// cached contents may be gone). The stat cache file stays when the
// snapshot it describes is still stored (gc keeps a snapshot whole or
// not at all): the next capture checks that before trusting it, so a gc
// does not cost a re-read of every file.
func (c *Capturer) Reset() {
	c.mu.Lock()
	c.cache = nil
	c.live = nil
	c.checkCache = true
	c.mu.Unlock()
}

// loadCache reads the stat cache file, checking after a Reset that the
// snapshot it describes is still stored.
func (c *Capturer) loadCache() *cacheFile {
	cf := loadCacheFile(c.cachePath)
	if c.checkCache && cf != nil {
		var root ID
		if rec := cf.find(""); rec != nil {
			root = openRec(rec).tree
		}
		if root.IsZero() || !c.objects.Has(root) {
			cf = nil
			os.Remove(c.cachePath)
		}
	}
	c.checkCache = false
	return cf
}

// Result is one capture.
type Result struct {
	ID ID // the snapshot ID
	// Manifest is every captured path; nil for an incremental capture
	// (ReadTree(ID) gives it).
	Manifest  Manifest
	Read      int // files read because their stat changed
	FileCount int // captured files, links included, skipped ones not
	Duration  time.Duration
}

// Files counts the captured files (links included, skipped ones not).
func (r *Result) Files() int {
	if r.Manifest == nil {
		return r.FileCount
	}
	n := 0
	for _, e := range r.Manifest {
		if e.Kind != KindSkipped {
			n++
		}
	}
	return n
}

// Overlay gives the editor's text for open files (root-relative path).
type Overlay func(rel string) ([]byte, bool)

// Capture snapshots the root. With overlay, the text of open documents
// replaces the disk content of those files.
func (c *Capturer) Capture(ctx context.Context, overlay Overlay) (*Result, error) {
	start := time.Now()
	tr := NewTracer("capture")
	defer tr.Done()
	c.mu.Lock()
	defer c.mu.Unlock()
	cf := c.loadCache()
	tr.Mark("load stat cache")
	ig, err := gitignore.NewIgnorer(c.root)
	tr.Mark("ignore rules")
	if err != nil {
		return nil, fmt.Errorf("capture %s: %w", c.root, err)
	}
	if fi, err := os.Stat(c.root); err != nil {
		return nil, fmt.Errorf("capture %s: %w", c.root, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("capture %s: not a folder", c.root)
	}
	s := &scan{c: c, ig: ig, ctx: ctx, overlay: overlay, cache: cf, dmg: c.damagedNow(),
		materialize: overlay == nil && c.keepLive}
	if cf == nil {
		// A first capture reads every file: the fastest compression keeps
		// it near the speed of reading; later turns store what changed at
		// the default level.
		c.objects.SetFast(true)
		defer c.objects.SetFast(false)
	}
	if err := s.run(""); err != nil {
		return nil, err
	}
	tr.Mark(fmt.Sprintf("walk (%d folders, %d read)", len(s.results), s.read))
	root, err := s.trees("")
	if err != nil {
		return nil, err
	}
	id := root.id
	tr.Mark("trees")
	if err := c.objects.Sync(); err != nil {
		return nil, err
	}
	tr.Mark("sync")
	at := int64(0)
	if cf != nil {
		at = cf.at
	}
	if data := s.cacheBytes(); data != nil {
		// A failed save only costs re-reading files next time.
		if t, err := saveCacheFile(c.cachePath, data); err == nil {
			at = t
		}
		tr.Mark("save stat cache")
	}
	files := 0
	for _, r := range s.results {
		files += r.count
	}
	res := &Result{ID: id, Read: s.read, FileCount: files, Duration: time.Since(start)}
	if s.materialize {
		m, keys := s.manifest()
		res.Manifest = m
		c.cache = &statCache{files: keys, at: at}
		c.live = buildLive(m, ig)
		if _, err := c.live.root.hash(c.objects); err != nil || c.live.root.id != id {
			c.live = nil // never trust a live tree that disagrees with the walk
		}
	}
	if overlay == nil {
		c.noteRoot(id)
	}
	return res, nil
}

// excluded reports whether folder rel is one never captured.
func (c *Capturer) excluded(rel string) bool {
	if len(c.exclude) == 0 {
		return false
	}
	abs := filepath.Join(c.root, filepath.FromSlash(rel))
	for _, x := range c.exclude {
		if abs == x {
			return true
		}
	}
	return false
}

// IsGitPath reports whether a root-relative path lies in a .git folder or is
// a .git file, in any spelling a file system may take for it: capture never
// enters and restore never touches those.
func IsGitPath(rel string) bool {
	for _, el := range strings.Split(rel, "/") {
		if rootfs.IsGitName(el) {
			return true
		}
	}
	return false
}

// Tracer prints the phases of an operation to stderr when REWIND_LSP_TRACE
// is set (stderr is the log in server mode).
type Tracer struct {
	name  string
	on    bool
	start time.Time
	last  time.Time
	parts []string
}

// NewTracer starts timing an operation.
func NewTracer(name string) *Tracer {
	now := time.Now()
	return &Tracer{name: name, on: os.Getenv("REWIND_LSP_TRACE") != "", start: now, last: now}
}

// Mark ends a phase.
func (t *Tracer) Mark(phase string) {
	if !t.on {
		return
	}
	now := time.Now()
	t.parts = append(t.parts, fmt.Sprintf("%s %.1fms", phase, float64(now.Sub(t.last).Microseconds())/1000))
	t.last = now
}

// Done prints the phases.
func (t *Tracer) Done() {
	if t.on {
		fmt.Fprintf(os.Stderr, "rewind-lsp trace: %s %.1fms: %s\n", t.name, float64(time.Since(t.start).Microseconds())/1000, strings.Join(t.parts, ", "))
	}
}

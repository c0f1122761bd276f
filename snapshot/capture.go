package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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
	cache *statCache
	live  *liveTree // the last capture without overlay, for CaptureChanged

	saveTimer *time.Timer
	keepLive  bool // keep the live tree for CaptureChanged (a running server)

	heal healState
}

// KeepLive makes full captures keep their tree in memory, so that
// CaptureChanged can update it; a running server sets it.
func (c *Capturer) KeepLive() {
	c.mu.Lock()
	c.keepLive = true
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

// Reset drops the stat cache (after a gc: cached contents may be gone).
func (c *Capturer) Reset() {
	c.mu.Lock()
	c.cache = newStatCache()
	c.live = nil
	os.Remove(c.cachePath)
	c.mu.Unlock()
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
	if c.cache == nil {
		c.cache = loadStatCache(c.cachePath)
		tr.Mark("load stat cache")
	}
	if dmg := c.damagedNow(); dmg != nil {
		c.forgetDamaged(dmg)
	}
	ig, err := NewIgnorer(c.root)
	tr.Mark("ignore rules")
	if err != nil {
		return nil, fmt.Errorf("capture %s: %w", c.root, err)
	}
	if fi, err := os.Stat(c.root); err != nil {
		return nil, fmt.Errorf("capture %s: %w", c.root, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("capture %s: not a folder", c.root)
	}
	n := len(c.cache.files) + 64
	w := &walker{c: c, ig: ig, ctx: ctx, overlay: overlay, found: make(Manifest, n), seen: make(map[string]cacheEntry, n)}
	if err := w.run(); err != nil {
		return nil, err
	}
	tr.Mark(fmt.Sprintf("walk (%d files, %d read)", len(w.found), w.read))
	id, err := WriteTree(c.objects, w.found, c.cache.trees)
	if err != nil {
		return nil, fmt.Errorf("capture %s: %w", c.root, err)
	}
	tr.Mark("trees")
	if err := c.objects.Sync(); err != nil {
		return nil, err
	}
	tr.Mark("sync")
	// Rewriting the whole cache costs more than re-reading a few changed
	// files next time: save it when many files were read or went away.
	stale := w.read + abs(len(w.seen)-len(c.cache.files))
	c.cache.files = w.seen
	if stale > staleBeforeSave || (stale > 0 && c.cache.at == 0) {
		// A failed save only costs re-reading files next time.
		_ = c.cache.save(c.cachePath)
		tr.Mark("save stat cache")
	}
	if overlay == nil && c.keepLive {
		c.live = buildLive(w.found, ig)
		if _, err := c.live.root.hash(c.objects); err != nil || c.live.root.id != id {
			c.live = nil // never trust a live tree that disagrees with the walk
		}
	}
	if overlay == nil {
		c.noteRoot(id)
	}
	res := &Result{ID: id, Manifest: w.found, Read: w.read, Duration: time.Since(start)}
	res.FileCount = res.Files()
	return res, nil
}

// staleBeforeSave is how many files a capture may read (because their stat
// changed since the saved cache) before the cache is written again.
const staleBeforeSave = 64

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// walker is one capture's parallel walk of the root.
type walker struct {
	c       *Capturer
	ig      *Ignorer
	ctx     context.Context
	overlay Overlay

	mu    sync.Mutex
	found Manifest
	seen  map[string]cacheEntry
	read  int
	err   error
}

func (w *walker) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

func (w *walker) run() error { return w.runFrom("") }

// runFrom walks the folder start ("" for the root) and everything below.
func (w *walker) runFrom(start string) error {
	jobs := make(chan string, 1024)
	var pending sync.WaitGroup
	var workers sync.WaitGroup
	// System calls on a warm cache are CPU work: a few workers per core
	// keep the cores busy without scheduler churn.
	n := runtime.GOMAXPROCS(0) * 2
	if n > 16 {
		n = 16
	}
	for i := 0; i < n; i++ {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for dir := range jobs {
				w.dir(dir, func(sub string) {
					pending.Add(1)
					select {
					case jobs <- sub:
					default:
						// The queue is full: walk it here rather than block.
						go func() { jobs <- sub }()
					}
				})
				pending.Done()
			}
		}()
	}
	pending.Add(1)
	jobs <- start
	pending.Wait()
	close(jobs)
	workers.Wait()
	if w.err == nil {
		if err := w.ctx.Err(); err != nil {
			return err
		}
	}
	return w.err
}

// dir captures the entries of one folder, sending sub-folders to more.
// Entries are stat'ed relative to the folder's descriptor, which spares the
// kernel a path walk per file.
func (w *walker) dir(rel string, more func(string)) {
	if w.ctx.Err() != nil {
		return
	}
	abs := filepath.Join(w.c.root, filepath.FromSlash(rel))
	// A blocking descriptor: os.Open would register the folder with the
	// network poller, a wasted system call or two per folder.
	var f *os.File
	var ents []fs.DirEntry
	dfd, err := unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == nil {
		f = os.NewFile(uintptr(dfd), abs)
		ents, err = f.ReadDir(-1)
		defer f.Close()
	}
	if err != nil {
		if rel != "" && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOTDIR)) {
			return // removed while walking, or unreadable: not captured
		}
		w.fail(fmt.Errorf("capture %s: %w", abs, err))
		return
	}
	fd := int(f.Fd())
	hasGit, hasRewind := false, false
	for _, de := range ents {
		switch de.Name() {
		case gitignoreName:
			hasGit = true
		case rewindignoreName:
			hasRewind = true
		}
	}
	w.ig.NoteListing(rel, hasGit, hasRewind)
	for _, de := range ents {
		name := de.Name()
		if name == ".git" {
			continue
		}
		p := name
		if rel != "" {
			p = rel + "/" + name
		}
		t := de.Type()
		isDir := t.IsDir()
		if w.ig.Ignored(p, isDir) {
			continue
		}
		if isDir {
			if w.excluded(filepath.Join(abs, name)) {
				continue
			}
			more(p)
			continue
		}
		if t&^(fs.ModeSymlink) != 0 {
			continue // sockets, pipes, devices
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			w.fail(fmt.Errorf("capture %s: %w", p, err))
			return
		}
		if err := w.fileStat(p, abs+"/"+name, &st); err != nil {
			w.fail(err)
			return
		}
	}
}

func (w *walker) excluded(abs string) bool {
	for _, x := range w.c.exclude {
		if abs == x {
			return true
		}
	}
	return false
}

// file captures one file or link.
func (w *walker) file(rel, abs string) error {
	var st unix.Stat_t
	if err := unix.Lstat(abs, &st); err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR) {
			return nil
		}
		return fmt.Errorf("capture %s: %w", rel, err)
	}
	return w.fileStat(rel, abs, &st)
}

// fileStat captures one file or link whose stat is st.
func (w *walker) fileStat(rel, abs string, st *unix.Stat_t) error {
	var kind Kind
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		kind = KindSymlink
	case unix.S_IFREG:
		kind = KindFile
		if st.Mode&0o111 != 0 {
			kind = KindExec
		}
	default:
		return nil
	}
	var ov []byte
	hasOv := false
	if w.overlay != nil && kind != KindSymlink {
		ov, hasOv = w.overlay(rel)
	}
	k := keyOfStat(st)
	if kind != KindSymlink && k.size > w.c.maxFileBytes && !hasOv {
		w.add(rel, Entry{Kind: KindSkipped, Size: k.size}, nil, false)
		return nil
	}
	if !hasOv {
		if ce, ok := w.c.cache.trusted(rel, k); ok && ce.kind == kind {
			w.add(rel, Entry{Kind: kind, ID: ce.id, Size: k.size}, &ce, false)
			return nil
		}
	}
	var data []byte
	var err error
	if hasOv {
		data = ov
	} else if kind == KindSymlink {
		t, err := os.Readlink(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("capture %s: %w", rel, err)
		}
		data = []byte(t)
	} else {
		data, err = os.ReadFile(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return fmt.Errorf("capture %s: %w", rel, err)
		}
	}
	id, err := w.c.objects.Put(data)
	if err != nil {
		return fmt.Errorf("capture %s: %w", rel, err)
	}
	e := Entry{Kind: kind, ID: id, Size: int64(len(data))}
	if hasOv {
		w.add(rel, e, nil, true)
		return nil
	}
	ce := cacheEntry{key: k, kind: kind, id: id}
	if int64(len(data)) != k.size && kind != KindSymlink {
		// Changed while reading: keep the content, distrust the stat.
		ce.key.size = -1
	}
	w.add(rel, e, &ce, true)
	return nil
}

func (w *walker) add(rel string, e Entry, ce *cacheEntry, read bool) {
	w.mu.Lock()
	w.found[rel] = e
	if ce != nil {
		w.seen[rel] = *ce
	}
	if read {
		w.read++
	}
	w.mu.Unlock()
}

// IsGitPath reports whether a root-relative path lies in a .git folder or is
// a .git file: capture never enters and restore never touches those.
func IsGitPath(rel string) bool {
	for _, el := range strings.Split(rel, "/") {
		if el == ".git" {
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

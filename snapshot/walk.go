package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/rewind-lsp/rewind-lsp/gitignore"
	"github.com/rewind-lsp/rewind-lsp/rootfs"
)

// scan is one parallel walk of a folder and everything below it, on
// rootfs (never through a link): every folder is listed and every file
// stat'ed relative to its folder; a file whose stat matches the cache is not read, and a
// folder whose files all match keeps its tree ID without being encoded.
type scan struct {
	c           *Capturer
	fs          *rootfs.Root // the root, opened by run
	openJobs    atomic.Int64 // folders opened ahead of their walk
	ig          *gitignore.Ignorer
	ctx         context.Context
	overlay     Overlay
	cache       *cacheFile  // nil: every file is read
	dmg         map[ID]bool // known-damaged objects: never reused
	materialize bool        // keep every file's entry (a running server)

	mu      sync.Mutex
	results []*dirResult
	read    int
	racy    bool // a racy entry was read again: write the cache
	err     error
}

// fileResult is one file, link or skipped file of a folder.
type fileResult struct {
	name string
	e    Entry
	key  statKey
}

// dirResult is what the walk found in one folder.
type dirResult struct {
	rel     string
	rec     []byte       // the folder's cache record, or nil
	same    bool         // its files are exactly the record's
	files   []fileResult // sorted by name; nil when same and not materialized
	subdirs []string     // the subfolders walked, sorted
	count   int          // files and links (skipped ones not)

	id       ID
	nonEmpty bool
	verbatim bool // its record can be copied into the next cache as it is
}

func (s *scan) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

// run walks start ("" for the root) and everything below.
func (s *scan) run(start string) error {
	root, err := rootfs.Open(s.c.root)
	if err != nil {
		return fmt.Errorf("capture %s: %w", s.c.root, err)
	}
	defer root.Close()
	s.fs = root
	jobs := make(chan walkJob, 1024)
	var pending sync.WaitGroup
	var workers sync.WaitGroup
	// System calls on a warm cache are CPU work, reading and compressing
	// files too: a few workers per core keep both cores busy.
	n := runtime.GOMAXPROCS(0) * 2
	if n > 16 {
		n = 16
	}
	for i := 0; i < n; i++ {
		workers.Add(1)
		go func() {
			defer workers.Done()
			var w walker // reused from folder to folder
			for j := range jobs {
				if j.d != nil {
					s.openJobs.Add(-1)
				}
				s.dir(j, &w, func(sub walkJob) {
					pending.Add(1)
					select {
					case jobs <- sub:
					default:
						go func() { jobs <- sub }() // the queue is full: never block a worker
					}
				})
				pending.Done()
			}
		}()
	}
	pending.Add(1)
	jobs <- walkJob{rel: start}
	pending.Wait()
	close(jobs)
	workers.Wait()
	if s.err == nil {
		if err := s.ctx.Err(); err != nil {
			return err
		}
	}
	return s.err
}

// walkJob is a folder to walk: its path, and the folder itself when its
// parent's walk opened it (one open relative to the parent, instead of one
// from the root through every folder above it).
type walkJob struct {
	rel string
	d   *rootfs.Dir
}

// maxOpenJobs bounds the folders opened ahead of their walk (open
// descriptors; Go raises the limit of open files to the hard one, 10240 on
// macOS, at start); past it a folder is
// opened from the root when its turn comes.
const maxOpenJobs = 512

// dir captures the entries of the folder of job j, sending subfolders to
// more.
func (s *scan) dir(j walkJob, w *walker, more func(walkJob)) {
	rel, d := j.rel, j.d
	l := &w.l
	if s.ctx.Err() != nil {
		if d != nil {
			d.Close()
		}
		return
	}
	var err error
	if d == nil {
		d, err = s.fs.OpenDir(rel) // a folder swapped for a link is not entered
	}
	if err == nil {
		err = d.List(l)
		defer d.Close()
	}
	if err != nil {
		if rel != "" && gone(err) {
			return // removed while walking, or unreadable: not captured
		}
		s.fail(fmt.Errorf("capture %s: %w", filepath.Join(s.c.root, filepath.FromSlash(rel)), err))
		return
	}
	hasGit, hasRewind := false, false
	for _, e := range l.Entries {
		switch string(e.Name) {
		case gitignore.GitFile:
			hasGit = true
		case gitignore.RewindFile:
			hasRewind = true
		}
	}
	s.ig.NoteListing(rel, hasGit, hasRewind)

	r := &dirResult{rel: rel, rec: s.cache.find(rel)}
	var cr cacheRec
	var ce recEntry
	haveCE := false
	if r.rec != nil {
		cr = openRec(r.rec)
		haveCE = cr.next(&ce)
	}
	r.same = r.rec != nil
	// matchCached moves through the record to name and returns its entry.
	matchCached := func(name []byte) (recEntry, bool) {
		for haveCE {
			c := bytes.Compare(ce.name, name)
			if c > 0 {
				return recEntry{}, false
			}
			e := ce
			if ce.kind != kindDir && c < 0 {
				r.same = false // a file that is gone
			}
			haveCE = cr.next(&ce)
			if c == 0 {
				return e, true
			}
		}
		return recEntry{}, false
	}
	// The files found are kept in the walker's scratch, by their place in
	// the listing: only a folder that changed (or a running server's
	// capture) makes them results, with names of their own.
	kept := w.kept[:0]
	keep := func(i int, e Entry, k statKey) {
		kept = append(kept, keptFile{i: i, e: e, key: k})
	}
	var subdirs []string
	var at int64
	if s.cache != nil {
		at = s.cache.at
	}
	for i, ent := range l.Entries {
		name := ent.Name
		if rootfs.IsGitName(string(name)) {
			continue // .git, in any spelling a file system may take for it
		}
		typ := ent.Type
		st, statted := ent.Stat, ent.Statted
		if !statted && typ == rootfs.TypeUnknown {
			if st, err = d.Lstat(string(name)); err != nil {
				continue
			}
			statted = true
			typ = st.Type()
		}
		if typ == rootfs.TypeDir {
			p := join(rel, string(name))
			m, ok := matchCached(name)
			if ok && m.kind != kindDir {
				r.same = false // a file became a folder
			}
			if s.ig.Ignored(p, true) || s.c.excluded(p) {
				continue
			}
			subdirs = append(subdirs, string(name))
			sub := walkJob{rel: p}
			if s.openJobs.Load() < maxOpenJobs {
				if child, err := d.OpenDir(string(name)); err == nil {
					s.openJobs.Add(1)
					sub.d = child
				}
			}
			more(sub)
			continue
		}
		if typ != rootfs.TypeFile && typ != rootfs.TypeLink {
			continue // sockets, pipes, devices
		}
		m, cached := matchCached(name)
		if cached && m.kind == kindDir {
			r.same, cached = false, false // a folder became a file
		}
		p := join(rel, string(name))
		if s.ig.Ignored(p, false) {
			if cached {
				r.same = false
			}
			continue
		}
		if !statted {
			if st, err = d.Lstat(string(name)); err != nil {
				if cached {
					r.same = false
				}
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				s.fail(fmt.Errorf("capture %s: %w", p, err))
				return
			}
		}
		var prev Kind // the recorded kind: where files have no executable bit, it is kept
		if cached {
			prev = m.kind
		}
		kind, isFile := kindOfStat(st.Mode, prev)
		if !isFile {
			if cached {
				r.same = false
			}
			continue
		}
		k := keyOfStat(st)
		var ov []byte
		hasOv := false
		if s.overlay != nil && kind != KindSymlink {
			ov, hasOv = s.overlay(p)
		}
		if kind != KindSymlink && k.size > s.c.maxFileBytes && !hasOv {
			if !cached || m.kind != KindSkipped || m.key != k {
				r.same = false
			}
			keep(i, Entry{Kind: KindSkipped, Size: k.size}, k)
			continue
		}
		r.count++
		racy := false
		if !hasOv && cached && m.kind == kind && m.key == k && !s.dmg[m.id] {
			if !isRacy(k, at) {
				keep(i, Entry{Kind: kind, ID: m.id, Size: k.size}, k)
				continue
			}
			racy = true
		}
		var data []byte
		if hasOv {
			data = ov
		} else if data, err = readEntry(d, string(name), kind, k.size, w.buf); err != nil {
			r.count--
			if cached {
				r.same = false
			}
			if gone(err) {
				continue
			}
			s.fail(fmt.Errorf("capture %s: %w", p, err))
			return
		}
		id, err := s.c.objects.Put(data) // the store keeps a copy
		if err != nil {
			s.fail(fmt.Errorf("capture %s: %w", p, err))
			return
		}
		if !hasOv && kind != KindSymlink && cap(data) <= maxReusedBuf {
			w.buf = data[:0]
		}
		key := k
		if hasOv || (kind != KindSymlink && int64(len(data)) != k.size) {
			key.size = -1 // the overlay's text, or changed while reading: never trusted
		}
		if !cached || m.kind != kind || m.id != id || m.key != key {
			r.same = false
		}
		keep(i, Entry{Kind: kind, ID: id, Size: int64(len(data))}, key)
		s.mu.Lock()
		s.read++
		if racy {
			s.racy = true
		}
		s.mu.Unlock()
	}
	for haveCE { // entries after the last name: files gone
		if ce.kind != kindDir {
			r.same = false
		}
		haveCE = cr.next(&ce)
	}
	if !r.same || s.materialize {
		r.files = keptFiles(kept, l)
	}
	w.kept = kept[:0]
	r.subdirs = subdirs
	s.mu.Lock()
	s.results = append(s.results, r)
	s.mu.Unlock()
}

// walker is what a walking goroutine reuses from folder to folder and from
// file to file: a first capture reads gigabytes, and a buffer per file
// would be that much garbage.
type walker struct {
	l    rootfs.Listing
	buf  []byte     // the last file read, up to maxReusedBuf
	kept []keptFile // the files of the folder being walked
}

// keptFile is a file of a folder being walked: its entry's place in the
// listing, and what was found.
type keptFile struct {
	i   int
	e   Entry
	key statKey
}

// keptFiles makes the results of the files kept from listing l, their
// names in one string.
func keptFiles(kept []keptFile, l *rootfs.Listing) []fileResult {
	if len(kept) == 0 {
		return nil
	}
	n := 0
	for _, k := range kept {
		n += len(l.Entries[k.i].Name)
	}
	b := make([]byte, 0, n)
	for _, k := range kept {
		b = append(b, l.Entries[k.i].Name...)
	}
	names := string(b)
	out := make([]fileResult, len(kept))
	off := 0
	for j, k := range kept {
		m := len(l.Entries[k.i].Name)
		out[j] = fileResult{name: names[off : off+m], e: k.e, key: k.key}
		off += m
	}
	return out
}

// maxReusedBuf is the largest read buffer a walker keeps.
const maxReusedBuf = 4 << 20

// readEntry reads a file, or a link's target, in folder d, into buf's
// memory when it is large enough.
func readEntry(d *rootfs.Dir, name string, kind Kind, size int64, buf []byte) ([]byte, error) {
	if kind == KindSymlink {
		t, err := d.Readlink(name)
		return []byte(t), err
	}
	return d.ReadFileInto(buf, name, size)
}

// gone reports whether a walk error means the entry is not there to capture:
// removed meanwhile, unreadable, or swapped for a link or a file. (A file
// another program holds open on Windows is not gone: the capture fails.)
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, rootfs.ErrLink) || errors.Is(err, rootfs.ErrNotDir) || errors.Is(err, rootfs.ErrIsDir)
}

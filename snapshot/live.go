package snapshot

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/gitignore"
	"github.com/rewind-lsp/rewind-lsp/rootfs"
)

// dirNode is one folder of the live tree: the last captured state kept in
// memory so a capture only visits what changed. id is valid unless dirty.
type dirNode struct {
	files map[string]Entry
	dirs  map[string]*dirNode
	id    ID
	dirty bool
}

func newDirNode() *dirNode {
	return &dirNode{files: map[string]Entry{}, dirs: map[string]*dirNode{}, dirty: true}
}

// liveTree is the in-memory tree of the last capture without overlay.
type liveTree struct {
	root  *dirNode
	ig    *gitignore.Ignorer
	files int
}

func buildLive(m Manifest, ig *gitignore.Ignorer) *liveTree {
	lt := &liveTree{root: newDirNode(), ig: ig}
	for p, e := range m {
		lt.put(p, e)
	}
	return lt
}

// node returns the folder node of dir (slash path), creating it when make
// is set; every node on the way is marked dirty when make is set.
func (lt *liveTree) node(dir string, make bool) *dirNode {
	n := lt.root
	if make {
		n.dirty = true
	}
	if dir == "" {
		return n
	}
	for _, el := range strings.Split(dir, "/") {
		c := n.dirs[el]
		if c == nil {
			if !make {
				return nil
			}
			c = newDirNode()
			n.dirs[el] = c
		}
		if make {
			c.dirty = true
		}
		n = c
	}
	return n
}

func (lt *liveTree) put(p string, e Entry) {
	n := lt.node(parentDir(p), true)
	name := p[strings.LastIndexByte(p, '/')+1:]
	if _, ok := n.files[name]; !ok && e.Kind != KindSkipped {
		lt.files++
	}
	n.files[name] = e
}

// remove drops p, a file or a whole folder, from the tree.
func (lt *liveTree) remove(p string) {
	parent := lt.node(parentDir(p), false)
	if parent == nil {
		return
	}
	name := p[strings.LastIndexByte(p, '/')+1:]
	if e, ok := parent.files[name]; ok {
		lt.node(parentDir(p), true)
		delete(parent.files, name)
		if e.Kind != KindSkipped {
			lt.files--
		}
	}
	if sub, ok := parent.dirs[name]; ok {
		lt.node(parentDir(p), true)
		lt.files -= sub.count()
		delete(parent.dirs, name)
	}
}

func (n *dirNode) count() int {
	c := 0
	for _, e := range n.files {
		if e.Kind != KindSkipped {
			c++
		}
	}
	for _, d := range n.dirs {
		c += d.count()
	}
	return c
}

// hash computes the IDs of dirty folders bottom-up, storing their tree
// objects. It returns false for a folder with nothing in it (not part of
// the snapshot, like in WriteTree).
func (n *dirNode) hash(o *Objects) (bool, error) {
	if !n.dirty {
		return len(n.files) > 0 || len(n.dirs) > 0, nil
	}
	ents := make([]treeEntry, 0, len(n.files)+len(n.dirs))
	for name, e := range n.files {
		ents = append(ents, treeEntry{name: name, kind: e.Kind, id: e.ID, size: e.Size})
	}
	for name, d := range n.dirs {
		nonEmpty, err := d.hash(o)
		if err != nil {
			return false, err
		}
		if !nonEmpty {
			delete(n.dirs, name)
			continue
		}
		ents = append(ents, treeEntry{name: name, kind: kindDir, id: d.id})
	}
	if len(ents) == 0 {
		n.dirty = false
		n.id = ID{}
		return false, nil
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].name < ents[j].name })
	data := encodeTree(ents)
	prev := n.id
	n.id = Sum(data)
	if err := o.putTree(n.id, data, ents, prev); err != nil {
		return false, err
	}
	n.dirty = false
	return true, nil
}

// CaptureChanged snapshots the root like Capture, but when a previous
// capture without overlay is in memory it only visits the paths in changed
// (root-relative files or folders, as a file watcher reports them), so its
// cost grows with the change, not with the tree. A change to an ignore file,
// or an empty root path in changed, makes it walk the whole root.
func (c *Capturer) CaptureChanged(ctx context.Context, changed []string) (*Result, error) {
	c.mu.Lock()
	lt := c.live
	full := lt == nil
	for _, p := range changed {
		base := p[strings.LastIndexByte(p, '/')+1:]
		if p == "" || gitignore.IsIgnoreFile(base) {
			full = true
		}
	}
	c.mu.Unlock()
	if full {
		return c.Capture(ctx, nil)
	}
	start := time.Now()
	tr := NewTracer("capture changed")
	defer tr.Done()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live != lt { // a full capture replaced it meanwhile
		lt = c.live
	}
	if dmg := c.damagedNow(); dmg != nil {
		c.forgetDamaged(dmg)
		changed = append(changed, lt.damagedPaths(dmg)...)
	}
	sort.Strings(changed)
	root, err := rootfs.Open(c.root)
	if err != nil {
		c.live = nil
		return nil, fmt.Errorf("capture %s: %w", c.root, err)
	}
	defer root.Close()
	read := 0
	for i, p := range changed {
		if i > 0 && (p == changed[i-1] || strings.HasPrefix(p, changed[i-1]+"/")) && isDirIn(lt, changed[i-1]) {
			continue // inside a folder already walked below
		}
		n, err := c.update(ctx, root, lt, p)
		if err != nil {
			c.live = nil // rebuild from a full walk next time
			return nil, err
		}
		read += n
	}
	tr.Mark(fmt.Sprintf("%d paths, %d read", len(changed), read))
	if _, err := lt.root.hash(c.objects); err != nil {
		c.live = nil
		return nil, fmt.Errorf("capture %s: %w", c.root, err)
	}
	tr.Mark("trees")
	c.objects.SyncSoon()
	c.noteRoot(lt.root.id)
	if read > 0 {
		c.saveCacheLater()
	}
	return &Result{ID: lt.root.id, Read: read, FileCount: lt.files, Duration: time.Since(start)}, nil
}

func isDirIn(lt *liveTree, p string) bool { return lt.node(p, false) != nil }

// Patch records writes the caller made and knows the content of (a
// rewind's): the kept live tree gets each path set to its entry (nil: gone;
// the content is stored already), as a capture of those paths would. It
// returns the snapshot of the tree then, or false when no live tree is
// kept.
func (c *Capturer) Patch(changes map[string]*Entry) (ID, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live == nil {
		return ID{}, false
	}
	for p, e := range changes {
		c.live.remove(p)
		if c.cache != nil {
			delete(c.cache.files, p) // read again at the next capture of p
		}
		if e != nil {
			c.live.put(p, *e)
		}
	}
	if _, err := c.live.root.hash(c.objects); err != nil {
		c.live = nil
		return ID{}, false
	}
	c.noteRoot(c.live.root.id)
	return c.live.root.id, true
}

// Live reports whether the tree of the last capture is kept in memory, so
// that CaptureChanged visits only the changed paths; without it (before
// the first capture, after Reset) CaptureChanged walks the whole root.
func (c *Capturer) Live() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live != nil
}

// update brings path p of the live tree up to date with the disk and
// returns the number of files read.
func (c *Capturer) update(ctx context.Context, root *rootfs.Root, lt *liveTree, p string) (int, error) {
	if !ValidPath(p) || IsGitPath(p) {
		return 0, nil
	}
	// A path below an ignored folder, or ignored itself, is not captured.
	els := strings.Split(p, "/")
	for i := 1; i < len(els); i++ {
		if lt.ig.Ignored(strings.Join(els[:i], "/"), true) {
			lt.remove(p)
			return 0, nil
		}
	}
	dir, name := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	parent, err := root.OpenDir(dir) // never through a link
	var st rootfs.Stat
	if err == nil {
		defer parent.Close()
		st, err = parent.Lstat(name)
	}
	// A folder above p became a file or link, or p is gone.
	if err != nil && gone(err) {
		lt.remove(p)
		delete(c.cache.files, p)
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("capture %s: %w", p, err)
	}
	isDir := st.Type() == rootfs.TypeDir
	if lt.ig.Ignored(p, isDir) {
		lt.remove(p)
		return 0, nil
	}
	if isDir {
		if c.excluded(p) {
			return 0, nil
		}
		lt.remove(p)
		prefix := p + "/"
		for k := range c.cache.files {
			if strings.HasPrefix(k, prefix) {
				delete(c.cache.files, k)
			}
		}
		sc := &scan{c: c, ig: lt.ig, ctx: ctx, materialize: true}
		if err := sc.run(p); err != nil {
			return 0, err
		}
		for _, r := range sc.results {
			for _, f := range r.files {
				k := join(r.rel, f.name)
				lt.put(k, f.e)
				c.cache.files[k] = cacheEntry{key: f.key, kind: f.e.Kind, id: f.e.ID}
			}
		}
		return sc.read, nil
	}
	lt.remove(p) // a folder may have become a file
	e, ce, ok, read, err := c.captureFile(parent, p, name, st)
	if err != nil {
		return 0, err
	}
	if !ok {
		delete(c.cache.files, p)
		return 0, nil
	}
	lt.put(p, e)
	c.cache.files[p] = ce
	if read {
		return 1, nil
	}
	return 0, nil
}

// captureFile captures one file or link, name in folder parent (rel from
// the root) whose Lstat gave st, through the running server's stat cache;
// ok is false when it is gone or not a file.
func (c *Capturer) captureFile(parent *rootfs.Dir, rel, name string, st rootfs.Stat) (e Entry, ce cacheEntry, ok, read bool, err error) {
	kind, isFile := kindOfStat(st.Mode, c.cache.files[rel].kind)
	if !isFile {
		return e, ce, false, false, nil
	}
	k := keyOfStat(st)
	if kind != KindSymlink && k.size > c.maxFileBytes {
		return Entry{Kind: KindSkipped, Size: k.size}, cacheEntry{key: k, kind: KindSkipped}, true, false, nil
	}
	if cached, ok := c.cache.trusted(rel, k); ok && cached.kind == kind && !c.objects.IsDamaged(cached.id) {
		return Entry{Kind: kind, ID: cached.id, Size: k.size}, cached, true, false, nil
	}
	data, err := readEntry(parent, name, kind, k.size, nil)
	if err != nil {
		if gone(err) {
			return e, ce, false, false, nil
		}
		return e, ce, false, false, fmt.Errorf("capture %s: %w", rel, err)
	}
	id, err := c.objects.Put(data)
	if err != nil {
		return e, ce, false, false, fmt.Errorf("capture %s: %w", rel, err)
	}
	ce = cacheEntry{key: k, kind: kind, id: id}
	if int64(len(data)) != k.size && kind != KindSymlink {
		ce.key.size = -1 // changed while reading: keep the content, distrust the stat
	}
	return Entry{Kind: kind, ID: id, Size: int64(len(data))}, ce, true, true, nil
}

// saveCacheLater writes the stat cache a little later, off the capture's
// path: in a running server the live tree is what counts, and the file only
// spares a later process some reading.
func (c *Capturer) saveCacheLater() {
	if c.saveTimer != nil {
		c.saveTimer.Reset(2 * time.Second) // re-arms it even after it fired
		return
	}
	c.saveTimer = time.AfterFunc(2*time.Second, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.cache != nil {
			_ = c.cache.saveLive(c.cachePath, c.live)
		}
	})
}

// Flush writes a stat cache whose save is pending now (a server that
// stops), and cancels the pending save.
func (c *Capturer) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.saveTimer != nil && c.saveTimer.Stop() && c.cache != nil {
		_ = c.cache.saveLive(c.cachePath, c.live)
	}
	c.saveTimer = nil
}

// UnderFolders reports whether every folder above rel (root-relative, with
// slashes) is a real folder: no symbolic link, no file. A path below a link
// is not part of the workspace — links are captured as links, never
// followed — so reading it by its path would read whatever lies at the
// link's target, perhaps outside the root. The folders are opened from the
// root down with rootfs, so none of them is followed on the way.
func UnderFolders(root, rel string) bool {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return true
	}
	r, err := rootfs.Open(root)
	if err != nil {
		return false
	}
	defer r.Close()
	d, err := r.OpenDir(rel[:i])
	if err != nil {
		return false
	}
	d.Close()
	return true
}

// CapturePaths is snapshot base with paths (root-relative files) as they
// are on disk now: each read again (one gone is removed, an ignored one
// left as base has it), nothing else visited. A tool call that names the
// files it writes costs what it wrote, with no walk of the root.
func (c *Capturer) CapturePaths(ctx context.Context, base ID, paths []string) (*Result, error) {
	start := time.Now()
	ig, err := gitignore.NewIgnorer(c.root)
	if err != nil {
		return nil, fmt.Errorf("capture %s: %w", c.root, err)
	}
	root, err := rootfs.Open(c.root)
	if err != nil {
		return nil, fmt.Errorf("capture %s: %w", c.root, err)
	}
	defer root.Close()
	changes := map[string]*Entry{}
	read := 0
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !ValidPath(p) || IsGitPath(p) || c.excluded(p) {
			continue
		}
		e, ok, err := c.capturePath(root, ig, base, p)
		if err != nil {
			return nil, err
		}
		if ok {
			changes[p] = e
			if e != nil && e.Kind != KindSkipped {
				read++
			}
		}
	}
	id, err := PatchTree(c.objects, base, changes)
	if err != nil {
		return nil, fmt.Errorf("capture %s: %w", c.root, err)
	}
	if err := c.objects.Sync(); err != nil {
		return nil, err
	}
	return &Result{ID: id, Read: read, Duration: time.Since(start)}, nil
}

// capturePath is what CapturePaths records for p: its entry, nil when it
// is gone, or ok false to leave it as base has it (ignored, a folder, not
// a file).
func (c *Capturer) capturePath(root *rootfs.Root, ig *gitignore.Ignorer, base ID, p string) (*Entry, bool, error) {
	els := strings.Split(p, "/")
	for i := 1; i < len(els); i++ {
		if ig.Ignored(strings.Join(els[:i], "/"), true) {
			return nil, false, nil
		}
	}
	dir, name := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	parent, err := root.OpenDir(dir) // never through a link
	var st rootfs.Stat
	if err == nil {
		defer parent.Close()
		st, err = parent.Lstat(name)
	}
	if err != nil {
		if gone(err) {
			return nil, !ig.Ignored(p, false), nil
		}
		return nil, false, fmt.Errorf("capture %s: %w", p, err)
	}
	if st.Type() == rootfs.TypeDir || ig.Ignored(p, false) {
		return nil, false, nil
	}
	var prev Kind
	if e, ok, err := Lookup(c.objects, base, p); err == nil && ok {
		prev = e.Kind
	}
	kind, ok := kindOfStat(st.Mode, prev)
	if !ok {
		return nil, false, nil
	}
	if kind != KindSymlink && st.Size > c.maxFileBytes {
		return &Entry{Kind: KindSkipped, Size: st.Size}, true, nil
	}
	data, err := readEntry(parent, name, kind, st.Size, nil)
	if err != nil {
		if gone(err) {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("capture %s: %w", p, err)
	}
	id, err := c.objects.Put(data)
	if err != nil {
		return nil, false, fmt.Errorf("capture %s: %w", p, err)
	}
	return &Entry{Kind: kind, ID: id, Size: int64(len(data))}, true, nil
}

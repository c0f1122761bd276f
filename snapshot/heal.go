package snapshot

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
)

// Healing damaged objects from the workspace: the store keeps a
// list of objects known to be damaged or missing (found by fsck or by any
// read). A capture re-reads the files whose cached content is on that list
// and rebuilds the folder trees on it, so the store gets good copies and a
// new snapshot never points at a known-damaged object; a reader of a
// damaged object whose file still holds that content gets the file's
// bytes (and the object is written again).

// healState is the part of a Capturer the store's fallback reads, apart
// from the capture lock (a read may happen inside a capture).
type healState struct {
	lastRoot   atomic.Pointer[ID] // the latest capture of the disk
	inFallback atomic.Bool
}

func (c *Capturer) noteRoot(id ID) { c.heal.lastRoot.Store(&id) }

// damagedNow reads the store's list of known-damaged objects again
// (another process may have added to it); nil when it is empty.
func (c *Capturer) damagedNow() map[ID]bool {
	ids := c.objects.Damaged()
	if len(ids) == 0 {
		return nil
	}
	m := make(map[ID]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// forgetDamaged drops a running server's stat cache knowledge of damaged
// content, so the capture reads those files again.
func (c *Capturer) forgetDamaged(dmg map[ID]bool) {
	if c.cache == nil {
		return
	}
	for p, e := range c.cache.files {
		if dmg[e.id] {
			delete(c.cache.files, p)
		}
	}
}

// damagedPaths lists the files of the live tree whose content is damaged,
// and marks the folders whose tree is damaged for rewriting.
func (lt *liveTree) damagedPaths(dmg map[ID]bool) []string {
	var out []string
	var walk func(prefix string, n *dirNode) bool
	walk = func(prefix string, n *dirNode) bool {
		dirty := !n.id.IsZero() && dmg[n.id]
		for name, e := range n.files {
			if dmg[e.ID] {
				out = append(out, join(prefix, name))
			}
		}
		for name, d := range n.dirs {
			if walk(join(prefix, name), d) {
				dirty = true
			}
		}
		if dirty {
			n.dirty = true
		}
		return dirty
	}
	walk("", lt.root)
	return out
}

// fromDisk is the store's fallback for a damaged or missing object: the
// content of a file of the latest capture that still hashes to id.
func (c *Capturer) fromDisk(id ID) ([]byte, bool) {
	if !c.heal.inFallback.CompareAndSwap(false, true) {
		return nil, false // a tree read below needed a fallback itself
	}
	defer c.heal.inFallback.Store(false)
	root := c.heal.lastRoot.Load()
	if root == nil || root.IsZero() {
		return nil, false
	}
	var paths []string
	var walk func(prefix string, tid ID) error
	walk = func(prefix string, tid ID) error {
		ents, err := c.objects.tree(tid)
		if err != nil {
			return err
		}
		for _, e := range ents {
			switch {
			case e.kind == kindDir:
				if err := walk(join(prefix, e.name), e.id); err != nil {
					return err
				}
			case e.id == id && e.kind != KindSkipped:
				paths = append(paths, join(prefix, e.name))
			}
		}
		return nil
	}
	walk("", *root)
	for _, p := range paths {
		abs := filepath.Join(c.root, filepath.FromSlash(p))
		fi, err := os.Lstat(abs)
		if err != nil {
			continue
		}
		var data []byte
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(abs)
			if err != nil {
				continue
			}
			data = []byte(t)
		case fi.Mode().IsRegular():
			if data, err = os.ReadFile(abs); err != nil {
				continue
			}
		default:
			continue
		}
		if Sum(data) == id {
			return data, true
		}
	}
	return nil, false
}

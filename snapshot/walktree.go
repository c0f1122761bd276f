package snapshot

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// After a walk: the folders' trees built bottom-up, the stat cache and the manifest it leaves.

// trees computes the tree of every folder walked, bottom-up: a folder whose
// files and subfolders are unchanged keeps its cached tree ID; the others
// are encoded and stored (as a delta against their previous tree when
// that pays). Folders of one depth do not depend on each other: a level
// with many of them is done on every core (a first capture encodes and
// stores a tree per folder). It returns the root's result.
func (s *scan) trees(start string) (*dirResult, error) {
	byRel := make(map[string]*dirResult, len(s.results))
	for _, r := range s.results {
		byRel[r.rel] = r
	}
	depth := func(rel string) int {
		if rel == "" {
			return -1
		}
		return strings.Count(rel, "/")
	}
	sort.Slice(s.results, func(i, j int) bool { return depth(s.results[i].rel) > depth(s.results[j].rel) })
	for i := 0; i < len(s.results); {
		j, d := i+1, depth(s.results[i].rel)
		for j < len(s.results) && depth(s.results[j].rel) == d {
			j++
		}
		if err := s.level(s.results[i:j], byRel, start); err != nil {
			return nil, fmt.Errorf("capture %s: %w", s.c.root, err)
		}
		i = j
	}
	root := byRel[start]
	if root == nil {
		return nil, fmt.Errorf("capture %s: the folder was not walked", s.c.root)
	}
	return root, nil
}

// parallelTrees is the number of folders of one depth past which their
// trees are made on every core.
const parallelTrees = 64

// level makes the trees of folders of one depth (their subfolders' are
// made).
func (s *scan) level(rs []*dirResult, byRel map[string]*dirResult, start string) error {
	n := runtime.GOMAXPROCS(0)
	if len(rs) < parallelTrees || n < 2 {
		for _, r := range rs {
			if err := s.tree(r, byRel, start); err != nil {
				return err
			}
		}
		return nil
	}
	var next atomic.Int64
	var first atomic.Pointer[error]
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(rs) || first.Load() != nil {
					return
				}
				if err := s.tree(rs[i], byRel, start); err != nil {
					first.CompareAndSwap(nil, &err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if p := first.Load(); p != nil {
		return *p
	}
	return nil
}

// tree sets r's tree ID: the cached one when nothing in it changed, else
// its entries encoded and stored.
func (s *scan) tree(r *dirResult, byRel map[string]*dirResult, start string) error {
	var dirs []treeEntry
	for _, name := range r.subdirs {
		if ch := byRel[join(r.rel, name)]; ch != nil && ch.nonEmpty {
			dirs = append(dirs, treeEntry{name: name, kind: kindDir, id: ch.id})
		}
	}
	var prev ID
	if r.rec != nil {
		cr := openRec(r.rec)
		prev = cr.tree
		if r.same && !prev.IsZero() && !s.dmg[prev] && sameDirs(cr, dirs) {
			r.id, r.nonEmpty, r.verbatim = prev, true, true
			return nil
		}
	}
	files := r.files
	if files == nil && r.same {
		// Unchanged files were not kept while walking: the record has
		// them. (A changed folder left with no files has none.)
		files = recFiles(r.rec)
		r.files = files
	}
	ents := make([]treeEntry, 0, len(files)+len(dirs))
	for _, f := range files {
		ents = append(ents, treeEntry{name: f.name, kind: f.e.Kind, id: f.e.ID, size: f.e.Size})
	}
	ents = append(ents, dirs...)
	slices.SortFunc(ents, func(a, b treeEntry) int { return strings.Compare(a.name, b.name) })
	if len(ents) == 0 && r.rel != start {
		return nil // an empty folder is not part of a snapshot
	}
	data := encodeTree(ents)
	r.id = Sum(data)
	r.nonEmpty = true
	return s.c.objects.putTree(r.id, data, ents, prev)
}

// sameDirs reports whether the folder entries of record cr are dirs.
func sameDirs(cr cacheRec, dirs []treeEntry) bool {
	var e recEntry
	i := 0
	for cr.next(&e) {
		if e.kind != kindDir {
			continue
		}
		if i >= len(dirs) || dirs[i].name != string(e.name) || dirs[i].id != e.id {
			return false
		}
		i++
	}
	return !cr.bad && i == len(dirs)
}

// recFiles lists the files of a record (a folder whose files are unchanged
// but whose subfolders are not).
func recFiles(rec []byte) []fileResult {
	if rec == nil {
		return nil
	}
	cr := openRec(rec)
	var e recEntry
	var out []fileResult
	for cr.next(&e) {
		if e.kind == kindDir {
			continue
		}
		size := e.key.size
		out = append(out, fileResult{name: string(e.name), e: Entry{Kind: e.kind, ID: e.id, Size: size}, key: e.key})
	}
	return out
}

// cacheBytes is the stat cache after the walk, or nil when it would equal
// the one loaded.
func (s *scan) cacheBytes() []byte {
	changed := s.racy || s.cache == nil
	n := 0
	for _, r := range s.results {
		if !r.nonEmpty {
			continue
		}
		n++
		if !r.verbatim {
			changed = true
		}
	}
	if !changed && n == s.cache.n {
		return nil
	}
	size := 1024
	if s.cache != nil {
		size = len(s.cache.data)
	}
	w := newCacheWriter(size)
	byRel := make(map[string]*dirResult, len(s.results))
	for _, r := range s.results {
		byRel[r.rel] = r
	}
	for _, r := range s.results {
		if !r.nonEmpty {
			continue
		}
		if r.verbatim {
			w.raw(r.rel, r.rec)
			continue
		}
		w.begin(r.rel, r.id)
		fi, di := 0, 0
		for fi < len(r.files) || di < len(r.subdirs) {
			if di < len(r.subdirs) && (fi >= len(r.files) || r.subdirs[di] < r.files[fi].name) {
				if ch := byRel[join(r.rel, r.subdirs[di])]; ch != nil && ch.nonEmpty {
					w.dir(r.subdirs[di], ch.id)
				}
				di++
				continue
			}
			f := r.files[fi]
			w.file(f.name, f.e.Kind, f.key, f.e.ID)
			fi++
		}
		w.end()
	}
	return w.bytes()
}

// manifest lists every file the walk found (a running server's live tree
// and stat cache are built from it).
func (s *scan) manifest() (Manifest, map[string]cacheEntry) {
	m := Manifest{}
	keys := map[string]cacheEntry{}
	for _, r := range s.results {
		for _, f := range r.files {
			p := join(r.rel, f.name)
			m[p] = f.e
			keys[p] = cacheEntry{key: f.key, kind: f.e.Kind, id: f.e.ID}
		}
	}
	return m, keys
}

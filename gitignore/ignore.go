package gitignore

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// The ignore files read in every folder, in this order: a .rewindignore
// applies after (overrides) the .gitignore of the same folder.
const (
	// GitFile is git's ignore file.
	GitFile = ".gitignore"
	// RewindFile holds rewind-lsp's own ignore rules, in git's syntax.
	RewindFile = ".rewindignore"
)

// IsIgnoreFile reports whether a file named name holds ignore rules
// (.gitignore, .rewindignore): a change to it changes what is captured.
func IsIgnoreFile(name string) bool { return name == GitFile || name == RewindFile }

// maxIgnoreFileBytes bounds one ignore file; git skips larger pattern files
// with a warning, and so do we.
const maxIgnoreFileBytes = 100 << 20

// Ignorer decides which root-relative paths capture skips, under git's rules.
// It is safe for concurrent use.
//
// The rules are the ones `git check-ignore` applies: .gitignore files at
// every level (and .rewindignore files, same syntax, overriding the
// .gitignore of their folder), $GIT_DIR/info/exclude and core.excludesFile,
// "last match wins" with deeper files first, no re-inclusion below an
// excluded folder, and files in git's index never ignored. An entry named
// .git is always ignored, and so are the files editors write beside the
// ones being edited (isSideFile) unless git tracks them.
type Ignorer struct {
	top    string   // the repository's work tree top, or the root without one
	prefix string   // root relative to top, slash-separated; "" when equal
	repo   *gitRepo // nil when root is in no repository

	state atomic.Pointer[repoState]

	// dirs caches one *dirState per folder, keyed by its top-relative path.
	// Stores happen under mu and only when gen did not move since the
	// state was computed, so Invalidate never races with a stale store.
	dirs sync.Map
	mu   sync.Mutex
	gen  atomic.Uint64

	// listed holds, per top-relative folder, which ignore files a listing
	// of it showed (a listedFiles), so they are not looked for again.
	listed sync.Map
}

// listedFiles says which ignore files a folder listing held.
type listedFiles struct{ git, rewind bool }

// NoteListing tells the ignorer which ignore files folder relDir
// (root-relative, "" for the root) holds, from a listing the caller already
// made, so it does not look for them itself.
func (ig *Ignorer) NoteListing(relDir string, hasGitignore, hasRewindignore bool) {
	full := relDir
	if ig.prefix != "" {
		full = ig.prefix
		if relDir != "" {
			full += "/" + relDir
		}
	}
	ig.listed.Store(full, listedFiles{hasGitignore, hasRewindignore})
}

// repoState is what NewIgnorer reads once per repository (and Invalidate("")
// reads again): the non-per-folder patterns and the index.
type repoState struct {
	global  *ruleNode   // core.excludesFile, then info/exclude
	tracked *trackedSet // index paths and every folder above one
}

// ruleNode is the patterns of one folder's ignore files, linked to the
// nearest ancestor folder that has any. Patterns match paths relative to base.
type ruleNode struct {
	parent *ruleNode
	base   string // top-relative folder of the ignore files; "" for the top
	pats   []ignorePattern
	// Indexes into pats, so that a lookup need not try every pattern:
	// literal basenames, "*.ext" suffixes and literal paths by their text,
	// and the indexes of all other patterns, ascending.
	byName, byExt, byPath map[string]litHit
	others                []int32
}

// litHit holds the last pattern of an index entry that applies to files and
// the last that applies to folders (-1 for none).
type litHit struct{ file, dir int32 }

// newRuleNode indexes pats; short lists are just scanned.
func newRuleNode(parent *ruleNode, base string, pats []ignorePattern) *ruleNode {
	n := &ruleNode{parent: parent, base: base, pats: pats}
	if len(pats) < 8 {
		for i := range pats {
			n.others = append(n.others, int32(i))
		}
		return n
	}
	n.byName, n.byExt, n.byPath = map[string]litHit{}, map[string]litHit{}, map[string]litHit{}
	for i := range pats {
		p := &pats[i]
		var m map[string]litHit
		switch {
		case p.flags&patNoDir != 0 && p.literal:
			m = n.byName
		case p.flags&patEndsWith != 0 && len(p.lit) > 1 && p.lit[0] == '.' && strings.IndexByte(p.lit[1:], '.') < 0:
			m = n.byExt // "*.ext" matches exactly the names whose extension is ".ext"
		case p.flags&patNoDir == 0 && p.literal:
			m = n.byPath
		default:
			n.others = append(n.others, int32(i))
			continue
		}
		h, ok := m[p.lit]
		if !ok {
			h = litHit{-1, -1}
		}
		h.dir = int32(i)
		if p.flags&patMustBeDir == 0 {
			h.file = int32(i)
		}
		m[p.lit] = h
	}
	return n
}

// last returns the index of the last pattern of n matching the path (rel
// relative to n.base, name its last component), or -1.
func (n *ruleNode) last(rel, name string, isDir bool) int32 {
	best := int32(-1)
	pick := func(m map[string]litHit, key string) {
		if h, ok := m[key]; ok {
			best = max(best, h.file)
			if isDir {
				best = max(best, h.dir)
			}
		}
	}
	if n.byName != nil {
		pick(n.byName, name)
		if i := strings.LastIndexByte(name, '.'); i >= 0 && len(n.byExt) > 0 {
			pick(n.byExt, name[i:])
		}
		if len(n.byPath) > 0 {
			pick(n.byPath, rel)
		}
	}
	for j := len(n.others) - 1; j >= 0 && n.others[j] > best; j-- {
		if i := n.others[j]; n.pats[i].matches(rel, name, isDir) {
			return i
		}
	}
	return best
}

// dirState is the cached verdict on one folder.
type dirState struct {
	// excluded is true when the folder or one above it is excluded by a
	// pattern; then nothing below can be re-included (tracked files aside).
	excluded bool
	rules    *ruleNode // rules for the folder's entries; nil when excluded
}

// NewIgnorer prepares the rules for workspace root (absolute path). It finds
// the git repository holding root, if any, and reads its configuration, its
// index and the global excludes file; per-folder ignore files are read
// lazily, on the first question about an entry of that folder.
func NewIgnorer(root string) (*Ignorer, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("snapshot: ignore rules: root %q is not an absolute path", root)
	}
	root = filepath.Clean(root)
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("snapshot: ignore rules for %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("snapshot: ignore rules for %s: not a directory", root)
	}
	ig := &Ignorer{top: root}
	if ig.repo = findRepo(root); ig.repo != nil {
		ig.top, ig.prefix = ig.repo.top, ig.repo.prefix
	}
	st, err := ig.loadState()
	if err != nil {
		return nil, err
	}
	ig.state.Store(st)
	if ig.prefix != "" && ig.dir(ig.prefix).excluded {
		if !st.tracked.has(ig.prefix) {
			// The root lies in a folder its repository ignores (a home
			// folder kept in git with "*", say): git would capture nothing
			// here, which helps nobody. Treat it as a folder of its own.
			fresh := &Ignorer{top: root}
			if st, err = fresh.loadState(); err != nil {
				return nil, err
			}
			fresh.state.Store(st)
			return fresh, nil
		}
	}
	return ig, nil
}

// loadState reads the configuration, the global exclude files and the index.
func (ig *Ignorer) loadState() (*repoState, error) {
	cfg := loadGitConfig(ig.repo)
	var pats []ignorePattern
	if f := cfg.excludesFilePath(ig.top); f != "" {
		pats = append(pats, readIgnoreFile(f, false)...)
	}
	st := &repoState{}
	if ig.repo != nil {
		pats = append(pats, readIgnoreFile(filepath.Join(ig.repo.commonDir, "info", "exclude"), false)...)
		tracked, err := readIndexPaths(ig.repo, cfg.hashSize(), ig.prefix)
		if err != nil {
			return nil, err
		}
		st.tracked = tracked
	}
	if len(pats) > 0 {
		st.global = newRuleNode(nil, "", pats)
	}
	return st, nil
}

// Ignored reports whether rel (root-relative, slash-separated, no leading or
// trailing slash, never "") is ignored. isDir tells whether rel is a
// directory (false for a symbolic link, as in git). The walker does not
// descend into a directory for which Ignored returned true, and asks about a
// child only after asking about its parent directory.
//
// A directory holding tracked files is never ignored, so that the walker
// descends into it, but the untracked entries below an excluded directory
// are. Editors' side files are ignored too unless tracked (ignore_builtin.go).
func (ig *Ignorer) Ignored(rel string, isDir bool) bool {
	if rel == "" {
		return false
	}
	slash := strings.LastIndexByte(rel, '/')
	name := rel[slash+1:]
	if name == ".git" {
		return true
	}
	full := rel
	if ig.prefix != "" {
		full = ig.prefix + "/" + rel
	}
	parent := ig.prefix
	if slash >= 0 {
		parent = full[:len(full)-len(name)-1]
	}
	ds := ig.dir(parent)
	ignored := ds.excluded || (!isDir && isSideFile(name)) || ds.rules.ignores(full, name, isDir)
	if ignored {
		if ig.state.Load().tracked.has(full) {
			return false
		}
	}
	return ignored
}

// Invalidate forgets cached rules of directory relDir ("" for the root), so
// a changed .gitignore or .rewindignore there is read again on the next
// call. Invalidate("") starts afresh: it also reads the git configuration,
// info/exclude, the excludes file and the index again.
func (ig *Ignorer) Invalidate(relDir string) {
	if relDir == "" {
		st, err := ig.loadState()
		ig.mu.Lock()
		defer ig.mu.Unlock()
		ig.gen.Add(1)
		if err == nil { // an unreadable index keeps the previous state
			ig.state.Store(st)
		}
		ig.dirs.Clear()
		ig.listed.Clear()
		return
	}
	full := relDir
	if ig.prefix != "" {
		full = ig.prefix + "/" + relDir
	}
	ig.mu.Lock()
	defer ig.mu.Unlock()
	ig.gen.Add(1)
	ig.listed.Delete(full)
	ig.dirs.Range(func(k, _ any) bool {
		if s := k.(string); s == full || strings.HasPrefix(s, full+"/") {
			ig.dirs.Delete(k)
		}
		return true
	})
}

// dir returns the state of folder full (top-relative), computing and caching
// it and its ancestors on first use.
func (ig *Ignorer) dir(full string) *dirState {
	if v, ok := ig.dirs.Load(full); ok {
		return v.(*dirState)
	}
	gen := ig.gen.Load()
	ds := ig.buildDir(full)
	ig.mu.Lock()
	if ig.gen.Load() == gen {
		if v, loaded := ig.dirs.LoadOrStore(full, ds); loaded {
			ds = v.(*dirState)
		}
	}
	ig.mu.Unlock()
	return ds
}

// buildDir decides whether folder full is excluded, the way git's
// prep_exclude does: by the patterns of the folders above it only, and
// reads its ignore files when it is not.
func (ig *Ignorer) buildDir(full string) *dirState {
	if full == "" {
		return &dirState{rules: ig.loadRules(ig.state.Load().global, "")}
	}
	parent, name := "", full
	if i := strings.LastIndexByte(full, '/'); i >= 0 {
		parent, name = full[:i], full[i+1:]
	}
	ps := ig.dir(parent)
	if ps.excluded || name == ".git" || ps.rules.ignores(full, name, true) {
		return &dirState{excluded: true}
	}
	return &dirState{rules: ig.loadRules(ps.rules, full)}
}

// loadRules reads the ignore files of folder full and links them below
// parent; a folder without patterns shares its parent's node.
func (ig *Ignorer) loadRules(parent *ruleNode, full string) *ruleNode {
	dir := filepath.Join(ig.top, filepath.FromSlash(full))
	has := listedFiles{true, true}
	if v, ok := ig.listed.Load(full); ok {
		has = v.(listedFiles)
	}
	var pats []ignorePattern
	if has.git {
		pats = readIgnoreFile(filepath.Join(dir, GitFile), true)
	}
	if has.rewind {
		pats = append(pats, readIgnoreFile(filepath.Join(dir, RewindFile), true)...)
	}
	if len(pats) == 0 {
		return parent
	}
	return newRuleNode(parent, full, pats)
}

// ignores applies "last match wins", deepest folder first, to the path full
// (top-relative) whose last component is name. No match means not ignored.
func (n *ruleNode) ignores(full, name string, isDir bool) bool {
	for ; n != nil; n = n.parent {
		rel := full
		if n.base != "" {
			rel = full[len(n.base)+1:]
		}
		if i := n.last(rel, name, isDir); i >= 0 {
			return n.pats[i].flags&patNegative == 0
		}
	}
	return false
}

// readIgnoreFile reads and parses one ignore file. A missing, unreadable,
// non-regular or oversized file yields no patterns, as in git (which only
// warns). Per-folder files are not followed when they are symbolic links,
// as git does for in-tree .gitignore files since 2.32.
func readIgnoreFile(path string, noFollow bool) []ignorePattern {
	stat := os.Stat
	if noFollow {
		stat = os.Lstat
	}
	fi, err := stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIgnoreFileBytes {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFileBytes+1))
	if err != nil || len(data) > maxIgnoreFileBytes {
		return nil
	}
	return parseIgnoreFile(data)
}

// parseIgnoreFile splits an ignore file into patterns the way git does: an
// optional UTF-8 byte order mark is skipped, lines end at '\n' with an
// optional '\r' before it, and a missing final newline is tolerated.
func parseIgnoreFile(data []byte) []ignorePattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var pats []ignorePattern
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if p, ok := parseIgnoreLine(string(line)); ok {
			pats = append(pats, p)
		}
	}
	return pats
}

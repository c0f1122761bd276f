package gitignore

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// This file reads what the ignore rules need from git's own files, without
// running git: where the repository is, a few configuration values, and
// which paths the index tracks.

// gitRepo locates the repository that holds a workspace root.
type gitRepo struct {
	top       string // work tree top-level folder
	gitDir    string // $GIT_DIR (per worktree)
	commonDir string // the part of $GIT_DIR shared by all worktrees
	prefix    string // root relative to top, slash-separated; "" when equal
}

// findRepo walks up from root to the nearest folder with a .git directory,
// or a .git file saying "gitdir: <path>" (linked worktrees, submodules). It
// returns nil when root is in no repository.
func findRepo(root string) *gitRepo {
	start := root
	if real, err := filepath.EvalSymlinks(root); err == nil {
		start = real // git discovers from the physical path
	}
	for dir := start; ; {
		if gitDir, ok := gitDirAt(dir); ok {
			prefix, err := filepath.Rel(dir, start)
			if err != nil || prefix == "." {
				prefix = ""
			}
			return &gitRepo{
				top:       dir,
				gitDir:    gitDir,
				commonDir: commonDirOf(gitDir),
				prefix:    filepath.ToSlash(prefix),
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

// gitDirAt returns the git directory that dir/.git designates, if any.
func gitDirAt(dir string) (string, bool) {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotGit)
	switch {
	case err != nil:
		return "", false
	case fi.IsDir():
		return dotGit, isGitDir(dotGit)
	case !fi.Mode().IsRegular() || fi.Size() > 64<<10:
		return "", false
	}
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return "", false
	}
	s := strings.TrimRight(string(data), "\r\n")
	target, ok := strings.CutPrefix(s, "gitdir: ")
	if !ok || target == "" {
		return "", false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return target, isGitDir(target)
}

// isGitDir is a cheap version of git's check: HEAD, and objects either here
// or in the common directory of a linked worktree.
func isGitDir(p string) bool {
	if _, err := os.Lstat(filepath.Join(p, "HEAD")); err != nil {
		return false
	}
	if fi, err := os.Stat(filepath.Join(p, "objects")); err == nil && fi.IsDir() {
		return true
	}
	_, err := os.Stat(filepath.Join(p, "commondir"))
	return err == nil
}

// commonDirOf reads $GIT_DIR/commondir, which linked worktrees have.
func commonDirOf(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimRight(string(data), "\r\n")
	if c == "" {
		return gitDir
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

// gitConfig holds the few configuration values the ignore rules use.
type gitConfig struct {
	excludesFile    string // core.excludesFile, expanded
	hasExcludesFile bool
	objectFormat    string // extensions.objectFormat
	worktreeConfig  bool   // extensions.worktreeConfig
}

// loadGitConfig reads the configuration files in git's order, later ones
// overriding earlier ones: system, global (XDG, then ~/.gitconfig), the
// repository's, and the worktree's.
func loadGitConfig(repo *gitRepo) *gitConfig {
	c := &gitConfig{}
	if noSys, _ := parseGitBool(os.Getenv("GIT_CONFIG_NOSYSTEM")); !noSys {
		sys := os.Getenv("GIT_CONFIG_SYSTEM")
		if sys == "" {
			sys = "/etc/gitconfig"
		}
		c.readFile(sys, 0)
	}
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		c.readFile(g, 0)
	} else {
		c.readFile(xdgConfigPath("config"), 0)
		if home := os.Getenv("HOME"); home != "" {
			c.readFile(filepath.Join(home, ".gitconfig"), 0)
		}
	}
	if repo != nil {
		c.readFile(filepath.Join(repo.commonDir, "config"), 0)
		if c.worktreeConfig {
			c.readFile(filepath.Join(repo.gitDir, "config.worktree"), 0)
		}
	}
	return c
}

// xdgConfigPath is $XDG_CONFIG_HOME/git/<name>, or ~/.config/git/<name>.
func xdgConfigPath(name string) string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", name)
	}
	if home := os.Getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "git", name)
	}
	return ""
}

// excludesFilePath is the global excludes file git would read: the
// configured one (relative paths are taken from the work tree top, git's
// working directory) or the XDG default.
func (c *gitConfig) excludesFilePath(top string) string {
	if !c.hasExcludesFile {
		return xdgConfigPath("ignore")
	}
	if c.excludesFile != "" && !filepath.IsAbs(c.excludesFile) {
		return filepath.Join(top, c.excludesFile)
	}
	return c.excludesFile
}

// hashSize is the object id length the index uses.
func (c *gitConfig) hashSize() int {
	if strings.EqualFold(c.objectFormat, "sha256") {
		return 32
	}
	return 20
}

// readFile applies one configuration file; a missing or malformed file is
// skipped from the first error on, where git would refuse to run.
func (c *gitConfig) readFile(path string, depth int) {
	if path == "" || depth > 10 {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) > maxIgnoreFileBytes {
		return
	}
	_ = parseGitConfig(data, func(key, value string, hasValue bool) {
		switch key {
		case "core.excludesfile":
			if p, ok := expandGitPath(value); hasValue && ok {
				c.excludesFile, c.hasExcludesFile = p, true
			}
		case "extensions.objectformat":
			c.objectFormat = value
		case "extensions.worktreeconfig":
			c.worktreeConfig, _ = parseGitBool(value)
			c.worktreeConfig = c.worktreeConfig || !hasValue
		case "include.path":
			if p, ok := expandGitPath(value); hasValue && ok && p != "" {
				if !filepath.IsAbs(p) {
					p = filepath.Join(filepath.Dir(path), p)
				}
				c.readFile(p, depth+1)
			}
		}
	})
}

// expandGitPath expands a leading "~/" or "~user/" like git's pathname values.
func expandGitPath(p string) (string, bool) {
	if !strings.HasPrefix(p, "~") {
		return p, true
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	home := os.Getenv("HOME")
	if name != "" {
		u, err := user.Lookup(name)
		if err != nil {
			return "", false
		}
		home = u.HomeDir
	}
	if home == "" {
		return "", false
	}
	return filepath.Join(home, rest), true
}

// parseGitBool reads git's boolean spellings.
func parseGitBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	n, err := strconv.Atoi(s)
	return n != 0, err == nil
}

// parseGitConfig calls fn for each variable of a git configuration file,
// with its name as "section.key" or "section.subsection.key" (section and
// key lower-cased), following git's parser: comments after '#' or ';',
// quotes, backslash escapes and continuation lines, "[section]" with the
// key on the same line, and a key without '=' (hasValue false).
func parseGitConfig(data []byte, fn func(key, value string, hasValue bool)) error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	i := 0
	next := func() (byte, bool) { // '\n' at the end, like git's get_next_char
		if i >= len(data) {
			i++
			return '\n', true
		}
		i++
		return data[i-1], false
	}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	isKey := func(c byte) bool { return c == '-' || c >= '0' && c <= '9' || (c|0x20) >= 'a' && (c|0x20) <= 'z' }
	lower := func(c byte) byte {
		if c >= 'A' && c <= 'Z' {
			return c + 32
		}
		return c
	}
	var section []byte
	comment := false
	for {
		c, eof := next()
		switch {
		case c == '\n':
			if eof {
				return nil
			}
			comment = false
			continue
		case comment || isSpace(c):
			continue
		case c == '#' || c == ';':
			comment = true
			continue
		case c == '[':
			section = section[:0]
			for {
				c, eof = next()
				if eof {
					return errors.New("unterminated section header")
				}
				if c == ']' {
					break
				}
				if isSpace(c) { // [section "subsection"]
					for isSpace(c) && c != '\n' {
						c, _ = next()
					}
					if c != '"' {
						return errors.New("bad section header")
					}
					section = append(section, '.')
					for {
						if c, _ = next(); c == '\n' {
							return errors.New("bad subsection")
						} else if c == '"' {
							break
						} else if c == '\\' {
							if c, _ = next(); c == '\n' {
								return errors.New("bad subsection")
							}
						}
						section = append(section, c)
					}
					if c, _ = next(); c != ']' {
						return errors.New("bad section header")
					}
					break
				}
				if !isKey(c) && c != '.' {
					return errors.New("bad section name")
				}
				section = append(section, lower(c))
			}
			if len(section) == 0 {
				return errors.New("empty section name")
			}
			continue
		case (c|0x20) < 'a' || (c|0x20) > 'z':
			return errors.New("bad config line")
		}
		key := append(append(append([]byte(nil), section...), '.'), lower(c))
		for {
			if c, eof = next(); eof || !isKey(c) {
				break
			}
			key = append(key, lower(c))
		}
		for c == ' ' || c == '\t' {
			c, _ = next()
		}
		if c == '\n' {
			fn(string(key), "", false)
			continue
		}
		if c != '=' {
			return errors.New("bad config line")
		}
		var val []byte
		quote, spaces := false, 0
		for {
			c, _ = next()
			if c == '\n' {
				if quote {
					return errors.New("unterminated quote")
				}
				break
			}
			if comment {
				continue
			}
			if isSpace(c) && !quote {
				if len(val) > 0 {
					spaces++
				}
				continue
			}
			if !quote && (c == '#' || c == ';') {
				comment = true
				continue
			}
			for ; spaces > 0; spaces-- {
				val = append(val, ' ')
			}
			switch c {
			case '"':
				quote = !quote
				continue
			case '\\':
				switch c, _ = next(); c {
				case '\n':
					continue
				case 't':
					c = '\t'
				case 'b':
					c = '\b'
				case 'n':
					c = '\n'
				case '\\', '"':
				default:
					return errors.New("bad escape in value")
				}
			}
			val = append(val, c)
		}
		comment = false
		fn(string(key), string(val), true)
	}
}

// readIndexPaths returns the paths $GIT_DIR/index tracks below prefix, and
// every folder above them, top-relative. A split index's shared part is
// merged in (as a plain union). A missing index tracks nothing.
func readIndexPaths(repo *gitRepo, hashSize int, prefix string) (*trackedSet, error) {
	path := filepath.Join(repo.gitDir, "index")
	hint := 0
	if fi, err := os.Stat(path); err == nil && prefix == "" {
		hint = int(min(fi.Size()/2, 1<<30)) // the paths are about half of an index
	}
	tracked := newTrackedSet(hint)
	dir := []byte(prefix + "/")
	add := func(p []byte) {
		if len(p) == 0 || (prefix != "" && string(p) != prefix && !bytes.HasPrefix(p, dir)) {
			return
		}
		tracked.add(p)
	}
	shared, err := readIndexFile(path, hashSize, add)
	if err != nil || shared == "" {
		return tracked, err
	}
	_, err = readIndexFile(filepath.Join(repo.gitDir, "sharedindex."+shared), hashSize, add)
	return tracked, err
}

// readIndexFile reads one index file, calling add for each entry's path. It
// returns the hex id of the shared index when the file is a split index.
func readIndexFile(path string, hashSize int, add func([]byte)) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("snapshot: read git index: %w", err)
	}
	shared, err := parseIndex(data, hashSize, add)
	if err != nil {
		return "", fmt.Errorf("snapshot: read git index %s: %w", path, err)
	}
	return shared, nil
}

// errIndexTruncated reports an index that ends inside an entry.
var errIndexTruncated = errors.New("truncated entry")

// parseIndex decodes index versions 2, 3 and 4: entries, then extensions,
// of which only "link" (split index) matters here.
func parseIndex(data []byte, hashSize int, add func([]byte)) (string, error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return "", errors.New("not an index file (bad signature)")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return "", fmt.Errorf("unsupported index version %d", version)
	}
	count := binary.BigEndian.Uint32(data[8:12])
	off := 12
	var prev []byte // previous path, for version 4 prefix compression
	for n := uint32(0); n < count; n++ {
		fixed := 40 + hashSize + 2
		if off+fixed > len(data) {
			return "", errIndexTruncated
		}
		flags := binary.BigEndian.Uint16(data[off+40+hashSize:])
		if flags&0x4000 != 0 && version >= 3 {
			fixed += 2 // extended flags
		}
		p := off + fixed
		if p > len(data) {
			return "", errIndexTruncated
		}
		var name []byte
		if version == 4 {
			strip, w := decodeIndexVarint(data[p:])
			if w == 0 || strip > uint64(len(prev)) {
				return "", fmt.Errorf("bad path compression in entry %d", n)
			}
			p += w
			end := bytes.IndexByte(data[p:], 0)
			if end < 0 {
				return "", errIndexTruncated
			}
			name = append(prev[:len(prev)-int(strip):len(prev)-int(strip)], data[p:p+end]...)
			prev = name
			off = p + end + 1
		} else {
			end := bytes.IndexByte(data[p:], 0)
			if end < 0 {
				return "", errIndexTruncated
			}
			name = data[p : p+end]
			off += (fixed + end + 8) &^ 7 // NUL padding to a multiple of 8
		}
		add(name)
	}
	// Extensions: 4-byte signature, 4-byte length, data; the file ends with
	// a checksum of hashSize bytes.
	for off+8 <= len(data)-hashSize {
		sig := string(data[off : off+4])
		size := int(binary.BigEndian.Uint32(data[off+4 : off+8]))
		off += 8
		if size < 0 || off+size > len(data) {
			break
		}
		if sig == "link" && size >= hashSize {
			id := data[off : off+hashSize]
			if !bytes.Equal(id, make([]byte, hashSize)) {
				return hex.EncodeToString(id), nil
			}
		}
		off += size
	}
	return "", nil
}

// decodeIndexVarint reads git's offset varint (index v4 prefix lengths). It
// returns the value and the bytes used, or 0 bytes on bad input.
func decodeIndexVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) || v >= 1<<56 {
			return 0, 0
		}
		v++
		c = b[i]
		i++
		v = v<<7 + uint64(c&127)
	}
	return v, i
}

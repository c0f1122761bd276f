package gitignore

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzIgnorePattern feeds arbitrary lines and paths to the pattern parser
// and matcher. It must never panic, a pattern without special characters
// must behave as a literal, and git's shortcuts ("*suffix", all-escaped
// text) must agree with full wildcard matching.
func FuzzIgnorePattern(f *testing.F) {
	for _, s := range []string{"*.log", "!keep.log", "/build/", "a/**/b", "**/x", "x/**", "[!a-c]?",
		"\\#x", "trail\\ ", "a b ", "[[:alpha:]]", "[", "\\", "foo**/bar", "*a*a*a*ac", "\xef\xbb\xbfz\r\n"} {
		f.Add(s, "a/b/x.log", false)
		f.Add(s, "build", true)
	}
	f.Fuzz(func(t *testing.T, line, path string, isDir bool) {
		path = strings.Trim(path, "/")
		if path == "" || strings.IndexByte(path, 0) >= 0 {
			return
		}
		name := path[strings.LastIndexByte(path, '/')+1:]
		for _, p := range parseIgnoreFile([]byte(line)) {
			_ = p.matches(path, name, isDir)
		}
		p, ok := parseIgnoreLine(line)
		if !ok {
			return
		}
		got := p.matches(path, name, isDir)
		if isPlainLiteral(line) {
			want := name == line
			if strings.Contains(line, "/") {
				want = path == strings.TrimPrefix(line, "/")
			}
			if got != want {
				t.Fatalf("literal %q against %q: got %v, want %v", line, path, got, want)
			}
		}
		// git's backtracking and the automaton fallback must agree.
		w := compileWild(line)
		r := wildRun{toks: w.toks, budget: 1 << 20}
		if res := r.step(0, path); r.budget >= 0 && (res == wmMatch) != w.matchAutomaton(path) {
			t.Fatalf("wildmatch %q against %q: backtracking says %v, automaton the opposite", line, path, res == wmMatch)
		}
		if lit := strings.ReplaceAll(line, "\x00", ""); lit != "" {
			var esc strings.Builder
			for i := 0; i < len(lit); i++ {
				esc.WriteByte('\\')
				esc.WriteByte(lit[i])
			}
			w := compileWild(esc.String())
			if m := w.match(path); m != (path == lit) {
				t.Fatalf("escaped %q against %q: got %v", lit, path, m)
			}
			if !strings.ContainsAny(lit, "*?[\\/") && !strings.Contains(name, "/") {
				w := compileWild("*" + lit)
				if m := w.match(name); m != strings.HasSuffix(name, lit) {
					t.Fatalf("*%q against %q: got %v", lit, name, m)
				}
			}
		}
	})
}

// isPlainLiteral reports a line that git reads as one literal pattern.
func isPlainLiteral(line string) bool {
	return line != "" && !strings.ContainsAny(line, "*?[\\\x00") && line[0] != '#' && line[0] != '!' &&
		!strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "/")
}

// FuzzIgnoreIndex must never panic on a damaged index.
func FuzzIgnoreIndex(f *testing.F) {
	f.Add(makeIndex(2, []string{"a", "b/c"}))
	f.Add(makeIndex(4, []string{"dir/a", "dir/ab", "e"}))
	f.Add([]byte("DIRC\x00\x00\x00\x04\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, hs := range []int{20, 32} {
			ts := newTrackedSet(0)
			_, _ = parseIndex(data, hs, ts.add)
			ts.has("a")
			ts.has("dir")
		}
	})
}

// FuzzIgnoreGitConfig must never panic on a malformed configuration file.
func FuzzIgnoreGitConfig(f *testing.F) {
	f.Add([]byte("[core]\n\texcludesFile = \"~/x y\" ; c\n[include]\npath=a\\\nb\n"))
	f.Add([]byte("[section \"sub\\\"x\"] key\n[a.b]k=\"unterminated\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = parseGitConfig(data, func(key, value string, hasValue bool) {
			if key == "" {
				t.Fatal("empty key")
			}
		})
	})
}

// makeIndex builds a minimal index file (SHA-1 ids, zero stat data).
func makeIndex(version uint32, paths []string) []byte {
	b := []byte("DIRC")
	b = binary.BigEndian.AppendUint32(b, version)
	b = binary.BigEndian.AppendUint32(b, uint32(len(paths)))
	prev := ""
	for _, p := range paths {
		start := len(b)
		b = append(b, make([]byte, 40+20)...)
		b = binary.BigEndian.AppendUint16(b, uint16(min(len(p), 0xfff)))
		if version == 4 {
			common := 0
			for common < len(p) && common < len(prev) && p[common] == prev[common] {
				common++
			}
			b = append(b, byte(len(prev)-common)) // fits one byte in tests
			b = append(append(b, p[common:]...), 0)
		} else {
			b = append(b, p...)
			b = append(b, make([]byte, 8-(len(b)-start)%8)...)
		}
		prev = p
	}
	return append(b, make([]byte, 20)...)
}

// TestIgnoreIndexHandmade decodes hand-built indexes of versions 2 and 4.
func TestIgnoreIndexHandmade(t *testing.T) {
	paths := []string{"a", "dir/a", "dir/ab", "dir/sub/x", "e"}
	for _, v := range []uint32{2, 3, 4} {
		var got []string
		if _, err := parseIndex(makeIndex(v, paths), 20, func(p []byte) { got = append(got, string(p)) }); err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if !slices.Equal(got, paths) {
			t.Errorf("version %d: got %q, want %q", v, got, paths)
		}
	}
	if _, err := parseIndex(makeIndex(2, paths)[:40], 20, func([]byte) {}); err == nil {
		t.Error("truncated index: no error")
	}
}

// TestIgnoreIndexMatchesLsFiles reads indexes git wrote in each format it can
// write (versions 2, 3 with extended flags, 4, split index, SHA-256) and
// compares with git ls-files.
func TestIgnoreIndexMatchesLsFiles(t *testing.T) {
	isolateGit(t)
	files := map[string]string{"a.txt": "", "dir/b.txt": "", "dir/sub/c d.txt": "", "ü/日本.txt": "",
		"dir/sub/longer-name-shares-prefix.txt": "", "z": ""}
	for _, tc := range []struct {
		name  string
		init  []string
		setup [][]string
		hash  int
	}{
		{"v2", nil, nil, 20},
		{"v3", nil, [][]string{{"add", "-N", "later.txt"}}, 20},
		{"v4", nil, [][]string{{"update-index", "--index-version", "4"}}, 20},
		{"split", nil, [][]string{{"update-index", "--split-index"}, {"add", "later.txt"}}, 20},
		{"sha256", []string{"--object-format=sha256"}, nil, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			writeFiles(t, repo, files)
			git(t, repo, append([]string{"init", "-q"}, tc.init...)...)
			git(t, repo, "add", ".")
			writeFiles(t, repo, map[string]string{"later.txt": ""})
			for _, args := range tc.setup {
				git(t, repo, args...)
			}
			r := findRepo(repo)
			if r == nil {
				t.Fatal("repository not found")
			}
			if got := loadGitConfig(r).hashSize(); got != tc.hash {
				t.Errorf("hash size %d, want %d", got, tc.hash)
			}
			tracked, err := readIndexPaths(r, tc.hash, "")
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Split(strings.TrimSuffix(git(t, repo, "ls-files", "-z"), "\x00"), "\x00")
			for _, p := range want {
				if !tracked.has(p) {
					t.Errorf("%s: in git ls-files, not read from the index", p)
				}
				for d := p; strings.Contains(d, "/"); {
					d = d[:strings.LastIndexByte(d, '/')]
					if !tracked.has(d) {
						t.Errorf("%s: the folder of a tracked file, not tracked", d)
					}
				}
			}
			for _, p := range []string{"dir/sub/c", "dir/su", "dir/sub/longer", "ü/日", "a.tx", "nothing"} {
				if tracked.has(p) {
					t.Errorf("%s: neither a tracked path nor a folder of one, yet tracked", p)
				}
			}
			tracked.each(func(p string) {
				if !slices.ContainsFunc(want, func(w string) bool { return w == p || strings.HasPrefix(w, p+"/") }) {
					t.Errorf("%s: read from the index, not in git ls-files", p)
				}
			})
			sub, err := readIndexPaths(r, tc.hash, "dir")
			if err != nil {
				t.Fatal(err)
			}
			sub.each(func(p string) {
				if p != "dir" && !strings.HasPrefix(p, "dir/") {
					t.Errorf("prefix dir: got %s", p)
				}
			})
			if !sub.has("dir/sub/c d.txt") || sub.has("a.txt") {
				t.Errorf("prefix dir: has(dir/sub/c d.txt) %v, has(a.txt) %v", sub.has("dir/sub/c d.txt"), sub.has("a.txt"))
			}
		})
	}
}

// TestIgnoreFilesOddInput feeds binary, CRLF, BOM, huge, unterminated,
// unreadable, symlinked and directory ignore files, then compares with git.
func TestIgnoreFilesOddInput(t *testing.T) {
	isolateGit(t)
	repo := t.TempDir()
	huge := strings.Repeat("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", 70000) + strings.Repeat("*a", 20000) + "c\nbig.txt\n"
	writeFiles(t, repo, map[string]string{
		".gitignore": "\x00\xff*\x00\n\xfe\xfftarget\n", "target": "",
		"crlf/.gitignore": "a.txt\r\n b.txt\r\nc.txt \r\n\r\n", "crlf/a.txt": "", "crlf/b.txt": "",
		"crlf/ b.txt": "", "crlf/c.txt": "", "bom/.gitignore": "\xef\xbb\xbfx\n#y\n", "bom/x": "", "bom/#y": "",
		"dirgi/.gitignore/": "", "dirgi/x": "", "nonl/.gitignore": "last", "nonl/last": "",
		"esc/.gitignore": "trail\\", "esc/trail\\": "", "huge/.gitignore": huge, "huge/big.txt": "",
		"noperm/.gitignore": "*.x\n", "noperm/a.x": "",
		"link/x": "",
	})
	if err := os.Symlink("../bom/.gitignore", filepath.Join(repo, "link", ".gitignore")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(repo, "noperm", ".gitignore"), 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(repo, "noperm", ".gitignore"), 0o644)
	git(t, repo, "init", "-q")
	got := compareWithGit(t, repo)
	for p, want := range map[string]bool{"target": false, "crlf/a.txt": true, "crlf/ b.txt": true,
		"crlf/b.txt": false, "crlf/c.txt": true, "bom/x": true, "nonl/last": true, "huge/big.txt": true,
		"esc/trail\\": false, "link/x": false} {
		if got[p] != want {
			t.Errorf("%s: ignored=%v, want %v", p, got[p], want)
		}
	}
}

// TestIgnoreWildmatchPathological runs patterns on which git's backtracking takes
// exponential time; the memoized fallback must answer quickly and the same.
func TestIgnoreWildmatchPathological(t *testing.T) {
	for _, stars := range []int{12, 3000} {
		w := compileWild(strings.Repeat("*a", stars) + "c")
		long := strings.Repeat("a", 4000)
		if w.match(long + "b") {
			t.Errorf("%d stars: matched a text without the final c", stars)
		}
		if !w.match(long + "c") {
			t.Errorf("%d stars: no match on a matching text", stars)
		}
	}
}

// TestIgnorerBadInput checks odd arguments and roots.
func TestIgnorerBadInput(t *testing.T) {
	isolateGit(t)
	if _, err := NewIgnorer("relative/path"); err == nil {
		t.Error("relative root: no error")
	}
	if _, err := NewIgnorer(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing root: no error")
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{".gitignore": "*\n!*/\n"})
	ig, err := NewIgnorer(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"", "/", "//", "a//b", "/a", "a/", "..", "../x", ".git", "a/.git/x"} {
		_ = ig.Ignored(rel, false)
		_ = ig.Ignored(rel, true)
		ig.Invalidate(rel)
	}
	if !ig.Ignored("a/.git", true) || !ig.Ignored(".git", false) {
		t.Error(".git not ignored")
	}
}

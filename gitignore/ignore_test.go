package gitignore

import (
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestIgnoredMatchesGit compares the walker's view of a tricky repository
// with git check-ignore, path by path.
func TestIgnoredMatchesGit(t *testing.T) {
	repo := makeTrickyRepo(t)
	got := compareWithGit(t, repo)
	// A few verdicts spelled out, so a git change cannot make the test vacuous.
	for p, want := range map[string]bool{
		"app.log": true, "sub/app.log": false, "ignored-tracked.txt": false,
		"excluded-dir": false, "excluded-dir/tracked.txt": false, "excluded-dir/reinclude.txt": true,
		"excluded-dir/sub/x": true, "sub/inner/a.txt": true, "sub/inner/keep.txt": false,
		"x.global": true, "neg-info.txt": false, "from-info-exclude.txt": true,
		"nested/a.nested": true, "nested/keep.nested": false, "trail ": true, "trail": false,
	} {
		if got[p] != want {
			t.Errorf("%s: ignored=%v, want %v", p, got[p], want)
		}
	}
}

// TestIgnoredSubfolderRootMatchesGit uses folders inside a repository as the
// workspace root: ancestors' .gitignore files, info/exclude and the index
// apply re-based, including a root inside an excluded folder and a root in
// a nested repository.
func TestIgnoredSubfolderRootMatchesGit(t *testing.T) {
	repo := makeTrickyRepo(t)
	for _, sub := range []string{"sub", "sub/inner", "excluded-dir", "日本語", "nested"} {
		t.Run(sub, func(t *testing.T) {
			compareWithGit(t, filepath.Join(repo, filepath.FromSlash(sub)))
		})
	}
}

// TestIgnoredWorktreeMatchesGit uses a linked worktree (a .git file) as root.
func TestIgnoredWorktreeMatchesGit(t *testing.T) {
	repo := makeTrickyRepo(t)
	wt := filepath.Join(filepath.Dir(repo), "wt")
	git(t, repo, "worktree", "add", "-q", wt)
	writeFiles(t, wt, map[string]string{"app.log": "", "from-info-exclude.txt": "", "excluded-dir/new.txt": ""})
	got := compareWithGit(t, wt)
	if !got["from-info-exclude.txt"] || got["excluded-dir/tracked.txt"] {
		t.Errorf("worktree: info/exclude or index not applied: %v", got)
	}
}

// TestIgnoreExcludesFileConfigMatchesGit sets core.excludesFile through an
// included file of ~/.gitconfig, and through the repository's config with a
// relative path (git reads it from the work tree top), with a subfolder root.
func TestIgnoreExcludesFileConfigMatchesGit(t *testing.T) {
	for _, tc := range []struct{ name, home, repo string }{
		{"include", "[include]\n\tpath = inc/extra.inc\n", ""},
		{"repo-relative", "[core]\n\texcludesfile = ~/unused\n", "[core]\n\tExcludesFile = conf/excl\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := isolateGit(t)
			writeFiles(t, home, map[string]string{".gitconfig": tc.home,
				"inc/extra.inc": "[core]\n\texcludesfile = ~/from-include\n", "from-include": "*.inc\n",
				"unused": "*.unused\n"})
			repo := t.TempDir()
			writeFiles(t, repo, map[string]string{"conf/excl": "*.rel\n", "sub/a.inc": "", "sub/b.rel": "",
				"sub/c.unused": "", "sub/conf/excl": "*.sub\n", "sub/d.sub": ""})
			git(t, repo, "init", "-q")
			f, err := os.OpenFile(filepath.Join(repo, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(tc.repo)
			f.Close()
			got := compareWithGit(t, filepath.Join(repo, "sub"))
			if tc.name == "include" && !got["a.inc"] || tc.name == "repo-relative" && !got["b.rel"] {
				t.Errorf("excludes file not applied: %v", got)
			}
		})
	}
}

// TestIgnoredNoRepository checks a folder that is no git repository against
// hand-written expectations: its ignore files and the default global
// excludes file ($XDG_CONFIG_HOME/git/ignore) apply.
func TestIgnoredNoRepository(t *testing.T) {
	home := isolateGit(t)
	writeFiles(t, home, map[string]string{"xdg/git/ignore": "*.bak\n"})
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".gitignore": "*.o\nout/\n!keep.o\n/top.txt\n", "a.o": "", "keep.o": "", "x.bak": "",
		"top.txt": "", "sub/top.txt": "", "sub/.gitignore": "!a.o\n*.txt\n", "sub/a.o": "",
		"sub/b.txt": "", "out/x": "", "sub/out/y": "", "src/main.go": "", ".git": "gitdir: nowhere\n",
	})
	ig, err := NewIgnorer(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		".gitignore": false, "a.o": true, "keep.o": false, "x.bak": true, "top.txt": true, "sub": false,
		"sub/top.txt": true, "sub/.gitignore": false, "sub/a.o": false, "sub/b.txt": true, "out": true,
		"out/x": true, "sub/out": true, "sub/out/y": true, "src": false, "src/main.go": false,
	}
	got := walkVerdicts(t, ig, root)
	if len(got) != len(want) {
		t.Errorf("walked %d paths, want %d: %v", len(got), len(want), got)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: ignored=%v, want %v", p, got[p], w)
		}
	}
}

// TestIgnoredRewindignoreOverridesGitignore checks that .rewindignore applies after
// the .gitignore of its folder, and that deeper files override both.
func TestIgnoredRewindignoreOverridesGitignore(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".gitignore": "*.gen\nsecret/\n", ".rewindignore": "!keep.gen\n*.env\nbig/\n",
		"a.gen": "", "keep.gen": "", "x.env": "", "big/blob": "", "secret/s": "",
		"sub/.gitignore": "!x.env\n", "sub/.rewindignore": "keep.gen\n!a.gen\n",
		"sub/a.gen": "", "sub/keep.gen": "", "sub/x.env": "", "sub/y.env": "",
	})
	git(t, root, "init", "-q")
	ig, err := NewIgnorer(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		".gitignore": false, ".rewindignore": false, "a.gen": true, "keep.gen": false, "x.env": true,
		"big": true, "big/blob": true, "secret": true, "secret/s": true, "sub": false,
		"sub/.gitignore": false, "sub/.rewindignore": false, "sub/a.gen": false, "sub/keep.gen": true,
		"sub/x.env": false, "sub/y.env": true,
	}
	got := walkVerdicts(t, ig, root)
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: ignored=%v, want %v", p, got[p], w)
		}
	}
	// Invalidate picks up an edited .rewindignore.
	writeFiles(t, root, map[string]string{".rewindignore": "!keep.gen\n"})
	if !ig.Ignored("x.env", false) {
		t.Error("x.env: cached rules should still ignore it before Invalidate")
	}
	ig.Invalidate("")
	if ig.Ignored("x.env", false) {
		t.Error("x.env: still ignored after the .rewindignore changed and Invalidate")
	}
	writeFiles(t, root, map[string]string{"sub/.rewindignore": ""})
	ig.Invalidate("sub")
	if ig.Ignored("sub/keep.gen", false) {
		t.Error("sub/keep.gen: still ignored after sub/.rewindignore emptied and Invalidate(sub)")
	}
}

// TestIgnoredMatchesGitRandom runs seeded random patterns over random trees
// and compares with git. Each of many folders has its own .gitignore with a
// few patterns and the same set of paths, so one git run checks thousands of
// pattern/path pairs.
func TestIgnoredMatchesGitRandom(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			isolateGit(t)
			rng := rand.New(rand.NewSource(seed))
			repo := filepath.Join(t.TempDir(), "r")
			files := randomPaths(rng, 25)
			tree := map[string]string{}
			var pats []string
			for d := 0; d < 40; d++ {
				dir := fmt.Sprintf("d%02d/", d)
				var lines []string
				for n := 1 + rng.Intn(4); n > 0; n-- {
					lines = append(lines, randomPattern(rng))
				}
				pats = append(pats, lines...)
				tree[dir+".gitignore"] = strings.Join(lines, "\n") + "\n"
				for _, f := range files {
					tree[dir+f] = ""
				}
			}
			writeFiles(t, repo, tree)
			git(t, repo, "init", "-q")
			// Track a few files whatever the patterns say.
			var add []string
			for d := 0; d < 40; d += 3 {
				if f := files[rng.Intn(len(files))]; !strings.ContainsAny(f, "*?[\\") {
					add = append(add, fmt.Sprintf("d%02d/%s", d, f))
				}
			}
			git(t, repo, append([]string{"--literal-pathspecs", "add", "-f", "--"}, add...)...)
			compareWithGit(t, repo)
			if t.Failed() {
				t.Logf("patterns: %q", pats)
			}
		})
	}
}

// randomPaths returns n file paths over a tiny alphabet, none of which is a
// folder of another.
func randomPaths(rng *rand.Rand, n int) []string {
	comps := []string{"a", "b", "ab", "ba", "a.b", "c", "aa", "[a]", "a*"}
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		parts := make([]string, 1+rng.Intn(3))
		for i := range parts {
			parts[i] = comps[rng.Intn(len(comps))]
		}
		p := strings.Join(parts, "/")
		clash := seen[p]
		for q := range seen {
			clash = clash || strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/")
		}
		if !clash {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// randomPattern returns one random ignore line over the same alphabet.
func randomPattern(rng *rand.Rand) string {
	toks := []string{"a", "b", "a", "b", "c", ".", "*", "*", "**", "?", "/", "/", "[ab]",
		"[!a]", "[a-b]", "\\a", "\\*", "[", "]", "**/", "/**", "\\"}
	var sb strings.Builder
	switch rng.Intn(5) {
	case 0:
		sb.WriteString("!")
	case 1:
		sb.WriteString("/")
	}
	for n := 1 + rng.Intn(5); n > 0; n-- {
		sb.WriteString(toks[rng.Intn(len(toks))])
	}
	if rng.Intn(4) == 0 {
		sb.WriteString("/")
	}
	if rng.Intn(8) == 0 {
		sb.WriteString(" ")
	}
	return sb.String()
}

// TestIgnoredCharClassesMatchGit checks every byte against the named classes
// and odd bracket expressions, with git as the oracle.
func TestIgnoredCharClassesMatchGit(t *testing.T) {
	isolateGit(t)
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	classes := []string{"[[:alnum:]]", "[[:alpha:]]", "[[:blank:]]", "[[:cntrl:]]", "[[:digit:]]",
		"[[:graph:]]", "[[:lower:]]", "[[:print:]]", "[[:punct:]]", "[[:space:]]", "[[:upper:]]",
		"[[:xdigit:]]", "[[:bogus:]]", "[]a]", "[!]a]", "[a-]", "[-a]", "[\\]]", "[[:]", "[a-c-e]",
		"[z-a]", "[[:alpha:]-z]", "[\\-\\]]", "[^[:digit:]x]", "[[a]", "[!", "[a-\\z]", "[[:digit:]"}
	var paths []string
	tree := map[string]string{}
	for i, c := range classes {
		dir := fmt.Sprintf("c%02d", i)
		tree[dir+"/.gitignore"] = "x" + c + "\n"
		for b := 1; b < 256; b++ {
			if b != '/' {
				paths = append(paths, dir+"/x"+string([]byte{byte(b)}))
			}
		}
	}
	writeFiles(t, repo, tree)
	ig, err := NewIgnorer(repo)
	if err != nil {
		t.Fatal(err)
	}
	want := gitVerdicts(t, repo, paths)
	for _, p := range paths {
		if got := ig.Ignored(p, false); got != want[p] {
			i := p[1:3]
			t.Errorf("%q against %q: Ignorer says %v, git says %v", p, tree["c"+i+"/.gitignore"], got, want[p])
		}
	}
}

// TestIgnorerConcurrent shares one Ignorer between goroutines that walk the
// tricky repository while others invalidate folders (run it with -race), and
// expects the verdicts of a sequential walk.
func TestIgnorerConcurrent(t *testing.T) {
	repo := makeTrickyRepo(t)
	ig, err := NewIgnorer(repo)
	if err != nil {
		t.Fatal(err)
	}
	want := walkVerdicts(t, ig, repo)
	dirs := []string{""}
	for p := range want {
		if fi, err := os.Stat(filepath.Join(repo, p)); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		}
	}
	shared, err := NewIgnorer(repo)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				if g%4 == 0 {
					shared.Invalidate(dirs[(g+i)%len(dirs)])
					continue
				}
				for _, p := range slices.Sorted(maps.Keys(want)) { // parents before children
					if parentIgnored(want, p) {
						continue
					}
					fi, err := os.Lstat(filepath.Join(repo, p))
					if err != nil {
						t.Error(err)
						return
					}
					if got := shared.Ignored(p, fi.IsDir()); got != want[p] {
						t.Errorf("%s: concurrent verdict %v, sequential %v", p, got, want[p])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// parentIgnored reports whether a folder above p was ignored in verdicts.
func parentIgnored(verdicts map[string]bool, p string) bool {
	for i := strings.LastIndexByte(p, '/'); i >= 0; i = strings.LastIndexByte(p[:i], '/') {
		if verdicts[p[:i]] {
			return true
		}
	}
	return false
}

// TestRootInIgnoredFolderIsItsOwn: a workspace inside a folder its
// repository ignores (a home folder kept in git with "*") is captured with
// its own rules, not reduced to nothing.
func TestRootInIgnoredFolderIsItsOwn(t *testing.T) {
	isolateGit(t)
	top := t.TempDir()
	git(t, top, "init", "-q")
	writeFiles(t, top, map[string]string{".gitignore": "*\n", "proj/.gitignore": "*.log\n", "proj/main.go": "x", "proj/debug.log": "x"})
	ig, err := NewIgnorer(filepath.Join(top, "proj"))
	if err != nil {
		t.Fatal(err)
	}
	if ig.Ignored("main.go", false) {
		t.Error("main.go is ignored: the root's own rules should apply")
	}
	if !ig.Ignored("debug.log", false) {
		t.Error("debug.log is not ignored by the root's .gitignore")
	}
}

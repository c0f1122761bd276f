package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// isolateGit points HOME and XDG_CONFIG_HOME at empty temporary folders and
// turns off the system configuration, so neither git nor the Ignorer sees
// this machine's settings. It returns the fake home.
func isolateGit(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_GLOBAL",
		"GIT_CONFIG_SYSTEM", "GIT_CEILING_DIRECTORIES", "GIT_OBJECT_DIRECTORY"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	return home
}

// git runs git in dir and returns its standard output.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t",
		"-c", "init.defaultBranch=main", "-c", "advice.addEmbeddedRepo=false"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return string(out)
}

// writeFiles creates files (keys ending in "/" are empty folders).
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// walkVerdicts walks root like capture does and returns, for every path
// outside any .git, whether it is ignored: the path itself or an ancestor
// folder got Ignored == true. Children of an ignored folder are never asked.
func walkVerdicts(t *testing.T, ig *Ignorer, root string) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	var walk func(rel string, parentIgnored bool)
	walk = func(rel string, parentIgnored bool) {
		ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		for _, de := range ents {
			p := de.Name()
			if rel != "" {
				p = rel + "/" + p
			}
			if de.Name() == ".git" {
				if !ig.Ignored(p, de.IsDir()) {
					t.Errorf("%s: not ignored, want every .git ignored", p)
				}
				continue
			}
			ignored := parentIgnored || ig.Ignored(p, de.IsDir())
			got[p] = ignored
			if de.IsDir() {
				walk(p, ignored)
			}
		}
	}
	walk("", false)
	return got
}

// gitVerdicts asks `git check-ignore` (run in dir) about every path.
// check-ignore reads its arguments as pathspecs and supports no literal
// magic, so a path with glob characters could match tracked files by
// globbing; such paths are asked with --no-index instead, which is exact
// as long as no tracked file is at or below them (checked here).
func gitVerdicts(t *testing.T, dir string, paths []string) map[string]bool {
	t.Helper()
	var plain, globby []string
	for _, p := range paths {
		if strings.ContainsAny(p, "*?[\\") {
			globby = append(globby, p)
		} else {
			plain = append(plain, p)
		}
	}
	want := make(map[string]bool, len(paths))
	checkIgnore(t, dir, plain, want)
	if len(globby) > 0 {
		tracked := strings.Split(git(t, dir, "ls-files", "-z"), "\x00")
		for _, g := range globby {
			for _, tr := range tracked {
				if tr == g || strings.HasPrefix(tr, g+"/") {
					t.Fatalf("test setup: tracked %q is at or below %q, which has glob characters", tr, g)
				}
			}
		}
		checkIgnore(t, dir, globby, want, "--no-index")
	}
	return want
}

// checkIgnore runs git check-ignore once over paths and records verdicts.
func checkIgnore(t *testing.T, dir string, paths []string, into map[string]bool, opts ...string) {
	t.Helper()
	if len(paths) == 0 {
		return
	}
	cmd := exec.Command("git", append(append([]string{"check-ignore"}, opts...), "--stdin", "-z")...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	if err != nil && !(errors.As(err, &exitErr) && exitErr.ExitCode() == 1) {
		t.Fatalf("git check-ignore in %s: %v\n%s", dir, err, stderr.String())
	}
	for _, p := range paths {
		into[p] = false
	}
	for _, p := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if p != "" {
			into[p] = true
		}
	}
}

// compareWithGit builds an Ignorer for root and checks every path of the
// tree against git check-ignore run in root. It returns the verdicts.
func compareWithGit(t *testing.T, root string) map[string]bool {
	t.Helper()
	ig, err := NewIgnorer(root)
	if err != nil {
		t.Fatal(err)
	}
	got := walkVerdicts(t, ig, root)
	paths := make([]string, 0, len(got))
	for p := range got {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	want := gitVerdicts(t, root, paths)
	bad := 0
	for _, p := range paths {
		if got[p] != want[p] {
			t.Errorf("%s: Ignorer says ignored=%v, git check-ignore says ignored=%v", p, got[p], want[p])
			if bad++; bad > 30 {
				t.Fatal("too many mismatches")
			}
		}
	}
	return got
}

// trickyTree is a repository layout full of edge cases of git's ignore rules.
var trickyTree = map[string]string{
	".gitignore": "# a comment\n\\#hash\n\\!bang\n*.log\n!keep.log\nbuild/\n/anchored.txt\n" +
		"docs/*.md\n!docs/README.md\n**/deep/target\nlogs/**\na/**/z\nx[0-9].dat\ny[!a-c].dat\n" +
		"w[^a-c].dat\nq?.txt\ntrail\\ \nspaced.txt   \nexcluded-dir/\n!excluded-dir/reinclude.txt\n" +
		"ignored-tracked.txt\nnode_modules\n*.tmp\n!important.tmp\nfoo**/bar\ncache/\n" +
		"[[:digit:]]*.num\n[[:upper:]]*.up\n\\*star.txt\n[*]lit\n\\?q\nwith space/*.txt\n" +
		"ü/*.log\n!ü/ok.log\nonly-dir/\n", "plain.txt": "", "#hash": "", "!bang": "", "hash": "",
	"app.log": "", "keep.log": "", "sub/app.log": "", "sub/keep.log": "", "sub/plain.txt": "",
	"sub/.gitignore":   "!app.log\nplain.txt\n/anchored.txt\n",
	"sub/anchored.txt": "", "anchored.txt": "",
	"sub/inner/.gitignore": "\xef\xbb\xbf*.txt\r\n!keep.txt\r\n#c\r\n", "sub/inner/a.txt": "",
	"sub/inner/keep.txt": "", "sub/inner/app.log": "",
	"build/out.o": "", "src/build/x.o": "", "other/build": "", "other/cache": "", "other2/cache/x": "",
	"docs/a.md": "", "docs/README.md": "", "docs/sub/b.md": "",
	"p/deep/target": "", "deep/target/x": "", "q/r/deep/target/y": "", "deep/targets": "",
	"logs/a": "", "logs/sub/b": "", "a/z": "", "a/b/z": "", "a/b/c/z": "", "a/zz": "",
	"x1.dat": "", "xa.dat": "", "yd.dat": "", "ya.dat": "", "wd.dat": "", "wa.dat": "",
	"q1.txt": "", "q12.txt": "", "trail ": "", "trail": "", "spaced.txt": "",
	"excluded-dir/reinclude.txt": "", "excluded-dir/other.txt": "", "excluded-dir/tracked.txt": "",
	"excluded-dir/sub/x": "", "excluded-dir/sub/tracked2.txt": "", "ignored-tracked.txt": "",
	"node_modules/pkg/index.js": "", "sub/node_modules/x": "", "a.tmp": "", "important.tmp": "",
	"foo/x/bar": "", "fooz/x/bar": "", "foo/bar": "", "fo/x/bar": "",
	"7days.num": "", "days7.num": "", "Up.up": "", "up.up": "",
	"*star.txt": "", "xstar.txt": "", "*lit": "", "xlit": "", "?q": "", "aq": "",
	"with space/file name.txt": "", "with space/file name.md": "", "with space/in ner/x.txt": "",
	"ü/ñ.log": "", "ü/ok.log": "", "日本語/.gitignore": "日本*\n", "日本語/日本.txt": "", "日本語/中.txt": "",
	"only-dir": "", "deeper/only-dir/x": "", "from-info-exclude.txt": "", "sub/from-info-exclude.txt": "",
	"x.global": "", "sub/y.global": "", "neg-info.txt": "",
	"nested/.gitignore": "*.nested\n!keep.nested\n", "nested/a.nested": "", "nested/keep.nested": "",
	"nested/b.log": "", "nested/c.txt": "", "nested/sub/d.nested": "",
}

// makeTrickyRepo writes trickyTree as a committed repository with a nested
// repository, tracked files that match ignore patterns, info/exclude and a
// global excludes file in ~/.gitconfig.
func makeTrickyRepo(t *testing.T) string {
	t.Helper()
	home := isolateGit(t)
	writeFiles(t, home, map[string]string{
		".gitconfig":    "[user]\n\tname = t\n[core]\n\t# the excludes file\n\texcludesFile = \"~/global ignore\" ; comment\n",
		"global ignore": "*.global\nneg-info.txt\n",
	})
	repo := filepath.Join(t.TempDir(), "repo")
	writeFiles(t, repo, trickyTree)
	git(t, repo, "init", "-q")
	git(t, filepath.Join(repo, "nested"), "init", "-q")
	writeFiles(t, repo, map[string]string{".git/info/exclude": "from-info-exclude.txt\n!neg-info.txt\n"})
	git(t, repo, "add", "-A", "--", ".", ":(exclude)nested")
	git(t, repo, "add", "-f", "ignored-tracked.txt", "excluded-dir/tracked.txt", "excluded-dir/sub/tracked2.txt")
	git(t, repo, "commit", "-q", "-m", "init")
	return repo
}

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

// benchGitignore is a typical root .gitignore of a mixed-language project.
const benchGitignore = `# dependencies and builds
node_modules/
.venv/
venv/
__pycache__/
*.py[cod]
*.so
*.egg-info/
dist/
build/
target/
*.o
*.a
*.class
*.log
*.tmp
*.swp
*~
.DS_Store
.idea/
.vscode/*
!.vscode/settings.json
coverage/
.env
.env.*
!.env.example
/out/
/bin/
*.test
*.prof
.cache/
tmp/
**/generated/**
docs/_build/
*.min.js
*.map
.terraform/
*.tfstate
vendor/**/testdata/
[Dd]ebug/
[Rr]elease/
*.sqlite
`

// benchEntry is one path the walker asks about.
type benchEntry struct {
	rel   string
	isDir bool
}

// benchTree builds a repository of about 80,000 entries with most files
// tracked (the index is written without creating the files) and returns the
// entries a walker asks about, in walk order.
func benchTree(b *testing.B) (string, []benchEntry) {
	b.Helper()
	isolateGit(b)
	repo := b.TempDir()
	for p, content := range map[string]string{".gitignore": benchGitignore,
		"web/.gitignore": "/public/\n*.snap\n!keep.snap\n", "services/s03/.gitignore": "*.pb.go\n!api.pb.go\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, p)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, p), []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var all []benchEntry
	dir := func(p string) { all = append(all, benchEntry{p, true}) }
	file := func(p string) { all = append(all, benchEntry{p, false}) }
	exts := []string{".go", "_test.go", ".pb.go", ".md", ".log", ".py", ".pyc", ".json", ".min.js", ".snap"}
	dir("services")
	for s := 0; s < 40; s++ {
		sd := fmt.Sprintf("services/s%02d", s)
		dir(sd)
		for k := 0; k < 40; k++ {
			pd := fmt.Sprintf("%s/pkg%02d", sd, k)
			dir(pd)
			for f := 0; f < 48; f++ {
				file(fmt.Sprintf("%s/file%02d%s", pd, f, exts[f%len(exts)]))
			}
			if k%10 == 0 {
				dir(pd + "/__pycache__")
				dir(pd + "/generated")
				file(pd + "/generated/x.go")
			}
		}
	}
	for _, d := range []string{"web", "web/src", "web/node_modules", "web/public", "build", ".venv", "docs"} {
		dir(d)
	}
	for c := 0; c < 700; c++ {
		dir(fmt.Sprintf("web/src/c%03d", c))
		for f := 0; f < 6; f++ {
			file(fmt.Sprintf("web/src/c%03d/f%d%s", c, f, exts[(c+f)%len(exts)]))
		}
	}
	// Keep only what a walker asks about: nothing below an ignored folder.
	git(b, repo, "init", "-q")
	ig, err := NewIgnorer(repo)
	if err != nil {
		b.Fatal(err)
	}
	var asked []benchEntry
	var index strings.Builder
	ignoredDirs := map[string]bool{}
	for _, e := range all {
		if i := strings.LastIndexByte(e.rel, '/'); i >= 0 && ignoredDirs[e.rel[:i]] {
			if e.isDir {
				ignoredDirs[e.rel] = true
			}
			continue
		}
		asked = append(asked, e)
		ign := ig.Ignored(e.rel, e.isDir)
		if e.isDir && ign {
			ignoredDirs[e.rel] = true
		}
		if !e.isDir && !ign {
			index.WriteString("100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\t" + e.rel + "\n")
		}
	}
	cmd := exec.Command("git", "update-index", "--add", "--index-info")
	cmd.Dir, cmd.Stdin = repo, strings.NewReader(index.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git update-index: %v\n%s", err, out)
	}
	return repo, asked
}

// BenchmarkIgnored measures one Ignored call, caches warm, on a realistic
// tree of about 80,000 entries; ns/call is the number to watch.
func BenchmarkIgnored(b *testing.B) {
	repo, asked := benchTree(b)
	ig, err := NewIgnorer(repo)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range asked {
		ig.Ignored(e.rel, e.isDir)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, e := range asked {
			ig.Ignored(e.rel, e.isDir)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(asked)), "ns/call")
	b.ReportMetric(float64(len(asked)), "calls/walk")
}

// BenchmarkIgnoredParallel is BenchmarkIgnored from GOMAXPROCS goroutines
// sharing one Ignorer, as capture's walker does.
func BenchmarkIgnoredParallel(b *testing.B) {
	repo, asked := benchTree(b)
	ig, err := NewIgnorer(repo)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			e := asked[i%len(asked)]
			ig.Ignored(e.rel, e.isDir)
			i++
		}
	})
}

// BenchmarkNewIgnorerWalk measures a whole capture's worth of ignore work:
// NewIgnorer (config, excludes, an index of ~70,000 entries) and a cold walk.
func BenchmarkNewIgnorerWalk(b *testing.B) {
	repo, asked := benchTree(b)
	for b.Loop() {
		ig, err := NewIgnorer(repo)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range asked {
			ig.Ignored(e.rel, e.isDir)
		}
	}
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

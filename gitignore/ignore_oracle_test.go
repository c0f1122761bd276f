package gitignore

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Helpers that compare the Ignorer with git itself (the oracle).
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
//
// The verdicts include the one rule git does not have: editors' side files
// (isSideFile) that are no folder and that git does not track are ignored.
func gitVerdicts(t *testing.T, dir string, paths []string) map[string]bool {
	t.Helper()
	want := plainGitVerdicts(t, dir, paths)
	var tracked map[string]bool
	for _, p := range paths {
		if want[p] || !isSideFile(p[strings.LastIndexByte(p, '/')+1:]) {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err == nil && fi.IsDir() {
			continue
		}
		if tracked == nil {
			tracked = map[string]bool{}
			out, _ := exec.Command("git", "-C", dir, "ls-files", "-z").Output() // no repository: none
			for _, f := range strings.Split(string(out), "\x00") {
				tracked[f] = true
			}
		}
		want[p] = !tracked[p]
	}
	return want
}

// plainGitVerdicts is gitVerdicts without the built-in side files: git's
// own verdicts.
func plainGitVerdicts(t *testing.T, dir string, paths []string) map[string]bool {
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

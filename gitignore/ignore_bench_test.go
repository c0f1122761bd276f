package gitignore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

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

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// project is one top-level folder of the monorepo.
type project struct {
	name string
	lang string
}

// langs maps a language to its file extensions, most common first.
var langs = map[string][]string{
	"go":   {".go", ".go", ".go", ".go", "_test.go", ".mod", ".md", ".yaml", ".proto"},
	"ts":   {".ts", ".ts", ".tsx", ".tsx", ".js", ".json", ".css", ".md", ".test.ts"},
	"py":   {".py", ".py", ".py", ".pyi", ".txt", ".cfg", ".md", ".yaml", ".json"},
	"java": {".java", ".java", ".java", ".kt", ".xml", ".properties", ".md", ".gradle"},
	"rs":   {".rs", ".rs", ".rs", ".toml", ".md", ".json"},
	"cc":   {".cc", ".cc", ".h", ".h", ".c", ".hpp", ".cmake", ".md", ".py"},
	"docs": {".md", ".md", ".rst", ".txt", ".html", ".svg", ".yaml"},
}

// folderWords name folders (each gets a suffix when a name repeats).
var folderWords = strings.Fields(`api app auth billing cache cli client cmd common config core data db
	deploy docs engine events feature fixtures gateway handlers http infra internal io jobs lib
	logging metrics middleware model models net parser pkg platform proto queue render router
	rpc runtime scheduler schema search server service services shared src storage store sync
	test testdata tests tools types ui util utils v1 v2 web worker components hooks pages
	styles assets scripts migrations plugins adapters`)

var fileWords = strings.Fields(`index main util helpers types config client server handler service
	model store cache parser reader writer encoder decoder router context errors options state
	table view list item form button modal user account order payment report event queue task
	worker job schema query builder factory adapter registry manager controller`)

func main() {
	out := flag.String("out", "", "the folder to write (must not exist, or be empty)")
	nfiles := flag.Int("files", 500000, "tracked files to write")
	seed := flag.Uint64("seed", 1, "the tree's seed")
	corpusDir := flag.String("corpus", filepath.Join(runtime.GOROOT(), "src"), "a folder of text to cut file contents from")
	ignoredShare := flag.Float64("ignored", 0.12, "ignored build output, as a share of the tracked files")
	flag.Parse()
	if *out == "" || *nfiles < 100 {
		fmt.Fprintln(os.Stderr, "usage: gen -out DIR [-files N (>= 100)] [-seed S] [-corpus DIR] [-ignored SHARE]")
		os.Exit(2)
	}
	if ents, err := os.ReadDir(*out); err == nil && len(ents) > 0 {
		fail(fmt.Errorf("%s is not empty", *out))
	}
	corpus, err := loadCorpus(*corpusDir)
	if err != nil {
		fail(err)
	}
	g := &gen{root: *out, seed: *seed, corpus: corpus}
	g.plan(*nfiles, *ignoredShare)
	if err := g.write(); err != nil {
		fail(err)
	}
	fmt.Printf("tracked %d files, %d folders, %d bytes; ignored %d files, %d bytes\n",
		g.tracked, len(g.dirs), g.trackedBytes.Load(), g.ignored, g.ignoredBytes.Load())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}

// loadCorpus reads the text files under dir (up to 48 MiB) into one
// buffer of whole lines.
func loadCorpus(dir string) ([]byte, error) {
	var buf bytes.Buffer
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		switch filepath.Ext(p) {
		case ".go", ".c", ".h", ".s", ".txt", ".md", ".html", ".js", ".json", ".yaml":
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		buf.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			buf.WriteByte('\n')
		}
		if buf.Len() > 48<<20 {
			break
		}
	}
	if buf.Len() < 1<<20 {
		return nil, fmt.Errorf("corpus %s: only %d bytes of text (want at least 1 MiB)", dir, buf.Len())
	}
	return buf.Bytes(), nil
}

// dir is one folder of the plan: its path, its depth, its project, and
// how many tracked files it gets.
type dir struct {
	path  string
	depth int
	proj  int
	files int
}

// entry is one file to write.
type entry struct {
	path    string
	size    int
	asset   bool // incompressible bytes
	exec    bool
	ignored bool
	n       uint64 // its number: seeds its content
}

type gen struct {
	root   string
	seed   uint64
	corpus []byte

	projects []project
	dirs     []dir
	files    []entry
	extra    []string // .gitignore contents by path, then symlinks "link\x00target"

	tracked, ignored           int
	trackedBytes, ignoredBytes atomic.Int64
}

func (g *gen) rng(salt uint64) *rand.Rand { return rand.New(rand.NewPCG(g.seed, salt)) }

// plan decides every folder and file before anything is written.
func (g *gen) plan(nfiles int, ignoredShare float64) {
	r := g.rng(0)
	kinds := []string{"go", "ts", "py", "java", "rs", "cc", "docs"}
	tops := []string{"services", "libs", "apps", "tools", "third_party", "docs", "infra", "platform", "web", "mobile", "ml", "sdk"}
	for i, t := range tops {
		lang := kinds[i%len(kinds)]
		switch t {
		case "docs":
			lang = "docs"
		case "web", "apps":
			lang = "ts"
		case "ml":
			lang = "py"
		case "third_party":
			lang = "cc"
		}
		g.projects = append(g.projects, project{name: t, lang: lang})
	}
	// Folders: about one per 20 files. Each new folder picks a depth (most
	// 3–7, some 1–2 and 8–12) and hangs below a random folder one level up.
	ndirs := nfiles / 20
	byDepth := map[int][]int{}
	used := map[string]int{}
	for i, p := range g.projects {
		g.dirs = append(g.dirs, dir{path: p.name, depth: 1, proj: i})
		byDepth[1] = append(byDepth[1], len(g.dirs)-1)
	}
	depthWeights := []float64{0, 0.02, 0.07, 0.14, 0.18, 0.18, 0.15, 0.11, 0.07, 0.04, 0.02, 0.01, 0.01}
	for len(g.dirs) < ndirs {
		d := pick(r, depthWeights)
		parents := byDepth[d-1]
		if len(parents) == 0 {
			continue
		}
		// Favour recent parents a little, so subtrees grow deep, not only wide.
		pi := parents[len(parents)-1-int(math.Min(float64(len(parents)-1), r.ExpFloat64()*float64(len(parents))/3))]
		parent := g.dirs[pi]
		name := folderWords[r.IntN(len(folderWords))]
		key := parent.path + "/" + name
		if used[key] > 0 {
			name = fmt.Sprintf("%s%d", name, used[key]+1)
		}
		used[key]++
		g.dirs = append(g.dirs, dir{path: parent.path + "/" + name, depth: d, proj: parent.proj})
		byDepth[d] = append(byDepth[d], len(g.dirs)-1)
	}
	// Files per folder: log-normal weights (many small folders, some with
	// hundreds of files; a fifth hold only folders), scaled to nfiles.
	w := make([]float64, len(g.dirs))
	var sum float64
	for i := range w {
		if r.Float64() < 0.2 {
			continue
		}
		w[i] = math.Exp(r.NormFloat64() * 1.0)
		sum += w[i]
	}
	left := nfiles
	for i := range g.dirs {
		n := int(float64(nfiles) * w[i] / sum)
		if n > left {
			n = left
		}
		g.dirs[i].files = n
		left -= n
	}
	for i := 0; left > 0; i = (i + 1) % len(g.dirs) {
		if w[i] > 0 {
			g.dirs[i].files++
			left--
		}
	}
	// The files themselves.
	var n uint64
	for _, d := range g.dirs {
		exts := langs[g.projects[d.proj].lang]
		names := map[string]bool{}
		for k := 0; k < d.files; k++ {
			ext := exts[r.IntN(len(exts))]
			if r.Float64() < 0.15 { // another language's file
				other := langs[kinds[r.IntN(len(kinds))]]
				ext = other[r.IntN(len(other))]
			}
			base := fileWords[r.IntN(len(fileWords))]
			name := base + ext
			for j := 2; names[name]; j++ {
				name = fmt.Sprintf("%s_%d%s", base, j, ext)
			}
			names[name] = true
			e := entry{path: d.path + "/" + name, size: fileSize(r), n: n}
			n++
			if r.Float64() < 0.004 {
				e.asset = true
				e.path = fmt.Sprintf("%s/asset_%d.%s", d.path, k, []string{"png", "woff2", "jar", "pb"}[r.IntN(4)])
				e.size = 1024 + r.IntN(200<<10)
			}
			if r.Float64() < 0.002 {
				e.path = fmt.Sprintf("%s/run_%d.sh", d.path, k)
				e.exec = true
			}
			g.files = append(g.files, e)
			g.tracked++
		}
	}
	// Ignore rules: the root's, and one per project with its own.
	g.extra = append(g.extra, ".gitignore\x00# build output and dependencies\nbuild/\nout/\nnode_modules/\n__pycache__/\n*.pyc\n*.o\n*.class\n.cache/\ndist/\n*.log\n")
	for _, p := range g.projects {
		g.extra = append(g.extra, p.name+"/.gitignore\x00# generated\n*.gen.tmp\ncoverage/\n")
	}
	// Ignored output: build/ at the root (object files, a dist tree),
	// node_modules/ in TypeScript projects' folders, __pycache__/ in
	// Python ones, stray *.o and *.log files beside sources.
	nign := int(float64(nfiles) * ignoredShare)
	for k := 0; k < nign; k++ {
		var p string
		switch x := r.Float64(); {
		case x < 0.45:
			p = fmt.Sprintf("build/%s/obj/%s_%d.o", g.projects[r.IntN(len(g.projects))].name, fileWords[r.IntN(len(fileWords))], k)
		case x < 0.75:
			d := g.dirs[r.IntN(len(g.dirs))]
			p = fmt.Sprintf("%s/node_modules/%s/lib/%s_%d.js", g.projects[d.proj].name, folderWords[r.IntN(len(folderWords))], fileWords[r.IntN(len(fileWords))], k)
		case x < 0.9:
			d := g.dirs[r.IntN(len(g.dirs))]
			p = fmt.Sprintf("%s/__pycache__/%s_%d.cpython-311.pyc", d.path, fileWords[r.IntN(len(fileWords))], k)
		default:
			d := g.dirs[r.IntN(len(g.dirs))]
			p = fmt.Sprintf("%s/%s_%d.o", d.path, fileWords[r.IntN(len(fileWords))], k)
		}
		g.files = append(g.files, entry{path: p, size: fileSize(r), ignored: true, n: n})
		n++
		g.ignored++
	}
	// A few symbolic links, as repositories have: each beside a tracked
	// file, pointing at it.
	for k := 0; k < 20 && g.tracked > 0; k++ {
		f := g.files[r.IntN(g.tracked)].path
		i := strings.LastIndexByte(f, '/')
		g.extra = append(g.extra, fmt.Sprintf("%s/link_%d\x00->%s", f[:i], k, f[i+1:]))
	}
}

// fileSize draws a log-normal size: median ~2 KB, mean ~5 KB, at most 1 MiB.
func fileSize(r *rand.Rand) int {
	s := int(math.Exp(7.6 + 1.25*r.NormFloat64()))
	return max(0, min(s, 1<<20))
}

func pick(r *rand.Rand, w []float64) int {
	var sum float64
	for _, x := range w {
		sum += x
	}
	v := r.Float64() * sum
	for i, x := range w {
		if v < x {
			return i
		}
		v -= x
	}
	return len(w) - 1
}

// write creates the planned tree on both cores.
func (g *gen) write() error {
	if err := os.MkdirAll(g.root, 0o755); err != nil {
		return err
	}
	for _, d := range g.dirs {
		if err := os.MkdirAll(filepath.Join(g.root, d.path), 0o755); err != nil {
			return err
		}
	}
	for _, x := range g.extra {
		p, body, _ := strings.Cut(x, "\x00")
		if target, ok := strings.CutPrefix(body, "->"); ok {
			if err := os.Symlink(target, filepath.Join(g.root, p)); err != nil {
				return err
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(g.root, p), []byte(body), 0o644); err != nil {
			return err
		}
	}
	workers := max(2, runtime.NumCPU())
	var wg sync.WaitGroup
	var next atomic.Int64
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for {
				i := int(next.Add(1) - 1)
				if i >= len(g.files) {
					return
				}
				e := g.files[i]
				buf = g.content(buf[:0], e)
				p := filepath.Join(g.root, e.path)
				if e.ignored {
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						errs[w] = err
						return
					}
				}
				mode := os.FileMode(0o644)
				if e.exec {
					mode = 0o755
				}
				if err := os.WriteFile(p, buf, mode); err != nil {
					errs[w] = err
					return
				}
				if e.ignored {
					g.ignoredBytes.Add(int64(len(buf)))
				} else {
					g.trackedBytes.Add(int64(len(buf)))
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// content appends file e's bytes to buf: a line naming it, then text cut
// from the corpus at a place its number picks (or random bytes for an
// asset), e.size bytes in all (ending at a line end for text).
func (g *gen) content(buf []byte, e entry) []byte {
	r := g.rng(e.n + 1)
	buf = fmt.Appendf(buf, "// %s (generated for rewind-lsp's benchmarks, file %d)\n", e.path, e.n)
	if e.asset {
		for len(buf) < e.size {
			buf = binaryAppendUint64(buf, r.Uint64())
		}
		return buf[:e.size]
	}
	for len(buf) < e.size {
		start := r.IntN(len(g.corpus))
		if i := bytes.IndexByte(g.corpus[start:], '\n'); i >= 0 {
			start += i + 1
		}
		chunk := g.corpus[start:min(len(g.corpus), start+e.size-len(buf))]
		if j := bytes.LastIndexByte(chunk, '\n'); j >= 0 {
			chunk = chunk[:j+1]
		}
		if len(chunk) == 0 {
			buf = append(buf, '\n')
			continue
		}
		buf = append(buf, chunk...)
	}
	return buf
}

func binaryAppendUint64(b []byte, v uint64) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

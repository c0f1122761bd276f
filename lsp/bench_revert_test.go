package lsp

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// The speed goals of blame and revert, measured in a running server (the real binary,
// driven over stdio by the fake editor) and printed beside git doing the
// same on the same history:
//
//	go test ./lsp -run '^$' -bench 'Blame5000|Revert13' -benchtime 20x
//
// BenchmarkBlame5000Lines50Turns: rewind.blame of a 5,000-line file that 50
// turns changed (goal < 20 ms); BenchmarkRevert13FilesAfter20Turns:
// rewind.revert of a 13-file turn after 20 later turns on a copy of
// GOROOT/src (~11.5k files), up to the WorkspaceEdit (goal < 50 ms).

// median of ds.
func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// gitRepo is a git repository beside a benchmark workspace, holding the
// same history as commits.
type gitRepo struct {
	b   *testing.B
	dir string
}

func (g gitRepo) run(args ...string) string {
	g.b.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=b", "-c", "user.email=b@b", "-c", "gc.auto=0"}, args...)...)
	cmd.Dir = g.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+g.dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// timeGit is the median wall time of n runs of git args (after one
// warm-up), with reset run untimed after each.
func (g gitRepo) timeGit(n int, reset func(), args ...string) time.Duration {
	var ds []time.Duration
	for i := 0; i <= n; i++ {
		t0 := time.Now()
		g.run(args...)
		if i > 0 {
			ds = append(ds, time.Since(t0))
		}
		if reset != nil {
			reset()
		}
	}
	return median(ds)
}

func BenchmarkBlame5000Lines50Turns(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is needed for the baseline")
	}
	rng := rand.New(rand.NewSource(12))
	w := testkit.NewSandbox(b)
	g := gitRepo{b, filepath.Join(w.Home, "git")}
	os.MkdirAll(g.dir, 0o755)
	g.run("init", "-q")
	lines := make([]string, 5000)
	for i := range lines {
		lines[i] = fmt.Sprintf("\tv%d := compute(input%d, %d) // line %d\n", i, rng.Intn(100), rng.Intn(1000), i)
	}
	write := func() {
		text := strings.Join(lines, "")
		os.WriteFile(filepath.Join(w.Root, "big.go"), []byte(text), 0o644)
		os.WriteFile(filepath.Join(g.dir, "big.go"), []byte(text), 0o644)
	}
	write()
	g.run("add", "-A")
	g.run("commit", "-qm", "base")
	srv, c := testkit.StartServer(w)
	e := testkit.NewEditor(b, c, testkit.VSCodeLike)
	e.Server = srv
	e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store, "autoTurns": false})
	for turn := 1; turn <= 50; turn++ {
		e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": fmt.Sprintf("turn %d", turn)}, nil)
		for k := 0; k < 20; k++ { // 20 lines rewritten
			i := rng.Intn(len(lines))
			lines[i] = fmt.Sprintf("\tv%d := faster(input%d) // turn %d\n", i, rng.Intn(100), turn)
		}
		at := rng.Intn(len(lines))
		lines = append(lines[:at], append([]string{fmt.Sprintf("\t// added by turn %d\n", turn)}, lines[at:]...)...)
		at = rng.Intn(len(lines))
		lines = append(lines[:at], lines[at+1:]...)
		write()
		e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
		g.run("commit", "-qam", fmt.Sprintf("turn %d", turn))
	}
	uri := testkit.URI(filepath.Join(w.Root, "big.go"))
	blame := func() (time.Duration, int) {
		var res commands.BlameResult
		t0 := time.Now()
		e.MustCmd(commands.NameBlame, map[string]any{"uri": uri}, &res)
		return time.Since(t0), len(res.Ranges)
	}
	first, ranges := blame()
	if ranges == 0 {
		b.Fatal("blame found no agent lines")
	}
	// Warm: the journal and the file as they were.
	var warm []time.Duration
	for i := 0; i < 20; i++ {
		d, _ := blame()
		warm = append(warm, d)
	}
	// The person types in the open buffer between requests: the last step
	// (last turn → buffer) is diffed again each time.
	e.Open(filepath.Join(w.Root, "big.go"))
	var typed []time.Duration
	for i := 0; i < 20; i++ {
		e.TypeText(filepath.Join(w.Root, "big.go"), kitRange(Range{Position{i * 100, 0}, Position{i * 100, 0}}), "x")
		d, _ := blame()
		typed = append(typed, d)
	}
	// One more turn: the chain grows by one turn (incremental).
	var more []time.Duration
	for i := 0; i < 5; i++ {
		e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "one more"}, nil)
		text, _ := e.Text(filepath.Join(w.Root, "big.go"))
		os.WriteFile(filepath.Join(w.Root, "big.go"), []byte(strings.Replace(text, "\n", " // more\n", 1)), 0o644)
		e.Reload(filepath.Join(w.Root, "big.go"))
		e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
		d, _ := blame()
		more = append(more, d)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		blame()
	}
	b.StopTimer()
	gitBlame := g.timeGit(5, nil, "blame", "--porcelain", "big.go")
	b.ReportMetric(ms(first), "first-ms")
	b.ReportMetric(ms(median(warm)), "warm-ms")
	b.ReportMetric(ms(median(typed)), "after-typing-ms")
	b.ReportMetric(ms(median(more)), "after-a-turn-ms")
	b.ReportMetric(ms(gitBlame), "git-blame-ms")
	b.ReportMetric(float64(gitBlame)/float64(median(typed)), "git/after-typing")
	b.Logf("5,000-line file, 50 turns (%d agent ranges), GOMAXPROCS %d: first %.1f ms, warm %.2f ms, after typing %.2f ms, after one more turn %.2f ms; git blame --porcelain %.1f ms",
		ranges, runtime.GOMAXPROCS(0), ms(first), ms(median(warm)), ms(median(typed)), ms(median(more)), ms(gitBlame))
}

func BenchmarkRevert13FilesAfter20Turns(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is needed for the baseline")
	}
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skip("needs GOROOT/src as the tree")
	}
	w := testkit.NewSandbox(b)
	if out, err := exec.Command("cp", "-a", src+"/.", w.Root).CombinedOutput(); err != nil {
		b.Fatalf("copy %s: %v %s", src, err, out)
	}
	g := gitRepo{b, w.Root}
	g.run("init", "-q")
	g.run("add", "-A")
	g.run("commit", "-qm", "base")
	// Text files of 100–2,000 lines, in a fixed pseudo-random order.
	var pool []string
	filepath.WalkDir(w.Root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.Contains(p, "/testdata/") {
			return nil
		}
		data, err := os.ReadFile(p)
		if n := strings.Count(string(data), "\n"); err == nil && n >= 100 && n <= 2000 {
			rel, _ := filepath.Rel(w.Root, p)
			pool = append(pool, rel)
		}
		return nil
	})
	sort.Strings(pool)
	treeFiles := strings.Count(g.run("ls-files"), "\n")
	rng := rand.New(rand.NewSource(13))
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	// edit rewrites the lines at fractions fr of a file.
	edit := func(rel, tag string, fr ...float64) {
		p := filepath.Join(w.Root, rel)
		data, _ := os.ReadFile(p)
		ls := strings.SplitAfter(string(data), "\n")
		for _, f := range fr {
			i := int(f * float64(len(ls)-1))
			ls[i] = "// " + tag + "\n" + ls[i]
		}
		os.WriteFile(p, []byte(strings.Join(ls, "")), 0o644)
	}

	srv, c := testkit.StartServer(w)
	e := testkit.NewEditor(b, c, testkit.VSCodeLike)
	e.Server = srv
	e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store, "autoTurns": false})
	e.MustCmd(commands.NameStatus, map[string]any{}, nil)

	// Turn 1, the one reverted: 11 files edited in three places, one
	// created, one deleted.
	target := pool[:11]
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "the turn to take back"}, nil)
	for _, rel := range target {
		edit(rel, "turn 1", 0.1, 0.5, 0.9)
	}
	os.WriteFile(filepath.Join(w.Root, "newpkg_by_turn1.go"), []byte("package newpkg\n"), 0o644)
	os.Remove(filepath.Join(w.Root, pool[11]))
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	g.run("add", "-A")
	g.run("commit", "-qm", "turn 1")
	turn1 := strings.TrimSpace(g.run("rev-parse", "HEAD"))
	// 20 later turns of 6 files each, two of them among turn 1's files
	// (elsewhere in them).
	for t := 2; t <= 21; t++ {
		e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": fmt.Sprintf("turn %d", t)}, nil)
		for k := 0; k < 2; k++ {
			edit(target[rng.Intn(len(target))], fmt.Sprintf("turn %d", t), 0.3)
		}
		for k := 0; k < 4; k++ {
			edit(pool[12+rng.Intn(len(pool)-12)], fmt.Sprintf("turn %d", t), 0.5)
		}
		e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
		g.run("commit", "-qam", fmt.Sprintf("turn %d", t))
	}

	var toEdit, total []time.Duration
	var sent time.Time
	revert := func() {
		t0 := time.Now()
		e.SetBeforeApply(func(*testkit.Editor) {
			sent = time.Now()
		})
		var rr commands.RewindResult
		e.MustCmd(commands.NameRevert, map[string]any{"target": "1"}, &rr)
		total = append(total, time.Since(t0))
		toEdit = append(toEdit, sent.Sub(t0))
		if !rr.Applied || len(rr.Plan.Files) != 13 {
			b.Fatalf("revert: applied=%v %q, %d files", rr.Applied, rr.FailureReason, len(rr.Plan.Files))
		}
		e.SetBeforeApply(nil)
		e.MustCmd(commands.NameUndo, map[string]any{}, &rr)
		if !rr.Applied {
			b.Fatalf("undo: %q", rr.FailureReason)
		}
	}
	revert() // warm-up
	toEdit, total = nil, nil
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		revert()
	}
	b.StopTimer()
	gitRevert := g.timeGit(5, func() { g.run("reset", "-q", "--hard", "HEAD") }, "revert", "--no-commit", turn1)
	b.ReportMetric(ms(median(toEdit)), "to-edit-ms")
	b.ReportMetric(ms(median(total)), "applied-ms")
	b.ReportMetric(ms(gitRevert), "git-revert-ms")
	b.ReportMetric(float64(gitRevert)/float64(median(toEdit)), "git/to-edit")
	b.Logf("revert of a 13-file turn after 20 later turns, %d-file tree: to the WorkspaceEdit %.1f ms, applied and answered %.1f ms (median of %d); git revert --no-commit %.1f ms",
		treeFiles, ms(median(toEdit)), ms(median(total)), len(toEdit), ms(gitRevert))
}

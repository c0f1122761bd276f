// The driver of bench/soak.sh runs thousands of agent turns against one
// running rewind-lsp language server and checks, after every rewind,
// revert and undo, that the tree is exactly the state the driver recorded
// for the target.
//
// It plays every party at once, one step at a time (the order is drawn
// from -seed, so a run can be repeated):
//   - the editor: a VS Code-like LSP client of the server (documentChanges
//     with create/rename/delete, UTF-16 edits applied to its buffers, the
//     files a rewind changed saved afterwards), and the person at it, who
//     opens files, types and saves between turns;
//   - agents: an editor chat (rewind.turnStart/turnEnd over LSP), a Claude
//     Code session (`rewind-lsp hook claude-code` with its events and a
//     transcript), a shell session (`rewind-lsp turn start|end --session`),
//     Codex and Gemini sessions when the binary has their hooks, changes
//     with no turn open (automatic turns), and an agent's MCP connection
//     (`rewind-lsp mcp`: checkpoints and rewinds inside its turns);
//   - the person rewinding: rewinds, reverts of one turn and undos, over
//     LSP and from the command line, and conversation rewinds of the Claude
//     Code session (whose fork it then continues).
//
// Every state a turn, checkpoint or operation recorded is kept by the
// driver (content hashes of every file it changes; every other file by its
// stat), so each check is against what was on disk, not against what the
// server says. Each turn's reported changed files are checked against the
// files that changed. At the end it prints the table of bench/soak.sh.
package soak

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

var (
	flagRoot   = flag.String("soak.root", "", "the workspace (a git repository; changed in place); without it the soak does not run")
	flagHome   = flag.String("soak.home", "", "the folder for the store home, the agents' homes and the log")
	flagTurns  = flag.Int("soak.turns", 10000, "turns to run")
	flagSeed   = flag.Int64("soak.seed", 1, "the seed of every random choice")
	flagBudget = flag.Int64("soak.budget", 0, "the store budget (maxStoreBytes) in bytes; 0: the store after the first capture + 25%")
	flagEvery  = flag.Int("soak.every", 1000, "turns per row of the table")
	flagPool   = flag.Int("soak.pool", 300, "tracked files the agents change")
	flagQuiet  = flag.Int("soak.quiet", 250, "autoTurnQuietMs")
	flagDebug  = flag.Bool("soak.debug", false, "check the whole tree after every turn")
	flagLeave  = flag.String("soak.leave", "", "comma-separated parts of the mix to leave out: mcp-rewind, auto, fork, person, revert, codex, gemini")
)

// target is a state the driver can rewind to: spec is how it is named,
// st what the tree was then.
type target struct {
	spec   string
	st     state
	epoch  int  // conversation branch it was recorded on (turn:N names change with it)
	pinned bool // a labeled checkpoint: retention never drops it
	step   int
}

// op is an operation in effect: undo puts the files it changed back to
// their state in pre (the others keep what came after).
type op struct {
	what      string
	pre, post state
	seq       int  // how many operations ran before it, it included
	conv      bool // it moved the conversation: its undo moves it back
	blocked   bool // its undo was refused: a folder it would fill is a file now
}

type driver struct {
	t          *testing.T
	root, home string
	sb         *testkit.Sandbox // the store home (REWIND_LSP_HOME) and root every process shares
	logw       io.Writer
	rng        *rand.Rand

	srv   *testkit.Server
	ed    *editorSide
	m     *model
	mcp   *mcpAgent
	cc    *claude
	extra []string // other agents' hooks the binary has

	pool      []string
	created   []string
	nextFile  int
	targets   []*target
	ops       []op
	userDirty map[string]bool // saved by the person since the last recorded state
	epoch     int
	step      int
	turns     int // turns ended
	mcpCP     *target
	mcpDirty  map[string]bool // saved by the person since the MCP checkpoint
	undoStuck bool            // an undo met an undo snapshot retention dropped
	opSeq     int             // operations run (rewinds, reverts, undos)
	notice    int             // what the Claude session's next prompt prints (noticeNone…)
	recent    []turnRec       // the latest turns, for reverts and forks

	win      *window
	wins     []*window
	fails    []string
	failsWin int
	counts   map[string]int
	rssAt    map[int]int64
	budget   int64
	debug    bool
	leave    map[string]bool // parts of the mix left out (-leave)
}

// TestSoak is the soak; bench/soak.sh builds the tree and runs it.
func TestSoak(t *testing.T) {
	if *flagRoot == "" || *flagHome == "" {
		t.Skip("the soak runs from bench/soak.sh, which builds its tree (-soak.root, -soak.home)")
	}
	logf, err := os.Create(filepath.Join(*flagHome, "soak.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	d := &driver{t: t, root: *flagRoot, home: *flagHome, logw: logf, rng: rand.New(rand.NewSource(*flagSeed)),
		userDirty: map[string]bool{}, mcpDirty: map[string]bool{}, counts: map[string]int{}, rssAt: map[int]int64{},
		debug: *flagDebug, leave: map[string]bool{}}
	for _, p := range strings.Split(*flagLeave, ",") {
		if p != "" {
			d.leave[p] = true
		}
	}
	d.sb = &testkit.Sandbox{T: t, Home: filepath.Join(d.home, "state"), Root: d.root}
	os.MkdirAll(d.sb.Home, 0o700)
	start := time.Now()
	if err := d.setup(*flagPool, *flagBudget, *flagQuiet); err != nil {
		t.Fatal(err)
	}
	d.win = newWindow(1)
	winStart := time.Now()
	for d.turns < *flagTurns {
		d.step++
		d.stepOnce()
		if d.step%10 == 0 {
			if kb, err := rssKB(d.srv.Proc.Pid); err == nil {
				d.win.rssSeen = append(d.win.rssSeen, kb)
			}
		}
		if d.turns >= d.win.from+*flagEvery-1 || d.turns >= *flagTurns {
			d.closeWindow(time.Since(winStart))
			winStart = time.Now()
			d.win = newWindow(d.turns + 1)
		}
		// A step may make two turns: turn 1000 (or the last) is the first
		// step that reaches it.
		for _, at := range []int{1000, *flagTurns} {
			if d.turns >= at && d.rssAt[at] == 0 {
				d.rssAt[at], _ = rssKB(d.srv.Proc.Pid)
			}
		}
	}
	d.finish(time.Since(start), *flagTurns)
}

func (d *driver) logf(format string, a ...any) {
	fmt.Fprintf(d.logw, "%s step %d turn %d: %s\n", time.Now().Format("15:04:05.000"), d.step, d.turns, fmt.Sprintf(format, a...))
}

// fail records a broken promise (and keeps going: one run reports them all).
func (d *driver) fail(format string, a ...any) {
	msg := fmt.Sprintf("step %d (turn %d): %s", d.step, d.turns, fmt.Sprintf(format, a...))
	d.fails = append(d.fails, msg)
	d.win.failures++
	d.logf("FAIL %s", msg)
	fmt.Fprintln(os.Stderr, "soak: FAIL", msg)
}

// setup starts the server with the lowered budget, opens the agents'
// sessions and reads the tree.
func (d *driver) setup(poolN int, budget int64, quiet int) error {
	var err error
	if d.m, err = newModel(d.root); err != nil {
		return err
	}
	if d.pool, err = d.pickPool(poolN); err != nil {
		return err
	}
	if err := d.m.adopt(d.pool); err != nil {
		return err
	}
	// The first capture, from the command line, tells the store's size.
	if _, err := d.cli(nil, "checkpoint", "soak-base"); err != nil {
		return err
	}
	d.record("@soak-base", true)
	base := duBytes(filepath.Join(d.home, "state"))
	d.budget = budget
	if d.budget == 0 {
		d.budget = base + base/4
	}
	fmt.Fprintf(os.Stderr, "soak: %d files, pool %d; store after the first capture %s MB, budget %s MB\n",
		len(d.m.initial), len(d.pool), mb(base), mb(d.budget))

	srv, c := testkit.StartServer(d.sb)
	d.srv = srv
	d.ed = &editorSide{e: testkit.NewEditor(d.t, c, testkit.VSCodeLike), root: d.root, open: map[string]bool{}, byUser: map[string]bool{}}
	d.ed.logf = d.logf
	d.ed.e.Initialize([]string{d.root}, map[string]any{"autoTurnQuietMs": quiet, "maxStoreBytes": d.budget})
	for t0 := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		var st commands.StatusResult
		if err := d.cmd(commands.NameStatus, map[string]any{}, &st); err != nil {
			return err
		}
		if st.WatchMode != "starting" {
			break
		}
		if time.Since(t0) > 10*time.Minute {
			return fmt.Errorf("the server did not finish its first capture")
		}
	}
	// The command line forwards to the server once its socket is up.
	for t0 := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		var st commands.StatusResult
		r, err := d.cli(&st, "status")
		if err == nil && st.WatchMode != "none" && st.WatchMode != "" {
			break
		}
		if time.Since(t0) > time.Minute {
			return fmt.Errorf("the command line never reached the server: %v %s", err, r.stdout)
		}
	}
	d.cc = &claude{session: newSession()}
	d.cc.transcript = transcriptPath(d.home, d.root, d.cc.session)
	if _, err := d.hook(d.cc, "SessionStart", map[string]any{"source": "startup"}); err != nil {
		return err
	}
	if d.mcp, err = d.startMCP(context.Background(), d.cc.session); err != nil {
		return err
	}
	for _, a := range []string{"codex", "gemini"} {
		if !d.leave[a] && d.supportsHook(a) {
			d.extra = append(d.extra, a)
		}
	}
	fmt.Fprintf(os.Stderr, "soak: server pid %d; agents: editor chat, claude-code hooks, shell turns, automatic turns, mcp%s\n",
		d.srv.Proc.Pid, strings.Join(append([]string{""}, d.extra...), ", "))
	return nil
}

func newSession() string {
	b := make([]byte, 16)
	rand.Read(b)
	return fmt.Sprintf("%x-%x-4%x-8%x-%x", b[0:4], b[4:6], b[6:8][1:], b[8:10][1:], b[10:16])
}

// pickPool takes n tracked text files of 200 B – 64 KiB, in an order fixed
// by the seed.
func (d *driver) pickPool(n int) ([]string, error) {
	out, err := exec.Command("git", "-C", d.root, "ls-files", "-s").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var cands []string
	for _, line := range strings.Split(string(out), "\n") {
		mode, path, ok := strings.Cut(line, "\t")
		if !ok || !strings.HasPrefix(mode, "100644") || !strings.HasSuffix(path, ".go") {
			continue
		}
		st, ok := d.m.initial[path]
		if ok && st.size >= 200 && st.size <= 64<<10 {
			cands = append(cands, path)
		}
	}
	sort.Strings(cands)
	d.rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	if len(cands) < n {
		return nil, fmt.Errorf("the tree has only %d files to change (want %d)", len(cands), n)
	}
	return cands[:n], nil
}

// cmd runs one LSP command.
func (d *driver) cmd(name string, arg any, out any) error {
	return d.ed.e.Cmd(name, arg, out)
}

// pinned reports whether retention must keep t's snapshot now: a labeled
// checkpoint always, the agent's checkpoint while it is the active one.
func (d *driver) pinned(t *target) bool {
	return t.pinned || (t == d.mcpCP && d.mcp != nil)
}

// record keeps the current state as a target named spec.
func (d *driver) record(spec string, pinned bool) *target {
	t := &target{spec: spec, st: d.m.cur.clone(), epoch: d.epoch, pinned: pinned, step: d.step}
	d.targets = append(d.targets, t)
	// Keep the recent ones and every pinned one.
	if len(d.targets) > 400 {
		var kept []*target
		for i, x := range d.targets {
			if x.pinned || i >= len(d.targets)-300 {
				kept = append(kept, x)
			}
		}
		d.targets = kept
	}
	return t
}

// recorded marks the state as recorded by rewind-lsp: edits saved before
// are no longer conflicts.
func (d *driver) recorded() { d.userDirty = map[string]bool{} }

func (d *driver) closeWindow(took time.Duration) {
	w := d.win
	w.to = d.turns
	w.took = took
	w.rss, _ = rssKB(d.srv.Proc.Pid)
	var st commands.StatusResult
	if err := d.cmd(commands.NameStatus, map[string]any{}, &st); err == nil {
		w.store = st.StoreBytes
	}
	d.wins = append(d.wins, w)
	fmt.Fprintf(os.Stderr, "soak: turns %d–%d in %s: rss %s MB, store %s MB, %d failures\n",
		w.from, w.to, took.Round(time.Second), mb(w.rss*1024), mb(w.store), w.failures)
}

// stepOnce is one step: perhaps the person edits, then one or two turns,
// then perhaps an operation.
func (d *driver) stepOnce() {
	d.turn()
	d.ed.reload()
	if d.rng.Float64() < 0.15 && !d.leave["person"] {
		d.personEdits() // between turns: a conflict for what comes next
	}
	switch r := d.rng.Float64(); {
	case r < 0.07:
		d.rewind(false)
	case r < 0.09:
		d.rewind(true) // from the command line
	case r < 0.12:
		if !d.leave["revert"] {
			d.revert()
		}
	case r < 0.16 && len(d.ops) > 0 && !d.undoStuck:
		d.undo(d.rng.Intn(4) == 0)
	case r < 0.165:
		if !d.leave["fork"] {
			d.forkClaude()
		}
	}
}

// turn runs one kind of turn (or two interleaved sessions).
func (d *driver) turn() {
	kinds := []string{"lsp", "lsp", "lsp", "claude", "claude", "claude", "shell", "shell", "auto", "both"}
	kinds = append(kinds, d.extra...)
	switch k := kinds[d.rng.Intn(len(kinds))]; k {
	case "lsp":
		d.lspTurn()
	case "claude":
		d.claudeTurn(nil)
	case "shell":
		d.shellTurn(nil)
	case "auto":
		if d.leave["auto"] {
			d.lspTurn()
		} else {
			d.autoTurn()
		}
	case "both":
		// Two sessions at once: Claude Code's turn holds a shell turn.
		d.claudeTurn(func() { d.shellTurn(nil) })
	default:
		d.agentTurn(k)
	}
}

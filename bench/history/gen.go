package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/store"
)

// genVersion changes whenever the generator writes a different history
// for the same flags: history.sh rebuilds a cached root of another version.
const genVersion = 1

// finishTurns is how many real turns end each generated root.
const finishTurns = 2

func readStates(dir string) (*States, error) {
	var st States
	b, err := os.ReadFile(filepath.Join(dir, "states.json"))
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err == nil && len(st.States) < 2 {
		err = fmt.Errorf("only %d states", len(st.States))
	}
	if err != nil {
		return nil, fmt.Errorf("reading the states: %w", err)
	}
	return &st, nil
}

// keyMain prints the key of a generated root (what gen writes to params).
func keyMain(args []string) error {
	fs := flag.NewFlagSet("key", flag.ExitOnError)
	statesDir := fs.String("states", "", "the folder `history states` made")
	turns := fs.Int("turns", 1000, "turns")
	seed := fs.Uint64("seed", 1, "seed")
	one := fs.Bool("one-session", false, "every agent turn in one session")
	fs.Parse(args)
	st, err := readStates(*statesDir)
	if err != nil {
		return err
	}
	fmt.Println(cacheKey(*seed, *turns, *one, st))
	return nil
}

func genMain(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	bin := fs.String("bin", "", "the rewind-lsp binary (the real turns that end the history)")
	statesDir := fs.String("states", "", "the folder `history states` made")
	dir := fs.String("dir", "", "the folder of this root (run/, pristine/)")
	turns := fs.Int("turns", 1000, "turns in the history, the real ones at its end included")
	seed := fs.Uint64("seed", 1, "seed of the history")
	one := fs.Bool("one-session", false, "every agent turn in one Claude Code session (a long session: what reads a whole session grows with it)")
	fs.Parse(args)
	if *bin == "" || *statesDir == "" || *dir == "" {
		return fmt.Errorf("gen: -bin, -states and -dir are required")
	}
	if *turns < finishTurns+1 {
		return fmt.Errorf("gen: -turns must be at least %d", finishTurns+1)
	}
	sd, err := filepath.Abs(*statesDir)
	if err != nil {
		return err
	}
	d, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	st, err := readStates(sd)
	if err != nil {
		return err
	}
	t0 := time.Now()
	run, pristine := filepath.Join(d, "run"), filepath.Join(d, "pristine")
	for _, f := range []string{run, pristine} {
		if err := removeTree(f); err != nil {
			return err
		}
	}
	root, storeDir := filepath.Join(run, "root"), filepath.Join(run, "store")
	if err := copyTree(filepath.Join(sd, "root"), root); err != nil {
		return err
	}
	if err := copyTree(filepath.Join(sd, "store", "objects"), filepath.Join(storeDir, "objects")); err != nil {
		return err
	}
	home, claudeDir := filepath.Join(run, "home"), filepath.Join(run, "claude")
	for _, f := range []string{home, claudeDir} {
		if err := os.MkdirAll(f, 0o755); err != nil {
			return err
		}
	}

	// The synthetic history, with the product's journal writer: one lock
	// for the whole of it, a durable append per batch.
	j := journal.Open(storeDir)
	l, err := j.Lock()
	if err != nil {
		return err
	}
	g := newGen(st, *seed, claudeDir, *turns)
	g.oneSession = *one
	g.flush = func(ents []*journal.Entry) error { return l.Append(ents...) }
	err = g.history(*turns - finishTurns)
	l.Unlock()
	if err != nil {
		return err
	}
	tSynth := time.Since(t0)

	// Real turns end it: the last recorded state is the disk's.
	p := proc{bin: *bin, home: home}
	final := st.States[len(st.States)-1]
	var changeable []string
	for f := range final.Files {
		if !strings.HasPrefix(f, "scratch/") {
			changeable = append(changeable, f)
		}
	}
	sort.Strings(changeable)
	for k := 0; k < finishTurns; k++ {
		r, err := p.cli(root, storeDir, "--json", "turn", "start", "--prompt", fmt.Sprintf("real turn %d at the end of the history", k+1))
		if err != nil {
			return err
		}
		if k == 0 {
			var res struct {
				Snapshot string `json:"snapshot"`
			}
			if err := json.Unmarshal(r.stdout, &res); err != nil {
				return fmt.Errorf("gen: turn start answered %s: %w", r.stdout, err)
			}
			if res.Snapshot != final.Snap {
				return fmt.Errorf("gen: the disk is at snapshot %s, the history ends at %s", res.Snapshot, final.Snap)
			}
		}
		f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(changeable[k])), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		fmt.Fprintf(f, "// changed by real turn %d at the end of the history\n", k+1)
		f.Close()
		if r, err = p.cli(root, storeDir, "--json", "turn", "end"); err != nil {
			return err
		}
		var res struct {
			Turn    int               `json:"turn"`
			Changed []json.RawMessage `json:"changed"`
		}
		if err := json.Unmarshal(r.stdout, &res); err != nil {
			return fmt.Errorf("gen: turn end answered %s: %w", r.stdout, err)
		}
		if len(res.Changed) != 1 {
			return fmt.Errorf("gen: real turn %d recorded %d changed files, want 1", res.Turn, len(res.Changed))
		}
		if k == finishTurns-1 && res.Turn != *turns {
			return fmt.Errorf("gen: the last turn is turn %d, want %d", res.Turn, *turns)
		}
	}
	if err := copyTree(run, pristine); err != nil {
		return err
	}
	fi, err := os.Stat(j.Path())
	if err != nil {
		return err
	}
	fmt.Printf("turns %d entries %d journal_bytes %d synthetic_s %.1f total_s %.1f\n", *turns, g.n, fi.Size(),
		tSynth.Seconds(), time.Since(t0).Seconds())
	return os.WriteFile(filepath.Join(d, "params"), []byte(cacheKey(*seed, *turns, *one, st)+"\n"), 0o644)
}

// cacheKey names what a generated root was made from.
func cacheKey(seed uint64, turns int, oneSession bool, st *States) string {
	k := fmt.Sprintf("generator %d seed %d turns %d files %d states %d (%.12s…%.12s)", genVersion, seed, turns, st.Files,
		len(st.States), st.States[0].Snap, st.States[len(st.States)-1].Snap)
	if oneSession {
		k += " one session"
	}
	return k
}

// gen writes a synthetic history whose every snapshot is one of the real
// states. The files walk through the states one turn at a time, forth and
// back (a turn from state i leads to i+1 or i-1), and jump where rewinds,
// reverts and undos lead: always to a state a turn recorded.
type gen struct {
	rng   *rand.Rand // the history's shape
	ids   *rand.Rand // entry ids and keys
	st    []State
	snaps []journal.Snap

	claudeDir string
	now       time.Time
	step      time.Duration
	buf       []*journal.Entry
	flush     func([]*journal.Entry) error
	n         int // entries made

	leaf     journal.EntryID
	cur, dir int // the state the files are in, and the walk's direction
	turns    []turnRec
	ops      []opRec // rewinds and reverts in effect, latest last
	opsSeq   int     // operations so far (a session is told of the later ones)
	sess     *session
	// oneSession keeps every agent turn in one session (else a new one
	// starts about every 20 prompts).
	oneSession bool
	shell      string // the session of command-line turns, when they name one
	agentN     int
	labelN     int
}

type turnRec struct {
	num      int
	start    journal.EntryID
	from, to int
	changed  []journal.Change
}

type opRec struct {
	e        *journal.Entry
	from, to int
}

type session struct {
	id, transcript string
	bytes          int64
	last           string // the uuid of the transcript's last entry
	prompts        int
	told           int // opsSeq at its last prompt
}

func newGen(st *States, seed uint64, claudeDir string, turns int) *gen {
	g := &gen{
		rng:       rand.New(rand.NewPCG(seed, 0x4157)),
		ids:       rand.New(rand.NewPCG(seed, 0x1d5)),
		st:        st.States,
		claudeDir: claudeDir,
		step:      time.Second,
		dir:       1,
	}
	for _, s := range st.States {
		id, err := store.ParseID(s.Snap)
		if err != nil {
			panic(err)
		}
		g.snaps = append(g.snaps, journal.SnapOf(id))
	}
	// The history ends a minute ago, an entry a second (about 8 a turn
	// at most): 100,000 turns span about nine days.
	g.now = time.Now().UTC().Add(-time.Minute - time.Duration(turns*8)*g.step).Truncate(time.Millisecond)
	return g
}

// uuid7 is a UUIDv7 of time t (time-ordered, as the journal's ids are),
// its random bits drawn from the seed.
func (g *gen) uuid7(t time.Time) string {
	var b [16]byte
	ms := uint64(t.UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	r1, r2 := g.ids.Uint64(), g.ids.Uint64()
	for i := 6; i < 8; i++ {
		b[i] = byte(r1 >> (8 * i))
	}
	for i := 8; i < 16; i++ {
		b[i] = byte(r2 >> (8 * (i - 8)))
	}
	b[6] = 0x70 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// uuid4 is a random UUID from the seed (idempotency keys, sessions).
func (g *gen) uuid4() string {
	var b [16]byte
	r1, r2 := g.ids.Uint64(), g.ids.Uint64()
	for i := 0; i < 8; i++ {
		b[i], b[8+i] = byte(r1>>(8*i)), byte(r2>>(8*i))
	}
	b[6] = 0x40 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// inTree reports whether an entry of kind k is part of the conversation
// tree (has the leaf as its parent and becomes the leaf), as the journal
// has it.
func inTree(k journal.Kind) bool {
	switch k {
	case journal.KindDone, journal.KindGC, journal.KindTool, journal.KindNotice:
		return false
	}
	return true
}

func (g *gen) add(e *journal.Entry) (*journal.Entry, error) {
	e.Time = g.now
	e.ID = journal.EntryID(g.uuid7(g.now))
	g.now = g.now.Add(g.step)
	if inTree(e.Kind) {
		if e.Parent == "" {
			e.Parent = g.leaf
		}
		g.leaf = e.ID
	}
	g.buf = append(g.buf, e)
	g.n++
	if len(g.buf) >= 4096 {
		return e, g.flushAll()
	}
	return e, nil
}

func (g *gen) flushAll() error {
	if len(g.buf) == 0 {
		return nil
	}
	err := g.flush(g.buf)
	g.buf = g.buf[:0]
	return err
}

// next is the state a turn from the current one leads to.
func (g *gen) next() int {
	n := g.cur + g.dir
	if n < 0 || n >= len(g.st) {
		g.dir = -g.dir
		n = g.cur + g.dir
	}
	return n
}

func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }

var prompts = []string{
	"add a cache in front of the parser", "fix the failing test in the writer", "rename the handler and update callers",
	"explain why the request times out, then fix it", "write docs for the config options", "refactor the index into two files",
	"make the client retry on 503", "remove the dead code in the reader", "bump the buffer size and measure",
	"add logging around the journal", "port the script to the new API", "split the server into packages",
}

func (g *gen) prompt() string {
	return prompts[g.rng.IntN(len(prompts))]
}

// history writes n turns of mixed activity, the last of which brings the
// files to the last real state (the one on disk).
func (g *gen) history(n int) error {
	for i := 1; i <= n; i++ {
		last := i == n
		// The last turns walk to the state on disk, undisturbed.
		home := i > n-len(g.st)
		if home {
			g.dir = 1
		}
		to := -1
		if last {
			to = len(g.st) - 1
		}
		var err error
		switch r := g.rng.Float64(); {
		case last:
			err = g.cliTurn(to)
		case r < 0.35:
			err = g.hookTurn()
		case r < 0.60:
			err = g.cliTurn(to)
		case r < 0.85:
			err = g.editorTurn()
		default:
			err = g.autoTurn()
		}
		if err == nil && !home {
			err = g.between()
		}
		if err != nil {
			return err
		}
	}
	return g.flushAll()
}

// span picks the states of a turn: from the current one to the next, or
// (empty, sometimes) nowhere.
func (g *gen) span(mayBeEmpty bool) (int, int, []journal.Change) {
	from, to := g.cur, g.cur
	if !mayBeEmpty || !g.chance(0.04) {
		to = g.next()
	}
	return from, to, diff(g.st[from], g.st[to])
}

func (g *gen) ended(start *journal.Entry, from, to int, ch []journal.Change) {
	g.turns = append(g.turns, turnRec{num: start.Turn, start: start.ID, from: from, to: to, changed: ch})
	g.cur = to
}

// cliTurn is `rewind-lsp turn start|end`, sometimes with --session; to,
// when not -1, is the state it ends in.
func (g *gen) cliTurn(to int) error {
	from, next, ch := g.span(true)
	if to >= 0 {
		next, ch = to, diff(g.st[from], g.st[to])
	}
	if g.chance(0.02) {
		g.shell = ""
		if g.chance(0.5) {
			g.shell = "shell-" + g.uuid4()[:8]
		}
	}
	num := len(g.turns) + 1
	start, err := g.add(&journal.Entry{Kind: journal.KindTurnStart, Actor: "cli", Snapshot: g.snaps[from], Turn: num,
		Prompt: g.prompt(), Session: g.shell, Source: journal.SourceCLI, Key: g.uuid4()})
	if err != nil {
		return err
	}
	if _, err := g.add(&journal.Entry{Kind: journal.KindTurnEnd, Actor: "cli", Snapshot: g.snaps[next], Turn: num,
		Session: g.shell, Start: start.ID, Changed: ch, Key: g.uuid4()}); err != nil {
		return err
	}
	g.ended(start, from, next, ch)
	return nil
}

// editorTurn is rewind.turnStart/turnEnd from an editor's chat.
func (g *gen) editorTurn() error {
	from, to, ch := g.span(true)
	num := len(g.turns) + 1
	start, err := g.add(&journal.Entry{Kind: journal.KindTurnStart, Actor: "editor", Snapshot: g.snaps[from], Turn: num,
		Prompt: g.prompt(), Source: journal.SourceEditor, Key: g.uuid4()})
	if err != nil {
		return err
	}
	if _, err := g.add(&journal.Entry{Kind: journal.KindTurnEnd, Actor: "editor", Snapshot: g.snaps[to], Turn: num,
		Start: start.ID, Changed: ch, Key: g.uuid4()}); err != nil {
		return err
	}
	g.ended(start, from, to, ch)
	return nil
}

// autoTurn is a running server's automatic turn: changes on disk that no
// turn opened.
func (g *gen) autoTurn() error {
	from, to, ch := g.span(false)
	num := len(g.turns) + 1
	prompt := "changes on disk: " + ch[0].Path
	if len(ch) > 1 {
		prompt += " and others"
	}
	start, err := g.add(&journal.Entry{Kind: journal.KindTurnStart, Actor: "server", Snapshot: g.snaps[from], Turn: num,
		Prompt: prompt, Source: journal.SourceAuto})
	if err != nil {
		return err
	}
	if _, err := g.add(&journal.Entry{Kind: journal.KindTurnEnd, Actor: "server", Snapshot: g.snaps[to], Turn: num,
		Start: start.ID, Changed: ch}); err != nil {
		return err
	}
	g.ended(start, from, to, ch)
	return nil
}

// hookTurn is a Claude Code prompt as its hooks record it: the session
// (when new), the turn's start with the transcript's position, a notice
// when a rewind happened since the session's last prompt, sometimes an
// MCP checkpoint of the agent, the tool calls that wrote (Write/Edit
// after the call; Bash before and after it), the turn's end.
func (g *gen) hookTurn() error {
	if g.sess == nil || !g.oneSession && g.chance(0.05) {
		id := g.uuid4()
		g.sess = &session{id: id, transcript: filepath.Join(g.claudeDir, id+".jsonl"), told: g.opsSeq}
		if _, err := g.add(&journal.Entry{Kind: journal.KindSession, Actor: "hook", Session: id, Source: "startup",
			Agent: "claude-code", Transcript: g.sess.transcript, Key: g.uuid4()}); err != nil {
			return err
		}
	}
	s := g.sess
	from, to, ch := g.span(true)
	num := len(g.turns) + 1
	start, err := g.add(&journal.Entry{Kind: journal.KindTurnStart, Actor: "hook", Snapshot: g.snaps[from], Turn: num,
		Prompt: g.prompt(), Session: s.id, Source: journal.SourceHook, Agent: "claude-code", Transcript: s.transcript,
		ForkPoint: journal.ForkPoint{ForkBytes: s.bytes, ForkUUID: s.last}, PromptID: g.uuid4(), Key: g.uuid4()})
	if err != nil {
		return err
	}
	if s.told < g.opsSeq {
		if _, err := g.add(&journal.Entry{Kind: journal.KindNotice, Session: s.id, Through: start.ID, Key: start.Key}); err != nil {
			return err
		}
	}
	s.told = g.opsSeq
	s.prompts++
	s.bytes += int64(600 + g.rng.IntN(2000))
	s.last = g.uuid4()
	if g.chance(0.08) {
		g.agentN++
		if _, err := g.add(&journal.Entry{Kind: journal.KindCheckpoint, Actor: "mcp", Snapshot: g.snaps[from],
			Label: fmt.Sprintf("agent-%d", g.agentN), Goal: "try the change before keeping it", Key: g.uuid4(),
			Count: len(g.st[from].Files)}); err != nil {
			return err
		}
	}
	tool := func(name, phase string, snap journal.Snap, files []string, use string) error {
		_, err := g.add(&journal.Entry{Kind: journal.KindTool, Actor: "hook", Snapshot: snap, Session: s.id, Start: start.ID,
			ToolCall: journal.ToolCall{Tool: name, ToolUse: use, Phase: journal.Phase(phase)}, Files: files})
		return err
	}
	var rest []string
	written := 0
	for _, c := range ch {
		if c.Change != fileop.Delete && written < 2 {
			name := "Write"
			if c.Change == fileop.Modify {
				name = "Edit"
			}
			if err := tool(name, "post", journal.Snap{}, []string{c.Path}, "toolu_"+g.uuid4()[:13]); err != nil {
				return err
			}
			written++
			continue
		}
		rest = append(rest, c.Path)
	}
	if len(rest) > 0 || g.chance(0.3) { // a shell command: tests, or the rest of the changes
		use := "toolu_" + g.uuid4()[:13]
		if err := tool("Bash", "pre", g.snaps[from], nil, use); err != nil {
			return err
		}
		snap := g.snaps[from]
		if len(rest) > 0 {
			snap = g.snaps[to]
		}
		if err := tool("Bash", "post", snap, rest, use); err != nil {
			return err
		}
	}
	s.bytes += int64(2000 + g.rng.IntN(20000))
	s.last = g.uuid4()
	_, err = g.add(&journal.Entry{Kind: journal.KindTurnEnd, Actor: "hook", Snapshot: g.snaps[to], Turn: num, Session: s.id,
		Start: start.ID, Changed: ch, Agent: "claude-code", ForkPoint: journal.ForkPoint{ForkBytes: s.bytes, ForkUUID: s.last},
		Wrote: paths(ch), Attributed: len(ch) > 0, Key: g.uuid4()})
	g.ended(start, from, to, ch)
	return err
}

// between is what may happen between turns: a labeled checkpoint, a
// rewind (sometimes with a report), a revert of the latest turn, each
// sometimes undone at once.
func (g *gen) between() error {
	if g.chance(0.02) {
		g.labelN++
		if _, err := g.add(&journal.Entry{Kind: journal.KindCheckpoint, Actor: "cli", Snapshot: g.snaps[g.cur],
			Label: fmt.Sprintf("before-refactor-%d", g.labelN), Goal: "a known good state", Key: g.uuid4(),
			Count: len(g.st[g.cur].Files)}); err != nil {
			return err
		}
	}
	actor := "cli"
	if g.chance(0.5) {
		actor = "editor"
	}
	var op *opRec
	var err error
	switch r := g.rng.Float64(); {
	case r < 0.06:
		op, err = g.rewind(actor)
	case r < 0.085:
		op, err = g.revert(actor)
	}
	if err != nil || op == nil {
		return err
	}
	if g.chance(0.4) {
		return g.undo(actor)
	}
	return nil
}

// operation appends an operation as its pending entry, then its done
// entry, as rewind-lsp records one before and after it changes the files.
func (g *gen) operation(e *journal.Entry, from, to int) (*opRec, error) {
	e.Snapshot, e.UndoSnapshot = g.snaps[to], g.snaps[from]
	e.Files = paths(diff(g.st[from], g.st[to]))
	e.Pending, e.Key = true, g.uuid4()
	if _, err := g.add(e); err != nil {
		return nil, err
	}
	if _, err := g.add(&journal.Entry{Kind: journal.KindDone, Actor: e.Actor, Snapshot: g.snaps[to], Of: e.ID}); err != nil {
		return nil, err
	}
	g.opsSeq++
	g.cur = to
	return &opRec{e: e, from: from, to: to}, nil
}

// rewind goes back to the start of a recent turn (now and then one long
// ago); nothing when that is where the files are.
func (g *gen) rewind(actor string) (*opRec, error) {
	var t turnRec
	if g.chance(0.8) {
		t = g.turns[len(g.turns)-1-g.rng.IntN(min(30, len(g.turns)))]
	} else {
		t = g.turns[g.rng.IntN(len(g.turns))]
	}
	if t.from == g.cur {
		return nil, nil
	}
	target := fmt.Sprint(t.num)
	e := &journal.Entry{Kind: journal.KindRewind, Actor: actor, Turn: t.num, Target: target, TargetEntry: t.start, Mode: "code"}
	report := g.chance(0.1)
	if report {
		e.Report = "the cache made the tests flaky; going back"
	}
	op, err := g.operation(e, g.cur, t.from)
	if err != nil {
		return nil, err
	}
	if report {
		if _, err := g.add(&journal.Entry{Parent: e.ID, Kind: journal.KindSummary, Actor: actor, Report: e.Report,
			Target: target, TargetEntry: t.start}); err != nil {
			return nil, err
		}
	}
	g.ops = append(g.ops, *op)
	return op, nil
}

// revert takes back the latest turn when nothing came after it.
func (g *gen) revert(actor string) (*opRec, error) {
	t := g.turns[len(g.turns)-1]
	if len(t.changed) == 0 || t.to != g.cur {
		return nil, nil
	}
	e := &journal.Entry{Kind: journal.KindRevert, Actor: actor, Turn: t.num, Target: fmt.Sprint(t.num), TargetEntry: t.start, Mode: "revert"}
	op, err := g.operation(e, g.cur, t.from)
	if err != nil {
		return nil, err
	}
	g.ops = append(g.ops, *op)
	return op, nil
}

// undo takes back the latest rewind or revert still in effect.
func (g *gen) undo(actor string) error {
	if len(g.ops) == 0 {
		return nil
	}
	op := g.ops[len(g.ops)-1]
	if op.to != g.cur {
		return nil
	}
	g.ops = g.ops[:len(g.ops)-1]
	e := &journal.Entry{Kind: journal.KindUndo, Actor: actor, Turn: op.e.Turn, Target: op.e.Target, Mode: op.e.Mode, Undoes: op.e.ID}
	_, err := g.operation(e, g.cur, op.from)
	return err
}

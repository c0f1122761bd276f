package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	procfs "github.com/rewind-lsp/rewind-lsp/bench/internal/proc"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// Result is what one length measured; report reads it.
type Result struct {
	Turns   int    `json:"turns"`
	Entries int    `json:"entries"` // journal lines before the measures
	Binary  string `json:"binary"`  // rewind-lsp version
	Runs    int    `json:"runs"`    // -n
	// Store sizes: the journal before and after the measures, the other
	// store files (all but objects/ and the journal) after them, objects/.
	JournalBytes    int64    `json:"journalBytes"`
	JournalBytesEnd int64    `json:"journalBytesEnd"`
	OtherBytes      int64    `json:"otherBytes"`
	OtherFiles      []string `json:"otherFiles"`
	ObjectsBytes    int64    `json:"objectsBytes"`
	// Series: measure → samples in µs (wall, and CPU where there is one);
	// memory in kB.
	Series  map[string]*Series `json:"series"`
	Uptime  [2]string          `json:"uptime"`
	Seconds float64            `json:"seconds"`
	Notes   []string           `json:"notes,omitempty"`
}

// Series are the samples of one measure.
type Series struct {
	Wall []int64 `json:"wall"`
	CPU  []int64 `json:"cpu,omitempty"`
	// Cut counts the runs a hook ended at its time limit (it gives up
	// after 4.5 s, and its event may not be recorded): their time is a
	// floor of what the call would have cost.
	Cut int `json:"cut,omitempty"`
}

type driver struct {
	p           proc
	root, store string
	transcript  string
	scratch     []string
	n           int
	budget      time.Duration
	res         *Result
	edits       int
	prompts     int
	lastUUID    string

	t0 time.Time

	srv     *exec.Cmd
	conn    *testkit.Conn
	pid     int
	arrived struct {
		sync.Mutex
		didChange []time.Time // arrival of each rewind/didChange
	}
}

func (d *driver) series(name string) *Series {
	s := d.res.Series[name]
	if s == nil {
		s = &Series{}
		d.res.Series[name] = s
	}
	return s
}

// cut counts a run of the measures names that a hook ended at its limit.
func (d *driver) cut(names ...string) {
	for _, n := range names {
		d.series(n).Cut++
	}
}

func (d *driver) rec(name string, wall, cpu time.Duration, withCPU bool) {
	s := d.series(name)
	s.Wall = append(s.Wall, wall.Microseconds())
	if withCPU {
		s.CPU = append(s.CPU, cpu.Microseconds())
	}
}

// note keeps a remark for the report, once however often it is made.
func (d *driver) note(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	for _, n := range d.res.Notes {
		if n == msg {
			return
		}
	}
	d.res.Notes = append(d.res.Notes, msg)
	fmt.Fprintln(os.Stderr, "history: note:", msg)
}

// repeat runs f once as a warm-up (i = -1: not recorded), then n times,
// or only 3 once the measure has taken longer than the budget.
func (d *driver) repeat(what string, f func(i int) error) error {
	fmt.Fprintf(os.Stderr, "history: [%d turns, %s] %s …\n", d.res.Turns, time.Since(d.t0).Round(time.Second), what)
	if err := f(-1); err != nil {
		return fmt.Errorf("%s (warm-up): %w", what, err)
	}
	t0 := time.Now()
	for i := 0; i < d.n; i++ {
		if i >= 3 && time.Since(t0) > d.budget {
			break
		}
		if err := f(i); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}

// edit appends a line to the next scratch file (the measures' own
// changes: the same cost at every length).
func (d *driver) edit() error {
	d.edits++
	p := d.scratch[d.edits%len(d.scratch)]
	f, err := os.OpenFile(filepath.Join(d.root, filepath.FromSlash(p)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "// benchmark edit %d\n", d.edits)
	if err2 := f.Close(); err == nil {
		err = err2
	}
	return err
}

func (d *driver) cli(args ...string) (ran, error) { return d.p.cli(d.root, d.store, args...) }

// hook runs `rewind-lsp hook claude-code` with one event of the
// benchmark's own Claude Code session.
func (d *driver) hook(event string, extra map[string]any) (ran, error) {
	ev := map[string]any{"hook_event_name": event, "session_id": "bench-history-session", "transcript_path": d.transcript,
		"cwd": d.root, "prompt_id": fmt.Sprintf("bench-prompt-%d", d.prompts)}
	for k, v := range extra {
		ev[k] = v
	}
	b, _ := json.Marshal(ev)
	r, err := d.p.run(d.root, string(b), "--store", d.store, "hook", "claude-code")
	msg := string(bytes.TrimSpace(r.stderr))
	switch {
	case err != nil || msg == "":
	case strings.Contains(msg, "gave up after"):
		// The hook's own time limit: the measure goes on, the run counted.
		r.cut = true
	case strings.Contains(msg, "no turn of this session is open"):
		r.noTurn = true // its prompt gave up before the turn was recorded
	default:
		err = fmt.Errorf("hook %s: %s", event, msg)
	}
	return r, err
}

// hookCuts counts the runs of a hook pair a hook cut short, and the Stops
// that found no turn open.
func (d *driver) hookCuts(prefix string, prompt, stop ran) {
	if prompt.cut {
		d.cut(prefix + " prompt")
	}
	if stop.cut {
		d.cut(prefix + " stop")
	}
	if prompt.cut || stop.cut {
		d.cut(prefix + " pair")
	}
	if stop.noTurn {
		d.note("%s: a Stop found no open turn of the session (its UserPromptSubmit gave up before recording it)", prefix)
	}
}

// transcriptLines appends to the session's transcript what Claude Code
// writes for a prompt: the user entry (its parent the last entry) and an
// answer.
func (d *driver) transcriptLines() error {
	f, err := os.OpenFile(d.transcript, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	user := fmt.Sprintf("bench-user-%d", d.prompts)
	answer := fmt.Sprintf("bench-answer-%d", d.prompts)
	var parent any
	if d.lastUUID != "" {
		parent = d.lastUUID
	}
	for _, e := range []map[string]any{
		{"type": "user", "uuid": user, "parentUuid": parent, "promptId": fmt.Sprintf("bench-prompt-%d", d.prompts),
			"sessionId": "bench-history-session", "message": map[string]any{"role": "user", "content": "benchmark prompt"}},
		{"type": "assistant", "uuid": answer, "parentUuid": user, "sessionId": "bench-history-session",
			"message": map[string]any{"role": "assistant", "content": "done"}},
	} {
		b, _ := json.Marshal(e)
		if _, err := f.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	d.lastUUID = answer
	return nil
}

// hookPair is one prompt of the session: UserPromptSubmit, the
// transcript's new lines and a changed file, Stop.
func (d *driver) hookPair() (start, stop ran, err error) {
	d.prompts++
	if start, err = d.hook("UserPromptSubmit", map[string]any{"prompt": fmt.Sprintf("benchmark prompt %d", d.prompts)}); err != nil {
		return
	}
	if err = d.transcriptLines(); err != nil {
		return
	}
	if err = d.edit(); err != nil {
		return
	}
	stop, err = d.hook("Stop", nil)
	return
}

// tenFileTurn makes a turn that changes 10 scratch files and returns its
// number: rewinding to it changes those 10 files.
func (d *driver) tenFileTurn() (int, error) {
	r, err := d.cli("--json", "turn", "start", "--prompt", "the benchmark's turn of 10 files")
	if err != nil {
		return 0, err
	}
	var st struct {
		Turn int `json:"turn"`
	}
	if err := json.Unmarshal(r.stdout, &st); err != nil {
		return 0, fmt.Errorf("turn start answered %s: %w", r.stdout, err)
	}
	for i := 0; i < 10; i++ {
		if err := d.edit(); err != nil {
			return 0, err
		}
	}
	if r, err = d.cli("--json", "turn", "end"); err != nil {
		return 0, err
	}
	var end struct {
		Changed []json.RawMessage `json:"changed"`
	}
	if err := json.Unmarshal(r.stdout, &end); err != nil {
		return 0, fmt.Errorf("turn end answered %s: %w", r.stdout, err)
	}
	if len(end.Changed) != 10 {
		return 0, fmt.Errorf("the 10-file turn recorded %d changed files", len(end.Changed))
	}
	return st.Turn, nil
}

// rewound runs a rewind or an undo and checks that it changed 10 files.
func (d *driver) rewound(args ...string) (ran, error) {
	r, err := d.cli(append([]string{"--json"}, args...)...)
	if err != nil {
		return r, err
	}
	var res struct {
		Applied bool `json:"applied"`
		Plan    struct {
			Files []json.RawMessage `json:"files"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(r.stdout, &res); err != nil {
		return r, fmt.Errorf("%s answered %.300s: %w", args[0], r.stdout, err)
	}
	if !res.Applied || len(res.Plan.Files) != 10 {
		return r, fmt.Errorf("%s: applied %v, %d files (want 10): %.500s", args[0], res.Applied, len(res.Plan.Files), r.stdout)
	}
	return r, nil
}

func (d *driver) noServer() error {
	if err := d.repeat("status, no server", func(i int) error {
		r, err := d.cli("status")
		if err == nil && i >= 0 {
			d.rec("status", r.wall, r.cpu, true)
		}
		return err
	}); err != nil {
		return err
	}
	if err := d.repeat("log --limit 20, no server", func(i int) error {
		r, err := d.cli("log", "--limit", "20")
		if err == nil && i >= 0 {
			d.rec("log", r.wall, r.cpu, true)
		}
		return err
	}); err != nil {
		return err
	}
	if err := d.repeat("turn start + turn end, no server", func(i int) error {
		a, err := d.cli("turn", "start", "--prompt", "benchmark turn")
		if err != nil {
			return err
		}
		if err := d.edit(); err != nil {
			return err
		}
		b, err := d.cli("turn", "end")
		if err == nil && i >= 0 {
			d.rec("turn start", a.wall, a.cpu, true)
			d.rec("turn end", b.wall, b.cpu, true)
			d.rec("turn pair", a.wall+b.wall, a.cpu+b.cpu, true)
		}
		return err
	}); err != nil {
		return err
	}
	if err := d.repeat("hook UserPromptSubmit + Stop, no server", func(i int) error {
		a, b, err := d.hookPair()
		if err == nil && i >= 0 {
			d.rec("hook prompt", a.wall, a.cpu, true)
			d.rec("hook stop", b.wall, b.cpu, true)
			d.rec("hook pair", a.wall+b.wall, a.cpu+b.cpu, true)
			d.hookCuts("hook", a, b)
		}
		return err
	}); err != nil {
		return err
	}
	turn, err := d.tenFileTurn()
	if err != nil {
		return err
	}
	return d.repeat("rewind of 10 files + undo, no server", func(i int) error {
		a, err := d.rewound("rewind", strconv.Itoa(turn))
		if err != nil {
			return err
		}
		b, err := d.rewound("undo")
		if err == nil && i >= 0 {
			d.rec("rewind", a.wall, a.cpu, true)
			d.rec("undo", b.wall, b.cpu, true)
		}
		return err
	})
}

// ---------------------------------------------------------------- server

// cpuNs sums the run time of the server's threads (schedstat, ns).
func cpuNs(pid int) int64 { n, _ := procfs.CPU(pid); return n }

// procStatus reads a "Vm…:  N kB" line of /proc/PID/status.
func procStatus(pid int, key string) (int64, error) { return procfs.Status(pid, key) }

// quiet waits (10 s at most) until the server used under 1 ms of CPU and
// sent no rewind/didChange in 150 ms: what the last call left running (a
// notification, the GC, a delayed save) is over, and a notification of it
// is not taken for the next call's.
func (d *driver) quiet() {
	t0 := time.Now()
	prev, seen := cpuNs(d.pid), d.didChanges()
	for time.Since(t0) < 10*time.Second {
		time.Sleep(150 * time.Millisecond)
		c, s := cpuNs(d.pid), d.didChanges()
		if c-prev < 1e6 && s == seen {
			return
		}
		prev, seen = c, s
	}
}

func (d *driver) didChanges() int {
	d.arrived.Lock()
	defer d.arrived.Unlock()
	return len(d.arrived.didChange)
}

// waitDidChange waits for the rewind/didChange after the first `from`
// and returns when it arrived.
func (d *driver) waitDidChange(from int, timeout time.Duration) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		d.arrived.Lock()
		if len(d.arrived.didChange) > from {
			t := d.arrived.didChange[from]
			d.arrived.Unlock()
			return t, nil
		}
		d.arrived.Unlock()
		time.Sleep(200 * time.Microsecond)
	}
	return time.Time{}, fmt.Errorf("no rewind/didChange within %v", timeout)
}

// settle waits for the notification of the journal change just made and
// for the server to be idle again.
func (d *driver) settle(from int) error {
	_, err := d.waitDidChange(from, 5*time.Minute)
	d.quiet()
	return err
}

func (d *driver) command(name string, arg any) (json.RawMessage, time.Duration, error) {
	t0 := time.Now()
	_, ch := d.conn.Start("workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}})
	var raw json.RawMessage
	err := d.conn.Wait(name, ch, &raw, 10*time.Minute)
	return raw, time.Since(t0), err
}

func (d *driver) startServer(logPath string) error {
	cmd := exec.Command(d.p.bin)
	cmd.Dir = d.root
	cmd.Env = d.p.env()
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd.Stderr = logf
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	d.srv, d.pid = cmd, cmd.Process.Pid
	d.conn = testkit.NewConn(out, in, func(err error) { fmt.Fprintln(os.Stderr, "history: server:", err) })
	d.conn.AnswerNull()
	d.conn.OnNotification(func(m *testkit.Message) {
		if m.Method == "rewind/didChange" {
			now := time.Now()
			d.arrived.Lock()
			d.arrived.didChange = append(d.arrived.didChange, now)
			d.arrived.Unlock()
		}
	})
	uri := "file://" + d.root
	_, ch := d.conn.Start("initialize", map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          uri,
		"workspaceFolders": []any{map[string]any{"uri": uri, "name": "root"}},
		"capabilities": map[string]any{"workspace": map[string]any{"workspaceEdit": map[string]any{
			"documentChanges": true, "resourceOperations": []string{"create", "delete"}}}},
		"initializationOptions": map[string]any{"storeDir": d.store, "rewindDidChange": true},
	})
	if err := d.conn.Wait("initialize", ch, nil, 10*time.Minute); err != nil {
		return err
	}
	tInit := time.Since(t0)
	if err := d.conn.Notify("initialized", map[string]any{}); err != nil {
		return err
	}
	for {
		raw, _, err := d.command("rewind.status", map[string]any{})
		if err != nil {
			return err
		}
		var st struct {
			WatchMode string `json:"watchMode"`
		}
		if err := json.Unmarshal(raw, &st); err != nil {
			return err
		}
		if st.WatchMode != "starting" {
			if st.WatchMode != "watch" {
				d.note("the server's watchMode is %q, not \"watch\"", st.WatchMode)
			}
			break
		}
		if time.Since(t0) > 10*time.Minute {
			return errors.New("the server was not ready after 10 minutes")
		}
		time.Sleep(50 * time.Millisecond)
	}
	d.rec("server initialize", tInit, 0, false)
	d.rec("server ready", time.Since(t0), 0, false)
	d.quiet()
	return nil
}

func (d *driver) stopServer() {
	if d.srv == nil {
		return
	}
	_, ch := d.conn.Start("shutdown", nil)
	d.conn.Wait("shutdown", ch, nil, 30*time.Second)
	d.conn.Notify("exit", nil)
	done := make(chan struct{})
	go func() { d.srv.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		d.srv.Process.Kill()
		<-done
	}
	d.srv = nil
}

func (d *driver) withServer(logPath string) error {
	fmt.Fprintf(os.Stderr, "history: [%d turns, %s] starting the language server …\n", d.res.Turns, time.Since(d.t0).Round(time.Second))
	if err := d.startServer(logPath); err != nil {
		return fmt.Errorf("starting the server: %w", err)
	}
	defer d.stopServer()

	// A turn through the server: turn start (its notification and the
	// server's quiet awaited, not timed), a changed file, turn end, timed
	// to its exit; then the wait for its rewind/didChange, and the
	// server's CPU from before the turn end until it is quiet again.
	if err := d.repeat("turn start + turn end through the server", func(i int) error {
		from := d.didChanges()
		a, err := d.cli("turn", "start", "--prompt", "benchmark turn")
		if err != nil {
			return err
		}
		if err := d.settle(from); err != nil {
			return err
		}
		if err := d.edit(); err != nil {
			return err
		}
		from = d.didChanges()
		c0 := cpuNs(d.pid)
		b, err := d.cli("turn", "end")
		t1 := time.Now()
		if err != nil {
			return err
		}
		t2, err := d.waitDidChange(from, 5*time.Minute)
		if err != nil {
			return err
		}
		d.quiet()
		c1 := cpuNs(d.pid)
		if c1-c0 < 100_000 {
			return errors.New("the server used no CPU for the turn end: was it forwarded?")
		}
		if i >= 0 {
			d.rec("srv turn start", a.wall, a.cpu, true)
			d.rec("srv turn end", b.wall, b.cpu, true)
			d.rec("srv turn pair", a.wall+b.wall, a.cpu+b.cpu, true)
			d.rec("didChange after turn end", t2.Sub(t1), 0, false)
			d.rec("srv cpu per turn end", time.Duration(c1-c0), 0, false)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := d.repeat("hook UserPromptSubmit + Stop through the server", func(i int) error {
		d.prompts++
		from := d.didChanges()
		a, err := d.hook("UserPromptSubmit", map[string]any{"prompt": fmt.Sprintf("benchmark prompt %d", d.prompts)})
		if err != nil {
			return err
		}
		if err := d.settle(from); err != nil {
			return err
		}
		if err := d.transcriptLines(); err != nil {
			return err
		}
		if err := d.edit(); err != nil {
			return err
		}
		from = d.didChanges()
		b, err := d.hook("Stop", nil)
		if err != nil {
			return err
		}
		if err := d.settle(from); err != nil {
			return err
		}
		if i >= 0 {
			d.rec("srv hook prompt", a.wall, a.cpu, true)
			d.rec("srv hook stop", b.wall, b.cpu, true)
			d.rec("srv hook pair", a.wall+b.wall, a.cpu+b.cpu, true)
			d.hookCuts("srv hook", a, b)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := d.repeat("rewind.list {limit: 50} over LSP", func(i int) error {
		c0 := cpuNs(d.pid)
		raw, wall, err := d.command("rewind.list", map[string]any{"limit": 50})
		c1 := cpuNs(d.pid)
		if err != nil {
			return err
		}
		var l struct {
			Turns []json.RawMessage `json:"turns"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			return err
		}
		if len(l.Turns) != 50 {
			return fmt.Errorf("rewind.list {limit: 50} listed %d turns", len(l.Turns))
		}
		if i >= 0 {
			d.rec("list", wall, time.Duration(c1-c0), true)
		}
		d.quiet()
		return nil
	}); err != nil {
		return err
	}
	from := d.didChanges()
	turn, err := d.tenFileTurn()
	if err != nil {
		return err
	}
	d.settle(from)
	if err := d.repeat("rewind of 10 files + undo through the server", func(i int) error {
		from := d.didChanges()
		a, err := d.rewound("rewind", strconv.Itoa(turn))
		if err != nil {
			return err
		}
		if err := d.settle(from); err != nil {
			return err
		}
		from = d.didChanges()
		b, err := d.rewound("undo")
		if err != nil {
			return err
		}
		if err := d.settle(from); err != nil {
			return err
		}
		if i >= 0 {
			d.rec("srv rewind", a.wall, a.cpu, true)
			d.rec("srv undo", b.wall, b.cpu, true)
		}
		return nil
	}); err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	d.quiet()
	for _, k := range []string{"VmRSS", "VmHWM"} {
		v, err := procStatus(d.pid, k)
		if err != nil {
			return err
		}
		d.res.Series[k] = &Series{Wall: []int64{v}}
	}
	return nil
}

// ---------------------------------------------------------------- sizes

func storeSizes(store string) (journal, other, objects int64, otherFiles []string, err error) {
	err = filepath.WalkDir(store, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(store, p)
		if e.IsDir() {
			return nil
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return nil // the server's socket
		}
		switch {
		case rel == "journal":
			journal = fi.Size()
		case strings.HasPrefix(rel, "objects"+string(filepath.Separator)):
			objects += fi.Size()
		default:
			other += fi.Size()
			otherFiles = append(otherFiles, fmt.Sprintf("%s %d", filepath.ToSlash(rel), fi.Size()))
		}
		return nil
	})
	return
}

func uptime() string {
	if out, err := exec.Command("uptime").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	b, _ := os.ReadFile("/proc/loadavg")
	return "load average: " + strings.Join(strings.Fields(string(b))[:3], ", ")
}

func measureMain(args []string) error {
	fs := flag.NewFlagSet("measure", flag.ExitOnError)
	bin := fs.String("bin", "", "the rewind-lsp binary measured")
	dir := fs.String("dir", "", "the folder `history gen` made")
	statesDir := fs.String("states", "", "the folder `history states` made")
	n := fs.Int("n", 7, "runs of each measure (after a warm-up)")
	budget := fs.Duration("budget", 20*time.Second, "a measure that took longer stops after 3 runs")
	out := fs.String("out", "", "the result file (JSON)")
	fs.Parse(args)
	if *bin == "" || *dir == "" || *statesDir == "" || *out == "" {
		return fmt.Errorf("measure: -bin, -dir, -states and -out are required")
	}
	d0, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	st, err := readStates(*statesDir)
	if err != nil {
		return err
	}
	t0 := time.Now()
	run, pristine := filepath.Join(d0, "run"), filepath.Join(d0, "pristine")
	if err := removeTree(run); err != nil {
		return err
	}
	if err := copyTree(pristine, run); err != nil {
		return err
	}
	d := &driver{
		p:          proc{bin: *bin, home: filepath.Join(run, "home")},
		root:       filepath.Join(run, "root"),
		store:      filepath.Join(run, "store"),
		transcript: filepath.Join(run, "claude", "bench-history-session.jsonl"),
		scratch:    st.Scratch,
		n:          *n,
		budget:     *budget,
		res:        &Result{Series: map[string]*Series{}, Runs: *n},
		t0:         t0,
	}
	if err := os.WriteFile(d.transcript, nil, 0o644); err != nil {
		return err
	}
	jb, err := os.ReadFile(filepath.Join(d.store, "journal"))
	if err != nil {
		return err
	}
	d.res.JournalBytes = int64(len(jb))
	d.res.Entries = bytes.Count(jb, []byte{'\n'})
	jb = nil
	r, err := d.cli("--json", "status")
	if err != nil {
		return err
	}
	var status struct {
		Turns int `json:"turns"`
	}
	if err := json.Unmarshal(r.stdout, &status); err != nil {
		return fmt.Errorf("status answered %s: %w", r.stdout, err)
	}
	d.res.Turns = status.Turns
	if v, err := d.p.run(d.root, "", "version"); err == nil {
		d.res.Binary = strings.TrimSpace(string(v.stdout))
	}
	d.res.Uptime[0] = uptime()
	err = d.noServer()
	if err == nil {
		err = d.withServer(filepath.Join(run, "server.log"))
	}
	d.res.Uptime[1] = uptime()
	if err != nil {
		return fmt.Errorf("[%d turns] %w", d.res.Turns, err)
	}
	d.res.JournalBytesEnd, d.res.OtherBytes, d.res.ObjectsBytes, d.res.OtherFiles, err = storeSizes(d.store)
	if err != nil {
		return err
	}
	d.res.Seconds = time.Since(t0).Seconds()
	b, err := json.MarshalIndent(d.res, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(*out, b, 0o644)
}

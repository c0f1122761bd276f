package soak

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// turnRec is a turn the driver made, for reverts and conversation rewinds.
type turnRec struct {
	num         int
	kind        string
	start, end  state
	epoch       int
	interleaved bool
	forkBytes   int64 // Claude Code: the transcript's length at the prompt
	session     string
	transcript  string
}

// change is one thing an agent does to a file: a write of text (its
// Write/Edit tool) or a shell command (delete, chmod, link, binary, a file
// swapped for a folder).
type change struct {
	rel   string
	shell bool
	do    func() ([]string, error) // the paths it changed
}

// nextChange draws one change of an agent's turn.
func (d *driver) nextChange(tag string) change {
	r := d.rng.Float64()
	live := d.liveCreated()
	switch {
	case r < 0.12 && len(live) < 150:
		d.nextFile++
		rel := fmt.Sprintf("soak/d%d/f%d.txt", d.rng.Intn(12), d.nextFile)
		if d.rng.Intn(8) == 0 {
			rel = fmt.Sprintf("soak/n%d/a/b/f%d.txt", d.nextFile, d.nextFile)
		}
		return d.writeChange(rel, fmt.Sprintf("created by %s\nline two\n", tag))
	case r < 0.20 && len(live) > 0:
		rel := live[d.rng.Intn(len(live))]
		return d.shellChange(rel, func() error { return os.Remove(d.abs(rel)) })
	case r < 0.205:
		rel := d.pool[d.rng.Intn(len(d.pool))]
		if _, ok := d.m.cur[rel]; ok {
			return d.shellChange(rel, func() error { return os.Remove(d.abs(rel)) })
		}
	case r < 0.22 && len(live) > 0:
		rel := live[d.rng.Intn(len(live))]
		if st, ok := d.m.cur[rel]; ok && st.kind != 'l' {
			return d.shellChange(rel, func() error {
				mode := os.FileMode(0o755)
				if st.kind == 'x' {
					mode = 0o644
				}
				return os.Chmod(d.abs(rel), mode)
			})
		}
	case r < 0.235:
		d.nextFile++
		rel := fmt.Sprintf("soak/d%d/l%d", d.rng.Intn(12), d.nextFile)
		to := fmt.Sprintf("f%d.txt", d.nextFile-1-d.rng.Intn(3))
		if d.rng.Intn(2) == 0 {
			to = fmt.Sprintf("../d%d", d.rng.Intn(12)) // a link to a folder of the root
		}
		return d.shellChange(rel, func() error {
			os.MkdirAll(filepath.Dir(d.abs(rel)), 0o755)
			return os.Symlink(to, d.abs(rel))
		})
	case r < 0.245:
		d.nextFile++
		rel := fmt.Sprintf("soak/d%d/b%d.bin", d.rng.Intn(12), d.nextFile)
		data := []byte(fmt.Sprintf("\x00\x01binary %d\x00\xff\n", d.nextFile))
		return d.shellChange(rel, func() error {
			os.MkdirAll(filepath.Dir(d.abs(rel)), 0o755)
			return os.WriteFile(d.abs(rel), data, 0o644)
		})
	case r < 0.255 && len(live) > 0:
		// A file becomes a folder of the same name (or a folder a file).
		rel := live[d.rng.Intn(len(live))]
		if dir := path.Dir(rel); strings.HasPrefix(dir, "soak/x") && d.rng.Intn(2) == 0 {
			return change{rel: dir, shell: true, do: func() ([]string, error) {
				gone := d.under(dir)
				if err := os.RemoveAll(d.abs(dir)); err != nil {
					return nil, err
				}
				err := os.WriteFile(d.abs(dir), []byte("a folder became this file\n"), 0o644)
				return append(gone, dir), err
			}}
		}
		d.nextFile++
		dir := fmt.Sprintf("soak/x%d", d.nextFile)
		return change{rel: dir, shell: true, do: func() ([]string, error) {
			if err := os.MkdirAll(d.abs(dir), 0o755); err != nil {
				return nil, err
			}
			a, b := dir+"/new.txt", dir+"/x"
			os.WriteFile(d.abs(a), []byte("in a new folder\n"), 0o644)
			return []string{a, b}, os.WriteFile(d.abs(b), []byte("x\n"), 0o644)
		}}
	}
	// Most changes edit a text file: a line added at the end or inserted.
	files := d.textFiles()
	rel := files[d.rng.Intn(len(files))]
	data, err := os.ReadFile(d.abs(rel))
	if err != nil {
		return d.writeChange(rel, "recreated by "+tag+"\n")
	}
	line := fmt.Sprintf("// soak: %s\n", tag)
	text := string(data)
	if d.rng.Intn(3) == 0 {
		lines := strings.SplitAfter(text, "\n")
		i := d.rng.Intn(len(lines))
		text = strings.Join(lines[:i], "") + line + strings.Join(lines[i:], "")
	} else {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += line
	}
	return d.writeChange(rel, text)
}

func (d *driver) abs(rel string) string { return filepath.Join(d.root, filepath.FromSlash(rel)) }

func (d *driver) writeChange(rel, text string) change {
	return change{rel: rel, do: func() ([]string, error) {
		mode := os.FileMode(0o644)
		if fi, err := os.Lstat(d.abs(rel)); err == nil && fi.Mode().IsRegular() {
			mode = fi.Mode().Perm()
		} else if err == nil {
			os.RemoveAll(d.abs(rel)) // a link or folder there is replaced
		}
		if err := os.MkdirAll(filepath.Dir(d.abs(rel)), 0o755); err != nil {
			return nil, err
		}
		return []string{rel}, os.WriteFile(d.abs(rel), []byte(text), mode)
	}}
}

func (d *driver) shellChange(rel string, fn func() error) change {
	return change{rel: rel, shell: true, do: func() ([]string, error) { return []string{rel}, fn() }}
}

// under lists the driver's files below folder dir.
func (d *driver) under(dir string) []string {
	var out []string
	for p := range d.m.cur {
		if strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
		}
	}
	return out
}

// liveCreated lists the files the agents created that exist.
func (d *driver) liveCreated() []string {
	var out []string
	for p := range d.m.cur {
		if strings.HasPrefix(p, "soak/") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// textFiles lists the existing regular files an agent may edit.
func (d *driver) textFiles() []string {
	var out []string
	for p, st := range d.m.cur {
		if st.kind != 'l' && !strings.HasSuffix(p, ".bin") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// apply makes one change and notes it in the model.
func (d *driver) apply(c change) {
	paths, err := c.do()
	for _, p := range paths {
		d.m.note(p)
	}
	d.logf("change %s (shell %v): %v", c.rel, c.shell, paths)
	d.ed.reload() // the editor follows the disk at once, as VS Code does
	if err != nil {
		d.logf("change %s: %v", c.rel, err)
	}
}

// changedSet is the paths a turn reported changed.
func changedSet(cs []commands.FileChange) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path)
	}
	sort.Strings(out)
	return out
}

// checkChanged compares what a turn reported changed with what changed.
func (d *driver) checkChanged(what string, start, end state, got []string) {
	if d.debug {
		if diffs := d.m.check(d.m.cur); len(diffs) > 0 {
			d.fail("the driver's model is off the disk after %s: %v", what, diffs)
			d.m.resync()
		}
	}
	want := differing(start, end)
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		d.fail("%s reported changed %v, the files that changed are %v", what, clipList(got), clipList(want))
	}
}

func clipList(s []string) string {
	if len(s) > 8 {
		return fmt.Sprintf("%v … (%d)", s[:8], len(s))
	}
	return fmt.Sprint(s)
}

func (d *driver) endTurn(kind string, took time.Duration) {
	d.logf("%s turn ended", kind)
	d.turns++
	d.win.counts[kind]++
	if took >= 0 {
		d.win.ends[kind] = append(d.win.ends[kind], took)
	}
}

// lspTurn is the editor's chat agent: turnStart and turnEnd over LSP.
func (d *driver) lspTurn() {
	tag := fmt.Sprintf("lsp turn %d", d.turns+1)
	var s commands.TurnStartResult
	if err := d.cmd(commands.NameTurnStart, map[string]any{"prompt": tag, "session": "editor-chat"}, &s); err != nil {
		d.fail("rewind.turnStart: %v", err)
		return
	}
	d.recorded()
	start := d.record(d.pick(string(s.Entry), fmt.Sprint(s.Turn), s.Turn), false)
	for k := 1 + d.rng.Intn(5); k > 0; k-- {
		d.apply(d.nextChange(tag))
	}
	d.ed.reload()
	t0 := time.Now()
	var e commands.TurnEndResult
	err := d.cmd(commands.NameTurnEnd, map[string]any{"session": "editor-chat"}, &e)
	took := time.Since(t0)
	if err != nil {
		d.fail("rewind.turnEnd: %v", err)
		return
	}
	d.recorded()
	d.checkChanged(fmt.Sprintf("turn %d (editor chat)", e.Turn), start.st, d.m.cur, changedSet(e.Changed))
	end := d.record(d.pick(string(e.Entry), fmt.Sprintf("turn:%d:end", e.Turn), e.Turn), false)
	d.turnRecs(turnRec{num: e.Turn, kind: "lsp", start: start.st, end: end.st, epoch: d.epoch})
	d.endTurn("lsp", took)
}

// pick names a recorded state by entry id, an id prefix, or its turn form.
func (d *driver) pick(id, turnForm string, turn int) string {
	switch r := d.rng.Intn(4); {
	case r == 0 && turn > 0:
		return turnForm
	case r == 1 && len(id) > 20:
		return id[:20]
	}
	return id
}

func (d *driver) turnRecs(t turnRec) {
	d.recent = append(d.recent, t)
	if len(d.recent) > 60 {
		d.recent = d.recent[len(d.recent)-40:]
	}
}

// shellTurn is a session that marks its turns from the command line
// (`rewind-lsp turn start|end --session`); inner, if set, runs inside it.
func (d *driver) shellTurn(inner func()) {
	tag := fmt.Sprintf("shell turn %d", d.turns+1)
	var s commands.TurnStartResult
	if _, err := d.cli(&s, "turn", "start", "--session", "shell-1", "--prompt", tag); err != nil {
		d.fail("%v", err)
		return
	}
	d.recorded()
	start := d.record(d.pick(string(s.Entry), fmt.Sprint(s.Turn), s.Turn), false)
	for k := 1 + d.rng.Intn(4); k > 0; k-- {
		d.apply(d.nextChange(tag))
	}
	if inner != nil {
		inner()
	}
	var e commands.TurnEndResult
	r, err := d.cli(&e, "turn", "end", "--session", "shell-1")
	if err != nil {
		d.fail("%v", err)
		return
	}
	d.recorded()
	d.checkChanged(fmt.Sprintf("turn %d (shell)", e.Turn), start.st, d.m.cur, changedSet(e.Changed))
	end := d.record(d.pick(string(e.Entry), fmt.Sprintf("turn:%d:end", e.Turn), e.Turn), false)
	d.turnRecs(turnRec{num: e.Turn, kind: "shell", start: start.st, end: end.st, epoch: d.epoch, interleaved: inner != nil})
	d.endTurn("shell", r.took)
}

// latestTurn is the newest turn of the active branch.
func (d *driver) latestTurn() (*commands.TurnInfo, error) {
	var l commands.ListResult
	if err := d.cmd(commands.NameList, map[string]any{"limit": 1}, &l); err != nil {
		return nil, err
	}
	if len(l.Turns) == 0 {
		return nil, nil
	}
	return &l.Turns[len(l.Turns)-1], nil
}

// autoTurn changes files with no turn open: the server makes an automatic
// turn of them once they are quiet.
func (d *driver) autoTurn() {
	before, err := d.latestTurn()
	if err != nil {
		d.fail("rewind.list: %v", err)
		return
	}
	tag := fmt.Sprintf("automatic turn %d", d.turns+1)
	start := d.m.cur.clone()
	for k := 1 + d.rng.Intn(3); k > 0; k-- {
		d.apply(d.nextChange(tag))
	}
	if len(differing(start, d.m.cur)) == 0 {
		d.apply(d.writeChange("soak/auto.txt", tag+"\n"))
	}
	d.ed.reload()
	t0 := time.Now()
	for {
		t, err := d.latestTurn()
		if err != nil {
			d.fail("rewind.list: %v", err)
			return
		}
		if t != nil && (before == nil || t.Entry != before.Entry) && t.Ended != "" {
			if t.Source != journal.SourceAuto {
				d.fail("a turn of source %q appeared where an automatic one was due", t.Source)
			}
			d.recorded()
			d.checkChanged(fmt.Sprintf("automatic turn %d", t.Turn), start, d.m.cur, changedSet(t.Changed))
			d.targets = append(d.targets, &target{spec: fmt.Sprintf("turn:%d", t.Turn), st: start, epoch: d.epoch, step: d.step})
			end := d.record(fmt.Sprintf("turn:%d:end", t.Turn), false)
			d.turnRecs(turnRec{num: t.Turn, kind: "auto", start: start, end: end.st, epoch: d.epoch})
			d.endTurn("auto", -1)
			return
		}
		if time.Since(t0) > 20*time.Second {
			d.fail("no automatic turn 20 s after the changes")
			d.recorded()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// personEdits is the person at the editor: a file or two opened, typed in
// and saved between turns.
func (d *driver) personEdits() {
	files := d.textFiles()
	for k := 1 + d.rng.Intn(2); k > 0; k-- {
		rel := files[d.rng.Intn(len(files))]
		if err := d.ed.userEdit(rel, fmt.Sprintf("typed by the person at step %d\n", d.step)); err != nil {
			d.logf("person: %v", err)
			continue
		}
		d.m.note(rel)
		d.userDirty[rel] = true
		if d.mcpCP != nil {
			d.mcpDirty[rel] = true
		}
	}
	d.ed.closeUser(3)
}

package soak

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// candidates are the targets a rewind may name now: turn numbers only on
// the branch they were recorded on.
func (d *driver) candidates() []*target {
	var out []*target
	for _, t := range d.targets {
		if t.epoch == d.epoch || !strings.HasPrefix(t.spec, "turn:") && !isNumber(t.spec) {
			out = append(out, t)
		}
	}
	return out
}

func isNumber(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// chooseTarget prefers recent states, sometimes an old or pinned one.
func (d *driver) chooseTarget() *target {
	cs := d.candidates()
	if len(cs) == 0 {
		return nil
	}
	switch r := d.rng.Float64(); {
	case r < 0.6:
		return cs[len(cs)-1-d.rng.Intn(min(10, len(cs)))]
	case r < 0.85:
		return cs[len(cs)-1-d.rng.Intn(min(100, len(cs)))]
	}
	return cs[d.rng.Intn(len(cs))]
}

// conflicts are the files an operation from the current state to want
// would overwrite although the person saved them since the last recorded
// state.
func (d *driver) conflicts(want state, dirty map[string]bool) []string {
	var out []string
	for _, p := range differing(d.m.cur, want) {
		if dirty[p] {
			out = append(out, p)
		}
	}
	return out
}

var conflictList = regexp.MustCompile(`\(([^()]*)\)`)

// checkRefusal checks a refusal that names conflicts: every file it names
// is one the person saved.
func (d *driver) checkRefusal(what, reason string, dirty map[string]bool) {
	m := conflictList.FindStringSubmatch(reason)
	if !strings.Contains(reason, "conflict") || m == nil {
		d.fail("%s refused without naming conflicts: %s", what, reason)
		return
	}
	for _, f := range strings.Split(m[1], ", ") {
		f = strings.TrimSpace(strings.TrimSuffix(f, "…"))
		if f != "" && !strings.Contains(f, " more") && !dirty[f] {
			d.fail("%s: a false conflict on %s (%s)", what, f, reason)
		}
	}
}

// settle finishes an operation: the editor saves what it changed, clean
// buffers follow the disk, and the tree must be want.
func (d *driver) settle(what string, want state, pre state, push bool) {
	d.logf("%s: applied, %d files changed", what, len(differing(pre, want)))
	saved := d.ed.afterEdits(d.rng.Intn(3) > 0)
	if d.mcpCP != nil {
		for _, p := range saved {
			d.mcpDirty[p] = true
		}
	}
	d.ed.reload()
	d.m.cur = want.clone()
	for p := range want {
		d.m.touched[p] = true
	}
	if diffs := d.m.check(want); len(diffs) > 0 {
		d.fail("%s left the tree off its target:\n    %s", what, strings.Join(diffs, "\n    "))
		d.m.resync()
	}
	d.recorded()
	d.opSeq++
	if push {
		d.ops = append(d.ops, op{what: what, pre: pre, post: want.clone(), seq: d.opSeq})
	}
	if len(differing(pre, want)) > 0 {
		d.notice = noticeDue
	}
}

// rewind rewinds (mode code) to a recorded state, over LSP or from the
// command line, forcing it after the refusal a conflict must give.
func (d *driver) rewind(cli bool) {
	t := d.chooseTarget()
	if t == nil {
		return
	}
	pre := d.m.cur.clone()
	what := fmt.Sprintf("rewind to %s (recorded at step %d)", t.spec, t.step)
	conflicts := d.conflicts(t.st, d.userDirty)
	var res commands.RewindResult
	do := func(force bool) (bool, error) {
		if cli {
			args := []string{"rewind", t.spec}
			if force {
				args = append(args, "--force")
			}
			r := d.run("", append([]string{"--root", d.root, "--json"}, args...)...)
			if r.code != 0 && r.code != 3 {
				return false, fmt.Errorf("exit %d: %s", r.code, strings.TrimSpace(r.stderr))
			}
			if err := jsonUnmarshal([]byte(r.stdout), &res); err != nil {
				return false, fmt.Errorf("output %q: %v", r.stdout, err)
			}
			return res.Applied, nil
		}
		err := d.cmd(commands.NameRewind, map[string]any{"target": t.spec, "force": force}, &res)
		return res.Applied, err
	}
	applied, err := do(false)
	if err != nil {
		if strings.Contains(err.Error(), "dropped by gc") {
			if d.pinned(t) {
				d.fail("%s: a pinned checkpoint's snapshot was dropped: %v", what, err)
			}
			d.counts["target dropped by retention"]++
			return
		}
		d.fail("%s: %v", what, err)
		return
	}
	if len(conflicts) > 0 {
		if applied {
			d.fail("%s went through files the person saved since: %v", what, conflicts)
		} else {
			d.checkRefusal(what, res.FailureReason, d.userDirty)
			d.counts["conflicts refused"]++
			if applied, err = do(true); err != nil {
				if strings.Contains(err.Error(), "dropped by gc") && !d.pinned(t) {
					// The refused attempt's capture let retention run: an
					// unpinned target may be gone by the forced one.
					d.counts["target dropped by retention"]++
					return
				}
				d.fail("%s (forced): %v", what, err)
				return
			}
		}
	}
	if !applied {
		d.fail("%s not applied: %s", what, res.FailureReason)
		d.m.resync()
		return
	}
	d.counts[map[bool]string{false: "rewinds (LSP)", true: "rewinds (command line)"}[cli]]++
	// A rewind that found the files already there records nothing: there
	// is nothing for undo to take back.
	d.settle(what, t.st, pre, res.Entry != "")
	if !cli && d.rng.Intn(5) == 0 {
		var plan commands.Plan
		if err := d.cmd(commands.NamePreview, map[string]any{"target": t.spec}, &plan); err != nil {
			d.fail("preview after %s: %v", what, err)
		} else if len(plan.Files) > 0 {
			d.fail("after %s its preview still changes %d files (%s …)", what, len(plan.Files), plan.Files[0].Path)
		}
	}
}

// undo takes back the latest operation in effect.
func (d *driver) undo(cli bool) {
	top := d.ops[len(d.ops)-1]
	if top.blocked {
		return // refused until a later operation is undone down to it
	}
	pre := d.m.cur.clone()
	what := "undo of the " + top.what
	want := d.m.cur.clone()
	for _, p := range differing(top.pre, top.post) {
		if st, ok := top.pre[p]; ok {
			want[p] = st
		} else {
			delete(want, p)
		}
	}
	conflicts := d.conflicts(want, d.userDirty)
	blocked := blockedPaths(want)
	var res commands.RewindResult
	do := func(force bool) (bool, error) {
		if cli {
			args := []string{"--root", d.root, "--json", "undo"}
			if force {
				args = append(args, "--force")
			}
			r := d.run("", args...)
			if r.code != 0 && r.code != 3 {
				return false, fmt.Errorf("exit %d: %s", r.code, strings.TrimSpace(r.stderr))
			}
			if err := jsonUnmarshal([]byte(r.stdout), &res); err != nil {
				return false, fmt.Errorf("output %q: %v", r.stdout, err)
			}
			return res.Applied, nil
		}
		err := d.cmd(commands.NameUndo, map[string]any{"force": force}, &res)
		return res.Applied, err
	}
	applied, err := do(false)
	if err != nil && strings.Contains(err.Error(), "dropped by gc") && d.opSeq-top.seq > 10 {
		// Retention pins the undo snapshots of the latest operations only;
		// an older one still in effect cannot be undone once dropped, and
		// undo stops there (bench/README.md says so with the table).
		d.counts["undo stopped at an undo snapshot retention dropped"]++
		d.undoStuck = true
		return
	}
	if err != nil {
		d.fail("%s: %v", what, err)
		return
	}
	if len(blocked) > 0 {
		// Someone made a folder a file since: the files the undo would put
		// back below it cannot be written. It must be refused, naming
		// them, having written nothing.
		if applied {
			d.fail("%s went through a folder made a file since (%v)", what, blocked)
		} else {
			dirty := maps.Clone(d.userDirty)
			for _, p := range blocked {
				dirty[p] = true
			}
			d.checkRefusal(what, res.FailureReason, dirty)
			if diffs := d.m.check(d.m.cur); len(diffs) > 0 {
				d.fail("%s was refused but changed files:\n    %s", what, strings.Join(diffs, "\n    "))
				d.m.resync()
			}
			d.counts["undos refused (a folder made a file since)"]++
			d.ops[len(d.ops)-1].blocked = true
		}
		return
	}
	if len(conflicts) > 0 {
		if applied {
			d.fail("%s went through files the person saved since: %v", what, conflicts)
		} else {
			d.checkRefusal(what, res.FailureReason, d.userDirty)
			d.counts["conflicts refused"]++
			if applied, err = do(true); err != nil {
				d.fail("%s (forced): %v", what, err)
				return
			}
		}
	}
	if !applied {
		d.fail("%s not applied: %s", what, res.FailureReason)
		d.m.resync()
		return
	}
	d.counts["undos"]++
	// An undo is not what the next undo takes back: the operation before is.
	d.ops = d.ops[:len(d.ops)-1]
	if top.conv {
		d.epoch++ // the conversation moved back too: turn numbers changed
	}
	d.settle(what, want, pre, false)
}

// blockedPaths lists the files of want below a path that want holds as a
// file: a state no tree can be in (an undo that would put files back below
// a folder someone made a file since).
func blockedPaths(want state) []string {
	var out []string
	for p := range want {
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			if _, ok := want[dir]; ok {
				out = append(out, p)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// revert takes back one recent turn none of whose files changed since.
func (d *driver) revert() {
	var cands []turnRec
	for _, t := range d.recent {
		if t.epoch != d.epoch || t.interleaved {
			continue
		}
		ch := differing(t.start, t.end)
		ok := len(ch) > 0
		for _, p := range ch {
			a, ina := d.m.cur[p]
			b, inb := t.end[p]
			ok = ok && ina == inb && a == b && !d.userDirty[p]
		}
		if ok {
			cands = append(cands, t)
		}
	}
	if len(cands) == 0 {
		return
	}
	t := cands[d.rng.Intn(len(cands))]
	want := d.m.cur.clone()
	for _, p := range differing(t.start, t.end) {
		if st, ok := t.start[p]; ok {
			want[p] = st
		} else {
			delete(want, p)
		}
	}
	if len(blockedPaths(want)) > 0 {
		return // a folder of the turn is a file now: refused, as an undo is
	}
	pre := d.m.cur.clone()
	what := fmt.Sprintf("revert of turn %d (%s)", t.num, t.kind)
	var res commands.RewindResult
	if err := d.cmd(commands.NameRevert, map[string]any{"target": fmt.Sprintf("turn:%d", t.num)}, &res); err != nil {
		if strings.Contains(err.Error(), "dropped by gc") {
			d.counts["target dropped by retention"]++
			return
		}
		d.fail("%s: %v", what, err)
		return
	}
	if !res.Applied {
		d.fail("%s not applied: %s", what, res.FailureReason)
		return
	}
	d.counts["reverts"]++
	d.settle(what, want, pre, res.Entry != "")
}

// forkClaude rewinds files and conversation (mode both) to the start of a
// recent Claude Code turn of the current session, checks the new
// transcript, and continues the session there.
func (d *driver) forkClaude() {
	var cands []turnRec
	for _, t := range d.recent {
		if t.kind == "claude" && t.epoch == d.epoch && t.session == d.cc.session && t.forkBytes > 0 {
			cands = append(cands, t)
		}
	}
	if len(cands) == 0 {
		return
	}
	t := cands[d.rng.Intn(len(cands))]
	what := fmt.Sprintf("conversation rewind (both) to turn %d", t.num)
	conflicts := d.conflicts(t.start, d.userDirty)
	pre := d.m.cur.clone()
	var res commands.RewindResult
	err := d.cmd(commands.NameRewind, map[string]any{"target": fmt.Sprint(t.num), "mode": "both", "force": len(conflicts) > 0}, &res)
	if err != nil && strings.Contains(err.Error(), "dropped by gc") {
		d.counts["target dropped by retention"]++
		return
	}
	if err != nil {
		d.fail("%s: %v", what, err)
		return
	}
	if !res.Applied {
		d.fail("%s not applied: %s", what, res.FailureReason)
		d.m.resync()
		return
	}
	d.counts["conversation rewinds"]++
	d.epoch++
	d.settle(what, t.start, pre, true)
	d.ops[len(d.ops)-1].conv = true
	d.notice = noticeMaybe
	c := res.Conversation
	if c == nil || c.Agent != "claude-code" {
		d.fail("%s: the conversation was not forked: %+v", what, c)
		return
	}
	if filepath.Dir(c.Transcript) != filepath.Dir(t.transcript) {
		d.fail("%s: the fork %s is not beside the original %s", what, c.Transcript, t.transcript)
		return
	}
	orig, err1 := os.ReadFile(t.transcript)
	fork, err2 := os.ReadFile(c.Transcript)
	if err1 != nil || err2 != nil {
		d.fail("%s: reading the transcripts: %v %v", what, err1, err2)
		return
	}
	if err := sameLines(orig, t.forkBytes, fork, c.Session); err != nil {
		d.fail("%s: the fork %s: %v", what, c.Transcript, err)
		return
	}
	// The person resumes the fork: the session goes on there.
	d.cc = &claude{session: c.Session, transcript: c.Transcript, n: d.cc.n}
	if lines := strings.Split(strings.TrimSuffix(string(fork), "\n"), "\n"); len(lines) > 0 {
		var last struct{ UUID string }
		jsonUnmarshal([]byte(lines[len(lines)-1]), &last)
		d.cc.last = last.UUID
	}
	if _, err := d.hook(d.cc, "SessionStart", map[string]any{"source": "resume"}); err != nil {
		d.fail("%v", err)
	}
	// The resumed session starts its MCP servers anew.
	d.mcp.cs.Close()
	m, err := d.startMCP(context.Background(), d.cc.session)
	if err != nil {
		d.fail("%v", err)
		return
	}
	d.mcp, d.mcpCP = m, nil
}

// mcpCheckpoint is the agent's checkpoint over MCP: pinned while it is the
// agent's active one (its connection going, not rewound to yet), then kept
// like a turn.
func (d *driver) mcpCheckpoint(tag string) {
	text, isErr, err := d.mcp.call("checkpoint", map[string]any{"goal": "try " + tag})
	if err != nil || isErr {
		d.fail("mcp checkpoint: %v %s", err, text)
		return
	}
	label := agentLabel.FindString(text)
	if label == "" {
		d.fail("mcp checkpoint answered no label: %q", text)
		return
	}
	d.counts["mcp checkpoints"]++
	d.recorded()
	d.mcpCP = d.record("@"+label, false)
	d.mcpDirty = map[string]bool{}
}

// mcpRewind is the agent's rewind to its checkpoint over MCP. It restores
// exactly the checkpoint's state, or is refused changing nothing: a
// refusal may name only files the person's editor saved since the
// checkpoint (what else changed since is the agent's own); a checkpoint
// serves one rewind.
func (d *driver) mcpRewind(tag string) {
	cp := d.mcpCP
	pre := d.m.cur.clone()
	text, isErr, err := d.mcp.call("rewind", map[string]any{"report": "abandoned the path of " + tag})
	what := fmt.Sprintf("mcp rewind to %s", cp.spec)
	switch {
	case err != nil:
		d.fail("%s: %v", what, err)
		return
	case isErr:
		_, list, ok := strings.Cut(text, "never overwrites that: ")
		if !ok {
			d.fail("%s refused: %s", what, text)
			d.m.resync()
			return
		}
		for _, f := range strings.Split(strings.TrimSuffix(strings.TrimSpace(list), "."), ", ") {
			if f = strings.TrimSpace(f); f != "" && !d.mcpDirty[f] {
				d.fail("%s: a false conflict on %s (the editor did not save it since the checkpoint)", what, f)
			}
		}
		if diffs := d.m.check(d.m.cur); len(diffs) > 0 {
			d.fail("%s was refused but changed files:\n    %s", what, strings.Join(diffs, "\n    "))
			d.m.resync()
		}
		d.counts["mcp rewinds refused (conflict)"]++
		d.ed.reload()
		return
	}
	d.counts["mcp rewinds"]++
	d.mcpCP = nil
	d.settle(what, cp.st, pre, !strings.HasPrefix(text, "Nothing to restore"))
	d.notice = noticeMaybe
}

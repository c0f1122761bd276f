package filehistory_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/filehistory"
	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// root is a sandbox whose history is recorded by hand: its files captured
// into a real object store and its turns, steps and gc appended to a real
// journal, as the workspace records them, in a temp dir.
type root struct {
	*testkit.Sandbox
	t    testing.TB
	objs *snapshot.Objects
	cap  *snapshot.Capturer
	j    *journal.Journal
	n    int // turns numbered so far
}

func newRoot(t testing.TB) *root {
	sb := testkit.NewSandbox(t)
	objs, err := snapshot.OpenObjects(filepath.Join(sb.Store, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	j := journal.Open(sb.Store)
	t.Cleanup(func() { j.Close() })
	return &root{Sandbox: sb, t: t, objs: objs, cap: snapshot.NewCapturer(sb.Root, objs, filepath.Join(sb.Store, "statcache"), 0), j: j}
}

// snap captures the files now.
func (r *root) snap() journal.Snap {
	r.t.Helper()
	res, err := r.cap.Capture(context.Background(), nil)
	if err != nil {
		r.t.Fatal(err)
	}
	return journal.SnapOf(res.ID)
}

// history reads the journal.
func (r *root) history() *journal.History {
	r.t.Helper()
	h, err := r.j.History()
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

// append records es; those of the active branch (all but tool entries)
// hang on its leaf, unless they name their parent.
func (r *root) append(es ...*journal.Entry) {
	r.t.Helper()
	l, err := r.j.Lock()
	if err != nil {
		r.t.Fatal(err)
	}
	defer l.Unlock()
	for _, e := range es {
		if e.Kind != journal.KindTool && e.Parent == "" {
			h, err := r.j.History()
			if err != nil {
				r.t.Fatal(err)
			}
			e.Parent = h.Leaf()
		}
		if err := l.Append(e); err != nil {
			r.t.Fatal(err)
		}
	}
}

// start opens the next turn of session, the files as they are now.
func (r *root) start(session, prompt string) *journal.Entry {
	r.t.Helper()
	r.n++
	e := journal.NewTurnStart("", r.n, session, "cli", r.snap())
	e.Prompt = prompt
	r.append(e)
	return e
}

// end ends the turn start opened, the files as they are now. With wrote
// the turn is attributed: its session's calls wrote those files only.
func (r *root) end(start *journal.Entry, wrote ...string) *journal.Entry {
	r.t.Helper()
	snap := r.snap()
	e := journal.NewTurnEnd("", start, snap, r.changes(start.Snapshot, snap))
	if wrote != nil {
		e.Attributed, e.Wrote = true, wrote
	}
	r.append(e)
	return e
}

// turn plays one turn of session sess-a that runs edit, and returns it.
func (r *root) turn(prompt string, edit func()) journal.Turn {
	r.t.Helper()
	start := r.start("sess-a", prompt)
	edit()
	r.end(start)
	return r.turnOf(start)
}

// step records a call of tool in the turn start opened that runs edit:
// a step of it when the call changed files (as a post finds them).
func (r *root) step(start *journal.Entry, tool string, edit func()) *journal.Entry {
	r.t.Helper()
	before := r.snap()
	edit()
	after := r.snap()
	e := journal.NewTool(start.Session, start.ID, journal.ToolCall{Tool: tool, Phase: journal.PhasePost, Detail: tool + " call"})
	e.Snapshot = after
	if ch := r.changes(before, after); len(ch) > 0 {
		e.Step, e.StepStart, e.Changed = len(r.history().Steps(start))+1, before, ch
	}
	r.append(e)
	return e
}

// changes is what changed from state a to state b, as a turn's end lists it.
func (r *root) changes(a, b journal.Snap) []journal.Change {
	r.t.Helper()
	ds, err := snapshot.DiffTrees(r.objs, a.ID, b.ID)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []journal.Change
	for _, d := range ds {
		change := fileop.Modify
		switch {
		case !d.InA:
			change = fileop.Create
		case !d.InB:
			change = fileop.Delete
		}
		out = append(out, journal.Change{Path: d.Path, Change: change})
	}
	return out
}

// turnOf is the turn start opened, as the journal reads it now.
func (r *root) turnOf(start *journal.Entry) journal.Turn {
	r.t.Helper()
	return r.history().TurnOf(start)
}

// load is rel's version in state s.
func (r *root) load(s journal.Snap, rel string) filehistory.Version {
	r.t.Helper()
	v, err := filehistory.Load(r.objs, s.ID, rel)
	if err != nil {
		r.t.Fatal(err)
	}
	return v
}

// now is rel's version on disk.
func (r *root) now(rel string) filehistory.Version {
	r.t.Helper()
	return r.load(r.snap(), rel)
}

// blame renders the blame of rel's disk content as "line:turn" for every
// owned line, with a fresh Blamer unless b is given.
func (r *root) blame(rel string, b ...*filehistory.Blamer) string {
	r.t.Helper()
	bl := &filehistory.Blamer{}
	if len(b) > 0 {
		bl = b[0]
	}
	var data []byte
	exists := r.Exists(rel)
	if exists {
		data = []byte(r.Read(rel))
	}
	rs, err := bl.Blame(r.objs, r.history(), rel, data, exists)
	if err != nil {
		r.t.Fatal(err)
	}
	return renderBlame(rs)
}

func renderBlame(rs []filehistory.Range) string {
	var parts []string
	for _, r := range rs {
		for l := r.StartLine; l < r.EndLine; l++ {
			parts = append(parts, fmt.Sprintf("%d:%d", l, r.Turn.Number))
		}
	}
	return strings.Join(parts, " ")
}

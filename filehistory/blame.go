package filehistory

import (
	"bytes"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/textdiff"
)

// Range is a run of lines of a file's current content that one agent turn
// wrote and nobody changed since.
type Range struct {
	// StartLine and EndLine are 0-based lines as the Language Server
	// Protocol counts them ("\n", "\r\n" and a lone "\r" end a line); the
	// end is exclusive.
	StartLine, EndLine int
	Turn               *journal.Turn
	// Step is the tool entry of the turn's step that wrote the lines; nil
	// when the turn has no step that wrote them (a turn without reported
	// tool calls, or a change between its tool calls).
	Step *journal.Entry
}

// Blame tells, for each line of current (the file rel as the editor or the
// disk holds it now; exists false when it is missing), the turn that last
// wrote it, if an agent turn did and nobody changed the line since. Lines
// the person wrote, lines that predate the first turn that changed the
// file, and every line of a binary file are absent.
//
// It is incremental: what the file's turns did is computed once per file
// and extended by the turns that changed it since (a diff per state of the
// file, never a replay of the whole history), and the answer for a given
// content is kept until the journal or the content changes.
func (c *Blamer) Blame(objs *snapshot.Objects, h *journal.History, rel string, current []byte, exists bool) ([]Range, error) {
	chain := Chain(h, rel)
	c.mu.Lock()
	defer c.mu.Unlock()
	fb := c.files[rel]
	if c.files == nil {
		c.files = map[string]*fileBlame{}
	}
	if fb == nil || !fb.extends(chain) {
		if len(c.files) >= blameCacheFiles {
			c.files = map[string]*fileBlame{}
		}
		fb = &fileBlame{memo: map[snapshot.ID][]int32{}}
		c.files[rel] = fb
	}
	if fb.ready && len(fb.ids) == len(chain) && fb.hasCurrent && fb.curExists == exists && bytes.Equal(fb.current, current) {
		return fb.result, nil
	}
	for _, st := range chain[len(fb.ids):] {
		if err := blameStep(objs, h, rel, fb, st); err != nil {
			return nil, err
		}
	}
	// The last step: whatever happened since the file's last turn is
	// nobody's turn.
	var cur []string
	if exists && snapshot.IsText(current) {
		cur = textdiff.SplitLines(string(current))
	}
	var labels []int32
	if m := fb.memo[snapshot.Sum(current)]; exists && m != nil && len(m) == len(cur) {
		labels = m // a rewind or undo since brought back a recorded state
	} else {
		labels = advance(fb.lines, fb.labels, fb.unknown, cur, -1)
	}
	fb.result = blameRanges(current, labels, fb.owners)
	fb.current = append(fb.current[:0], current...)
	fb.curExists, fb.hasCurrent, fb.ready = exists, true, true
	return fb.result, nil
}

// blameCacheFiles bounds the files whose blame a Blamer keeps.
const blameCacheFiles = 64

// blameMemo bounds the earlier states whose line owners a file's blame
// keeps, to give them back when a rewind or undo restores such a state.
const blameMemo = 32

// Blamer tells who wrote each line of a root's files, keeping what it
// learnt per file (its zero value is ready to use, and safe for concurrent
// use).
type Blamer struct {
	mu    sync.Mutex
	files map[string]*fileBlame
}

// fileBlame is what blame knows of one file: the owners of its lines at the
// latest state of its chain it has walked.
type fileBlame struct {
	ids     []journal.EntryID // entry ids of the chain states walked
	lines   []string          // the file's lines at the last state walked
	labels  []int32           // per line: index in turns, or -1
	unknown bool              // the last state's content is gone (gc): owners unknown
	last    Version           // the last state walked (without its content)
	hasLast bool
	owners  []owner
	memo    map[snapshot.ID][]int32 // owners of earlier states' lines, by content
	order   []snapshot.ID           // memo keys, oldest first

	// The answer for the current content last asked about.
	ready, hasCurrent, curExists bool
	current                      []byte
	result                       []Range
}

// extends reports whether chain starts with the states fb has walked.
func (fb *fileBlame) extends(chain []State) bool {
	if len(chain) < len(fb.ids) {
		return false
	}
	for i, id := range fb.ids {
		if chain[i].Entry.ID != id {
			return false
		}
	}
	return true
}

// owner is who wrote a line: a turn, and the step of it when one did.
type owner struct {
	turn *journal.Turn
	step *journal.Entry
}

// ownerIndex returns the index of (t, step) in fb.owners, adding it.
func (fb *fileBlame) ownerIndex(t *journal.Turn, step *journal.Entry) int32 {
	for i, o := range fb.owners {
		if o.turn.Start.ID == t.Start.ID && o.step == step {
			return int32(i)
		}
	}
	fb.owners = append(fb.owners, owner{t, step})
	return int32(len(fb.owners) - 1)
}

// blameStep walks fb to the next state of the file's chain. A turn's end
// whose steps wrote the file is walked through those steps: the state just
// before each and the state after it, so its lines are owned by the step
// that wrote them (a change between steps is the turn's).
func blameStep(objs *snapshot.Objects, h *journal.History, rel string, fb *fileBlame, st State) error {
	fb.ids = append(fb.ids, st.Entry.ID)
	fb.ready = false
	if h.Gone(st.Entry.Snapshot) {
		fb.lines, fb.labels, fb.unknown, fb.hasLast = nil, nil, true, false
		return nil
	}
	if st.By != nil && st.By.End != nil && st.By.End.ID == st.Entry.ID {
		turn := fb.ownerIndex(st.By, nil)
		for _, step := range h.Steps(st.By.Start) {
			sp := StepSpan(st.By.Number, st.By.Start.Prompt, step)
			if !changed(step, rel) || !sp.Before.Set || sp.Gone(h) {
				continue
			}
			if _, err := walkTo(objs, rel, fb, sp.Before.ID, turn); err != nil {
				return err
			}
			if _, err := walkTo(objs, rel, fb, sp.After.ID, fb.ownerIndex(st.By, step)); err != nil {
				return err
			}
		}
	}
	by := int32(-1)
	if st.By != nil {
		by = fb.ownerIndex(st.By, nil)
	}
	v, err := walkTo(objs, rel, fb, st.Entry.Snapshot.ID, by)
	if err != nil || v == nil {
		return err
	}
	if v.Exists {
		if _, ok := fb.memo[v.ID]; !ok {
			fb.order = append(fb.order, v.ID)
			if len(fb.order) > blameMemo {
				delete(fb.memo, fb.order[0])
				fb.order = fb.order[1:]
			}
		}
		fb.memo[v.ID] = fb.labels
	}
	return nil
}

// walkTo moves fb to rel's version in snapshot snap, the lines that change
// owned by by (-1: nobody's turn). A change by nobody that brings back an
// earlier state gives its lines their owners back. It returns the version
// walked to, nil when it is the one fb was at.
func walkTo(objs *snapshot.Objects, rel string, fb *fileBlame, snap snapshot.ID, by int32) (*Version, error) {
	e, ok, err := snapshot.Lookup(objs, snap, rel)
	if err != nil {
		return nil, err
	}
	if cur := (Version{Exists: ok, Kind: e.Kind, ID: e.ID}); !fb.unknown && fb.hasLast && cur.Same(fb.last) {
		return nil, nil // unchanged: same owners
	}
	v, err := Load(objs, snap, rel)
	if err != nil {
		return nil, err
	}
	fb.last, fb.hasLast = Version{Exists: v.Exists, Kind: v.Kind, ID: v.ID}, true
	var next []string
	if v.Exists && v.Text() {
		next = textdiff.SplitLines(string(v.Data))
	}
	if by < 0 && v.Exists && fb.memo[v.ID] != nil && len(fb.memo[v.ID]) == len(next) {
		// A rewind, undo or revert brought back an earlier state: its lines
		// have their owners back.
		fb.labels = append([]int32(nil), fb.memo[v.ID]...)
	} else {
		fb.labels = advance(fb.lines, fb.labels, fb.unknown, next, by)
	}
	fb.lines, fb.unknown = next, false
	return &v, nil
}

// changed reports whether entry e (a turn's end, a step's tool entry)
// lists rel among the files that changed.
func changed(e *journal.Entry, rel string) bool {
	for _, c := range e.Changed {
		if c.Path == rel {
			return true
		}
	}
	return false
}

// advance returns the owners of next's lines given the owners of prev's:
// lines the change from prev to next kept keep their owner, lines it wrote
// get owner by (-1: nobody's turn). After unknown owners every line is
// nobody's.
func advance(prev []string, labels []int32, unknown bool, next []string, by int32) []int32 {
	out := make([]int32, len(next))
	if unknown {
		for i := range out {
			out[i] = -1
		}
		return out
	}
	at, bt := 0, 0
	for _, h := range textdiff.LineHunks(prev, next) {
		copy(out[bt:h.B0], labels[at:h.A0])
		for i := h.B0; i < h.B1; i++ {
			out[i] = by
		}
		at, bt = h.A1, h.B1
	}
	copy(out[bt:], labels[at:])
	return out
}

// blameRanges groups the owned lines of text into ranges of protocol lines.
func blameRanges(text []byte, labels []int32, owners []owner) []Range {
	proto := protocolLineStarts(text, len(labels))
	var out []Range
	for i := 0; i < len(labels); {
		l := labels[i]
		j := i + 1
		for j < len(labels) && labels[j] == l {
			j++
		}
		if l >= 0 {
			out = append(out, Range{StartLine: proto(i), EndLine: proto(j), Turn: owners[l].turn, Step: owners[l].step})
		}
		i = j
	}
	return out
}

// protocolLineStarts returns a function from a line as SplitLines counts
// them (only "\n" ends a line) to the protocol line it starts on (where a
// lone "\r" ends a line too); n is the number of lines.
func protocolLineStarts(text []byte, n int) func(int) int {
	if bytes.IndexByte(text, '\r') < 0 {
		return func(i int) int { return i }
	}
	starts := make([]int, 0, n+1)
	line := 0
	starts = append(starts, 0)
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			line++
			starts = append(starts, line)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue
			}
			line++
		}
	}
	return func(i int) int {
		if i < len(starts) {
			return starts[i]
		}
		return line + 1
	}
}

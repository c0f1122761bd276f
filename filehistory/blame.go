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
	if fb.ready && fb.done == len(chain) && fb.hasCurrent && fb.curExists == exists && bytes.Equal(fb.current, current) {
		return fb.result, nil
	}
	for _, st := range chain[fb.done:] {
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
	fb.result = blameRanges(current, labels, fb.turns)
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
	done    int               // = len(ids)
	lines   []string          // the file's lines at the last state walked
	labels  []int32           // per line: index in turns, or -1
	unknown bool              // the last state's content is gone (gc): owners unknown
	last    Version           // the last state walked (without its content)
	hasLast bool
	turns   []*journal.Turn
	memo    map[snapshot.ID][]int32 // owners of earlier states' lines, by content
	order   []snapshot.ID           // memo keys, oldest first

	// The answer for the current content last asked about.
	ready, hasCurrent, curExists bool
	current                      []byte
	result                       []Range
}

// extends reports whether chain starts with the states fb has walked.
func (fb *fileBlame) extends(chain []State) bool {
	if len(chain) < fb.done {
		return false
	}
	for i, id := range fb.ids {
		if chain[i].Entry.ID != id {
			return false
		}
	}
	return true
}

// turnIndex returns the index of t in fb.turns, adding it.
func (fb *fileBlame) turnIndex(t *journal.Turn) int32 {
	for i, x := range fb.turns {
		if x.Start.ID == t.Start.ID {
			return int32(i)
		}
	}
	fb.turns = append(fb.turns, t)
	return int32(len(fb.turns) - 1)
}

// blameStep walks fb to the next state of the file's chain.
func blameStep(objs *snapshot.Objects, h *journal.History, rel string, fb *fileBlame, st State) error {
	fb.ids = append(fb.ids, st.Entry.ID)
	fb.done = len(fb.ids)
	fb.ready = false
	if h.Gone(st.Entry.Snapshot) {
		fb.lines, fb.labels, fb.unknown, fb.hasLast = nil, nil, true, false
		return nil
	}
	e, ok, err := snapshot.Lookup(objs, st.Entry.Snapshot.ID, rel)
	if err != nil {
		return err
	}
	if cur := (Version{Exists: ok, Kind: e.Kind, ID: e.ID}); !fb.unknown && fb.hasLast && cur.Same(fb.last) {
		return nil // unchanged since the previous state: same owners
	}
	v, err := Load(objs, st.Entry.Snapshot.ID, rel)
	if err != nil {
		return err
	}
	fb.last, fb.hasLast = Version{Exists: v.Exists, Kind: v.Kind, ID: v.ID}, true
	var next []string
	if v.Exists && v.Text() {
		next = textdiff.SplitLines(string(v.Data))
	}
	switch {
	case st.By == nil && v.Exists && fb.memo[v.ID] != nil && len(fb.memo[v.ID]) == len(next):
		// A rewind, undo or revert brought back an earlier state: its lines
		// have their owners back.
		fb.labels = append([]int32(nil), fb.memo[v.ID]...)
	case st.By == nil:
		fb.labels = advance(fb.lines, fb.labels, fb.unknown, next, -1)
	default:
		fb.labels = advance(fb.lines, fb.labels, fb.unknown, next, fb.turnIndex(st.By))
	}
	fb.lines, fb.unknown = next, false
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
func blameRanges(text []byte, labels []int32, turns []*journal.Turn) []Range {
	proto := protocolLineStarts(text, len(labels))
	var out []Range
	for i := 0; i < len(labels); {
		l := labels[i]
		j := i + 1
		for j < len(labels) && labels[j] == l {
			j++
		}
		if l >= 0 {
			out = append(out, Range{StartLine: proto(i), EndLine: proto(j), Turn: turns[l]})
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

package view

// What the view keeps: positions, their records, the tables and the state
// (docs/HISTORY.md).
//
// Each entry gets a position (its number in journal order) and a fixed-size
// record: where its line is, its kind and time, and its place in the
// conversation tree (parent, depth, a jump pointer for finding ancestors in
// a logarithmic number of steps) and on the chain of turn starts above it.
// Tables map keys (an entry id, an idempotency key, a turn start, a file…)
// to the positions of the entries that name them. A small state holds the
// rest: the leaf, open turns, unfinished operations, the baseline, counts.
// None of it is ever changed once written; a position's record and the
// pairs it added are a function of the journal up to it.

import (
	"encoding/binary"
	"hash/fnv"
	"slices"
)

// Pos is where an entry is in the view: its number in journal order. A
// stand-in for a turn start lost to a damaged line has one too.
type Pos = int32

// None is no position.
const None Pos = -1

// Kind is an entry's kind as records keep it.
type Kind uint8

// Kinds of entries (KindOther: one this version does not know).
const (
	KindOther Kind = iota
	KindSession
	KindTurnStart
	KindTurnEnd
	KindCheckpoint
	KindRewind
	KindUndo
	KindSummary
	KindGC
	KindTool
	KindNotice
	KindDone
	KindRevert
	NumKinds
)

// IsOp reports whether k is an operation's (rewind, revert, undo).
func IsOp(k Kind) bool { return k == KindRewind || k == KindRevert || k == KindUndo }

// InTree reports whether entries of kind k are part of the conversation
// tree (done, gc, tool and notice entries are not).
func InTree(k Kind) bool {
	switch k {
	case KindDone, KindGC, KindTool, KindNotice:
		return false
	}
	return true
}

// Record flags.
const (
	FlagTree     uint8 = 1 << iota // part of the conversation tree
	FlagPending                    // an operation recorded before it changed files
	FlagSnap                       // Snapshot is set
	FlagUndoSnap                   // UndoSnapshot is set
	FlagStandIn                    // a stand-in start: Off is its end's line
	FlagApplied                    // a done entry that says applied (or says nothing)
)

// Record is what the view keeps per position.
type Record struct {
	Off    int64 // the line's offset in the journal
	Time   int64 // unix nanoseconds
	Length uint32
	Kind   Kind
	Flags  uint8
	// The tree: parent, depth and jump pointer (an ancestor; see Ancestor).
	Parent, Depth, Jump Pos
	// TurnAt is the nearest turn start at or above this entry in the tree;
	// MarkAt the nearest checkpoint or summary.
	TurnAt, MarkAt Pos
	// Turn is a turn start's or end's number, MaxTurn the highest turn
	// number on the path from the root to here.
	Turn, MaxTurn int32
	// On the chain of turn starts (turn starts only): how many turn starts
	// are on the path including this one, and a jump pointer along them.
	TurnDepth int32
	TurnJump  Pos
	// PrevSame is the previous entry of the same kind in journal order.
	PrevSame Pos
}

// RecordSize is the size of an encoded record.
const RecordSize = 64

// Encode writes r into b (RecordSize bytes).
func (r *Record) Encode(b []byte) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(r.Off))
	le.PutUint64(b[8:], uint64(r.Time))
	le.PutUint32(b[16:], r.Length)
	b[20], b[21], b[22], b[23] = uint8(r.Kind), r.Flags, 0, 0
	for i, v := range [...]int32{r.Parent, r.Depth, r.Jump, r.TurnAt, r.Turn, r.MaxTurn, r.TurnDepth, r.TurnJump, r.PrevSame, r.MarkAt} {
		le.PutUint32(b[24+4*i:], uint32(v))
	}
}

// DecodeRecord reads the record Encode wrote.
func DecodeRecord(b []byte) Record {
	le := binary.LittleEndian
	var v [10]int32
	for i := range v {
		v[i] = int32(le.Uint32(b[24+4*i:]))
	}
	return Record{Off: int64(le.Uint64(b[0:])), Time: int64(le.Uint64(b[8:])), Length: le.Uint32(b[16:]), Kind: Kind(b[20]), Flags: b[21],
		Parent: v[0], Depth: v[1], Jump: v[2], TurnAt: v[3], Turn: v[4], MaxTurn: v[5], TurnDepth: v[6], TurnJump: v[7],
		PrevSame: v[8], MarkAt: v[9]}
}

// Table is one of the view's tables: each maps a key of a fixed width to
// the positions of the entries that added it, in journal order.
type Table int

// The tables.
const (
	ByID      Table = iota // hash of an entry id → the entry
	ByIDText               // the first 16 bytes of an entry id → the entry (id prefixes)
	ByKey                  // hash of an idempotency key → entries made under it (not done entries)
	Ends                   // hash of a turn start's id → its ends
	Undos                  // hash of an operation's id → its undos
	Dones                  // hash of an operation's id → its done entries
	GoneSnaps              // a snapshot → the gc entries that dropped it
	FirstSnap              // a snapshot → the first entry that recorded it
	Tools                  // hash of a turn start's id → the tool entries of its session during it
	InTurn                 // hash of a turn start's id → operations run in it
	Labels                 // hash of a label → checkpoints
	Sessions               // hash of a session id → its entries
	Paths                  // hash of a path → turn ends that changed or wrote it
	Calls                  // hash of session, tool and call id → tool entries
	Prompts                // hash of session and prompt → turn starts
	Forks                  // hash of a turn start's ForkUUID → turn starts
	Steps                  // hash of a turn start's id → its steps (tool entries with a step)
	NumTables
)

var tableInfo = [NumTables]struct {
	name string
	kw   int // key width
}{
	ByID: {"id", 8}, ByIDText: {"idtext", 16}, ByKey: {"key", 8}, Ends: {"end", 8}, Undos: {"undo", 8}, Dones: {"done", 8},
	GoneSnaps: {"gone", 32}, FirstSnap: {"snap", 32}, Tools: {"tool", 8}, InTurn: {"inturn", 8}, Labels: {"label", 8},
	Sessions: {"session", 8}, Paths: {"path", 8}, Calls: {"call", 8}, Prompts: {"prompt", 8}, Forks: {"fork", 8},
	Steps: {"step", 8},
}

// Name is the table's section name in a segment file.
func (t Table) Name() string { return tableInfo[t].name }

// KeyWidth is the width of the table's keys.
func (t Table) KeyWidth() int { return tableInfo[t].kw }

// Hash is the 8-byte key of a string (FNV-1a, 64 bits), parts separated
// by a zero byte.
func Hash(parts ...string) []byte {
	h := fnv.New64a()
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(p))
	}
	return h.Sum(nil)
}

func idTextKey(id string) []byte {
	b := make([]byte, 16)
	copy(b, id)
	return b
}

// OpenTurn is a turn start with no end yet. It is open while it is on the
// active branch and no later start of its session is (Super: those below
// it in the tree).
type OpenTurn struct {
	Pos     Pos    `json:"pos"`
	Session string `json:"session"`
	Super   []Pos  `json:"super,omitempty"`
}

// State is the part of the view that is not per position.
type State struct {
	N        Pos           `json:"n"`        // positions taken
	Offset   int64         `json:"offset"`   // journal bytes read
	Lines    int           `json:"lines"`    // journal lines read
	Leaf     Pos           `json:"leaf"`     // the active branch's leaf
	LastTree Pos           `json:"lastTree"` // the latest entry of the tree
	Heads    [NumKinds]Pos `json:"heads"`    // the latest entry of each kind
	Base     Snap          `json:"base"`     // the last recorded state (Baseline)
	Snaps    int           `json:"snaps"`    // distinct snapshots not gone
	GCs      int           `json:"gcs"`
	Open     []OpenTurn    `json:"open,omitempty"`
	Pending  []Pos         `json:"pending,omitempty"` // operations without a done entry
	// Irregular: some entry refers to one not written before it (a line
	// lost to damage, or a forged journal); turn numbers may then not rise
	// along the branch, and lookups by number walk instead of jumping.
	Irregular bool `json:"irregular,omitempty"`

	// The last line read (offset, length, checksum of its bytes): the
	// manifest's check that the journal is the one the view was made of.
	lastOff int64
	lastLen int
	lastCRC uint32
}

func newState() State {
	s := State{Leaf: None, LastTree: None}
	for i := range s.Heads {
		s.Heads[i] = None
	}
	return s
}

// clone copies s so that it can change without changing s.
func (s State) clone() State {
	s.Open = slices.Clone(s.Open)
	for i := range s.Open {
		s.Open[i].Super = slices.Clone(s.Open[i].Super)
	}
	s.Pending = slices.Clone(s.Pending)
	return s
}

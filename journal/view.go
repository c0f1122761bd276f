package journal

// The view: everything derived from the journal that a command needs,
// built entry by entry in journal order and kept beside it (docs/HISTORY.md).
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

// pos is where an entry is in the view: its number in journal order. A
// stand-in for a turn start lost to a damaged line has one too.
type pos = int32

const none pos = -1

// kind codes, as records keep them.
const (
	kOther uint8 = iota
	kSession
	kTurnStart
	kTurnEnd
	kCheckpoint
	kRewind
	kUndo
	kSummary
	kGC
	kTool
	kNotice
	kDone
	kRevert
	numKinds
)

var kindCode = map[Kind]uint8{KindSession: kSession, KindTurnStart: kTurnStart, KindTurnEnd: kTurnEnd,
	KindCheckpoint: kCheckpoint, KindRewind: kRewind, KindUndo: kUndo, KindSummary: kSummary, KindGC: kGC,
	KindTool: kTool, KindNotice: kNotice, KindDone: kDone, KindRevert: kRevert}

func codeOf(kind Kind) uint8 { return kindCode[kind] }

// isOp reports whether code is an operation's (rewind, revert, undo).
func isOp(k uint8) bool { return k == kRewind || k == kRevert || k == kUndo }

// Record flags.
const (
	fTree     uint8 = 1 << iota // part of the conversation tree
	fPending                    // an operation recorded before it changed files
	fSnap                       // Snapshot is set
	fUndoSnap                   // UndoSnapshot is set
	fStandIn                    // a stand-in start: off is its end's line
	fApplied                    // a done entry that says applied (or says nothing)
)

// record is what the view keeps per position.
type record struct {
	off    int64 // the line's offset in the journal
	time   int64 // unix nanoseconds
	length uint32
	kind   uint8
	flags  uint8
	// The tree: parent, depth and jump pointer (an ancestor; see ancestor).
	parent, depth, jump pos
	// turnAt is the nearest turn start at or above this entry in the tree;
	// markAt the nearest checkpoint or summary.
	turnAt, markAt pos
	// turn is a turn start's or end's number, maxTurn the highest turn
	// number on the path from the root to here.
	turn, maxTurn int32
	// On the chain of turn starts (turn starts only): how many turn starts
	// are on the path including this one, and a jump pointer along them.
	turnDepth int32
	turnJump  pos
	// prevSame is the previous entry of the same kind in journal order.
	prevSame pos
}

const recordSize = 64

func (r *record) encode(b []byte) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(r.off))
	le.PutUint64(b[8:], uint64(r.time))
	le.PutUint32(b[16:], r.length)
	b[20], b[21], b[22], b[23] = r.kind, r.flags, 0, 0
	for i, v := range [...]int32{r.parent, r.depth, r.jump, r.turnAt, r.turn, r.maxTurn, r.turnDepth, r.turnJump, r.prevSame, r.markAt} {
		le.PutUint32(b[24+4*i:], uint32(v))
	}
}

func decodeRecord(b []byte) record {
	le := binary.LittleEndian
	var v [10]int32
	for i := range v {
		v[i] = int32(le.Uint32(b[24+4*i:]))
	}
	return record{off: int64(le.Uint64(b[0:])), time: int64(le.Uint64(b[8:])), length: le.Uint32(b[16:]), kind: b[20], flags: b[21],
		parent: v[0], depth: v[1], jump: v[2], turnAt: v[3], turn: v[4], maxTurn: v[5], turnDepth: v[6], turnJump: v[7],
		prevSame: v[8], markAt: v[9]}
}

// Tables: each maps a key of a fixed width to the positions of the entries
// that added it, in journal order.
const (
	tID      = iota // hash of an entry id → the entry
	tIDText         // the first 16 bytes of an entry id → the entry (id prefixes)
	tKey            // hash of an idempotency key → entries made under it (not done entries)
	tEnd            // hash of a turn start's id → its ends
	tUndo           // hash of an operation's id → its undos
	tDone           // hash of an operation's id → its done entries
	tGone           // a snapshot → the gc entries that dropped it
	tSnap           // a snapshot → the first entry that recorded it
	tTool           // hash of a turn start's id → the tool entries of its session during it
	tInTurn         // hash of a turn start's id → operations run in it
	tLabel          // hash of a label → checkpoints
	tSession        // hash of a session id → its entries
	tPath           // hash of a path → turn ends that changed or wrote it
	tCall           // hash of session, tool and call id → tool entries
	tPrompt         // hash of session and prompt → turn starts
	tFork           // hash of a turn start's ForkUUID → turn starts
	tStep           // hash of a turn start's id → its steps (tool entries with a step)
	numTables
)

var tableInfo = [numTables]struct {
	name string
	kw   int // key width
}{
	tID: {"id", 8}, tIDText: {"idtext", 16}, tKey: {"key", 8}, tEnd: {"end", 8}, tUndo: {"undo", 8}, tDone: {"done", 8},
	tGone: {"gone", 32}, tSnap: {"snap", 32}, tTool: {"tool", 8}, tInTurn: {"inturn", 8}, tLabel: {"label", 8},
	tSession: {"session", 8}, tPath: {"path", 8}, tCall: {"call", 8}, tPrompt: {"prompt", 8}, tFork: {"fork", 8},
	tStep: {"step", 8},
}

// hashKey is the 8-byte key of a string (FNV-1a, 64 bits), parts
// separated by a zero byte.
func hashKey(parts ...string) []byte {
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

// openTurn is a turn start with no end yet. It is open while it is on the
// active branch and no later start of its session is (Super: those below
// it in the tree).
type openTurn struct {
	Pos     pos    `json:"pos"`
	Session string `json:"session"`
	Super   []pos  `json:"super,omitempty"`
}

// viewState is the part of the view that is not per position.
type viewState struct {
	N        pos           `json:"n"`        // positions taken
	Offset   int64         `json:"offset"`   // journal bytes read
	Lines    int           `json:"lines"`    // journal lines read
	Leaf     pos           `json:"leaf"`     // the active branch's leaf
	LastTree pos           `json:"lastTree"` // the latest entry of the tree
	Heads    [numKinds]pos `json:"heads"`    // the latest entry of each kind
	Base     Snap          `json:"base"`     // the last recorded state (Baseline)
	Snaps    int           `json:"snaps"`    // distinct snapshots not gone
	GCs      int           `json:"gcs"`
	Open     []openTurn    `json:"open,omitempty"`
	Pending  []pos         `json:"pending,omitempty"` // operations without a done entry
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

func newState() viewState {
	s := viewState{Leaf: none, LastTree: none}
	for i := range s.Heads {
		s.Heads[i] = none
	}
	return s
}

// clone copies s so that it can change without changing s.
func (s viewState) clone() viewState {
	s.Open = slices.Clone(s.Open)
	for i := range s.Open {
		s.Open[i].Super = slices.Clone(s.Open[i].Super)
	}
	s.Pending = slices.Clone(s.Pending)
	return s
}

// inTree reports whether entries of kind k are part of the conversation
// tree (done, gc, tool and notice entries are not).
func inTree(k Kind) bool {
	switch k {
	case KindDone, KindGC, KindTool, KindNotice:
		return false
	}
	return true
}

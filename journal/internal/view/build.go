package view

// How one entry changes the view (apply): its record, the pairs it adds to
// the tables, and the state.

import (
	"slices"

	"github.com/rewind-lsp/rewind-lsp/store"
)

// Facts is what the view takes of an entry as it adds it. The journal's
// package says how its entries give them (Schema.Facts).
type Facts struct {
	Kind              Kind
	ID, Parent, Start string
	Time              int64 // unix nanoseconds
	// Pending: an operation recorded before it changed files. Applied: a
	// done entry that says it applied, or says nothing.
	Pending, Applied       bool
	Snapshot, UndoSnapshot Snap
	Turn, Step             int
	Key, Session, Prompt   string
	ForkUUID, Label        string
	Tool, ToolUse          string
	Undoes, Of, InTurn     string
	// Paths are the files a turn end says it changed or wrote (repeats
	// allowed).
	Paths []string
	// Gone are the snapshots a gc entry dropped.
	Gone []store.ID
}

// Schema is how the view reads the entries of the journal it is made of;
// E is their type.
type Schema[E any] interface {
	// Decode reads one line of the journal, without its newline; an error
	// is a damaged line.
	Decode(line []byte) (E, error)
	// Facts is what the view takes of e.
	Facts(e E) Facts
	// ID is e's id.
	ID(e E) string
	// StandIn is the entry that stands for the lost turn start of turn end
	// end, below the entry with id parent ("": a root entry).
	StandIn(end E, parent string) E
	// Placed tells e that it is at position p.
	Placed(e E, p Pos)
}

// builder adds entries to a storage. Its reads never rebuild a damaged
// view while it is being extended: they note the damage (err), and the
// caller builds the view again from the journal.
type builder[E any] struct {
	st  *storage[E]
	err error
}

func (b *builder[E]) rec(p Pos) Record {
	r, err := b.st.recOnce(p)
	if err != nil {
		b.fail(err)
		return noRecord
	}
	return r
}

func (b *builder[E]) find(table Table, key []byte, before Pos) []Pos {
	out, err := b.st.findOnce(table, key, key, before)
	if err != nil {
		b.fail(err)
	}
	return out
}

func (b *builder[E]) entryAt(p Pos) (E, bool) {
	e, ok, err := b.st.entryOnce(p)
	if err != nil {
		b.fail(err)
	}
	return e, ok
}

func (b *builder[E]) source() *storage[E] { return b.st }

func (b *builder[E]) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// apply adds entry e, whose line is length bytes at off in the journal, to
// the view, changing s (the state up to the entry before it).
func (b *builder[E]) apply(s *State, e *Facts, off int64, length int) {
	st := b.st
	k := e.Kind
	if k == KindTurnEnd && e.Start != "" && lookupID(b, e.Start, s.N) == None {
		// Its start is a damaged line: a stand-in takes its place, just
		// above the end, where the branch walked from the entry written
		// before it.
		b.standIn(s, e, off, length)
	}
	p := s.N
	s.N++
	r := Record{Off: off, Time: e.Time, Length: uint32(length), Kind: k,
		Parent: None, Depth: None, Jump: None, TurnAt: None, MarkAt: None, Turn: int32(e.Turn), TurnJump: None,
		PrevSame: s.Heads[k]}
	if e.Pending {
		r.Flags |= FlagPending
	}
	if e.Snapshot.Set {
		r.Flags |= FlagSnap
	}
	if e.UndoSnapshot.Set {
		r.Flags |= FlagUndoSnap
	}
	if k == KindDone && e.Applied {
		r.Flags |= FlagApplied
	}
	s.Heads[k] = p
	if InTree(k) {
		parent := None
		if e.Parent != "" {
			parent = lookupID(b, e.Parent, p)
			if parent == None || b.rec(parent).Flags&FlagTree == 0 {
				// Its parent is a damaged line: the branch goes on from the
				// conversation entry written before it.
				parent, s.Irregular = s.LastTree, true
			}
		}
		b.place(&r, p, parent, k, s)
		s.Leaf, s.LastTree = p, p
	}
	st.add(r)

	t := tables[E]{st, p}
	t.add(ByID, Hash(e.ID))
	t.add(ByIDText, idTextKey(e.ID))
	st.recent.noteID(e.ID, p)
	if e.Key != "" && k != KindDone {
		t.add(ByKey, Hash(e.Key))
	}
	if e.Session != "" {
		t.add(Sessions, Hash(e.Session))
	}
	for i, sn := range []Snap{e.Snapshot, e.UndoSnapshot} {
		if i == 1 && sn == e.Snapshot {
			continue
		}
		if sn.Set && !st.recent.hasSnap(sn) && len(b.find(FirstSnap, sn.ID[:], p)) == 0 {
			t.add(FirstSnap, sn.ID[:])
			if len(b.find(GoneSnaps, sn.ID[:], p)) == 0 {
				s.Snaps++
			}
		}
		if sn.Set {
			st.recent.noteSnap(sn)
		}
	}
	switch k {
	case KindTurnStart:
		t.add(Prompts, Hash(e.Session, e.Prompt))
		if e.ForkUUID != "" {
			t.add(Forks, Hash(e.ForkUUID))
		}
		b.supersede(s, e.Session, p)
		// A start written again after its end (a repeated line) has ended.
		if len(b.find(Ends, Hash(e.ID), p)) == 0 {
			s.Open = append(s.Open, OpenTurn{Pos: p, Session: e.Session})
		}
	case KindTurnEnd:
		if e.Start != "" {
			t.add(Ends, Hash(e.Start))
			s.Open = slices.DeleteFunc(s.Open, func(o OpenTurn) bool { return idAt(b, o.Pos) == e.Start })
		}
		seen := map[string]bool{}
		for _, path := range e.Paths {
			seen[path] = true
		}
		for path := range seen {
			t.add(Paths, Hash(path))
		}
	case KindCheckpoint:
		if e.Label != "" {
			t.add(Labels, Hash(e.Label))
		}
	case KindUndo:
		if e.Undoes != "" {
			t.add(Undos, Hash(e.Undoes))
		}
	case KindDone:
		if e.Of != "" {
			if len(b.find(Dones, Hash(e.Of), p)) == 0 {
				s.Pending = slices.DeleteFunc(s.Pending, func(x Pos) bool { return idAt(b, x) == e.Of })
			}
			t.add(Dones, Hash(e.Of))
		}
	case KindGC:
		s.GCs++
		for i, g := range e.Gone {
			if len(b.find(GoneSnaps, g[:], p)) > 0 || slices.Contains(e.Gone[:i], g) {
				continue
			}
			t.add(GoneSnaps, g[:])
			if len(b.find(FirstSnap, g[:], p)) > 0 {
				s.Snaps--
			}
		}
	case KindTool:
		if e.Start != "" {
			t.add(Tools, Hash(e.Start))
			if e.Step > 0 {
				t.add(Steps, Hash(e.Start))
			}
		}
		call := []string{e.Session, e.Tool, e.ToolUse}
		if e.ToolUse == "" {
			call = append(call, e.Start) // calls without ids pair up within their turn
		}
		t.add(Calls, Hash(call...))
	}
	if e.InTurn != "" && IsOp(k) {
		t.add(InTurn, Hash(e.InTurn))
	}
	if e.Pending {
		s.Pending = append(s.Pending, p)
	}
	// The last state recorded for the files: an operation counts by its
	// done entry, the state it led to when it applied.
	switch {
	case k == KindDone:
		if e.Snapshot.Set {
			s.Base = e.Snapshot
		}
	case e.Pending:
	case k == KindTurnStart, k == KindTurnEnd, k == KindCheckpoint, IsOp(k):
		if e.Snapshot.Set {
			s.Base = e.Snapshot
		}
	}
}

// supersede notes that turn start p of session follows the open turns of
// the session above it: on a branch holding p, they are no longer open.
func (b *builder[E]) supersede(s *State, session string, p Pos) {
	for i := range s.Open {
		o := &s.Open[i]
		if o.Session == session && isAncestor(b, o.Pos, p) {
			o.Super = append(o.Super, p)
		}
	}
}

// standIn adds the stand-in start of end e, whose start line is lost.
func (b *builder[E]) standIn(s *State, e *Facts, off int64, length int) {
	st := b.st
	p := s.N
	s.N++
	s.Irregular = true
	r := Record{Off: off, Length: uint32(length), Kind: KindTurnStart, Flags: FlagStandIn, Turn: int32(e.Turn),
		Parent: None, Depth: None, Jump: None, TurnAt: None, MarkAt: None, TurnJump: None, PrevSame: s.Heads[KindTurnStart]}
	s.Heads[KindTurnStart] = p
	b.place(&r, p, s.LastTree, KindTurnStart, s)
	s.LastTree = p // the end hangs below it when its parent is its start
	st.add(r)
	b.supersede(s, e.Session, p)
	t := tables[E]{st, p}
	t.add(ByID, Hash(e.Start))
	t.add(ByIDText, idTextKey(e.Start))
	st.recent.noteID(e.Start, p)
	if e.Session != "" {
		t.add(Sessions, Hash(e.Session))
	}
}

// place fills in r's place in the tree below parent (None: a root entry).
func (b *builder[E]) place(r *Record, p, parent Pos, k Kind, s *State) {
	r.Flags |= FlagTree
	r.Parent = parent
	if parent == None {
		r.Depth, r.Jump = 0, p
		r.MaxTurn = 0
	} else {
		pr := b.rec(parent)
		r.Depth = pr.Depth + 1
		r.Jump = parent
		if j := b.rec(pr.Jump); pr.Depth-j.Depth == j.Depth-b.rec(j.Jump).Depth {
			r.Jump = j.Jump
		}
		r.TurnAt, r.MarkAt, r.MaxTurn = pr.TurnAt, pr.MarkAt, pr.MaxTurn
	}
	switch k {
	case KindCheckpoint, KindSummary:
		r.MarkAt = p
	case KindTurnStart:
		prev := r.TurnAt
		r.TurnAt = p
		r.MaxTurn = max(r.MaxTurn, r.Turn)
		if prev == None {
			r.TurnDepth, r.TurnJump = 1, p
			break
		}
		pr := b.rec(prev)
		if r.Turn <= pr.Turn {
			s.Irregular = true // turn numbers do not rise along this branch
		}
		r.TurnDepth = pr.TurnDepth + 1
		r.TurnJump = prev
		if j := b.rec(pr.TurnJump); pr.TurnDepth-j.TurnDepth == j.TurnDepth-b.rec(j.TurnJump).TurnDepth {
			r.TurnJump = j.TurnJump
		}
	}
}

// tables adds the pairs of the entry at p.
type tables[E any] struct {
	st *storage[E]
	p  Pos
}

func (t tables[E]) add(table Table, key []byte) { t.st.mem.addPair(table, key, t.p) }

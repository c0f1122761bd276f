package journal

// How one entry changes the view (apply): its record, the pairs it adds to
// the tables, and the state.

import "slices"

// builder adds entries to a storage. Its reads never rebuild a damaged
// view while it is being extended: they note the damage (err), and the
// caller builds the view again from the journal.
type builder struct {
	st  *storage
	err error
}

func (b *builder) rec(p pos) record {
	r, err := b.st.recOnce(p)
	if err != nil {
		b.fail(err)
		return noRecord
	}
	return r
}

func (b *builder) find(table int, key []byte, before pos) []pos {
	out, err := b.st.findOnce(table, key, key, before)
	if err != nil {
		b.fail(err)
	}
	return out
}

func (b *builder) entryAt(p pos) *Entry {
	e, err := b.st.entryOnce(p)
	if err != nil {
		b.fail(err)
	}
	return e
}

func (b *builder) recentIDs() *recentIDs { return b.st.recent }

func (b *builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// apply adds entry e, whose line is length bytes at off in the journal, to
// the view, changing s (the state up to the entry before it).
func (b *builder) apply(s *viewState, e *Entry, off int64, length int) {
	st := b.st
	k := codeOf(e.Kind)
	if k == kTurnEnd && e.Start != "" && lookupID(b, e.Start, s.N) == none {
		// Its start is a damaged line: a stand-in takes its place, just
		// above the end, where the branch walked from the entry written
		// before it.
		b.standIn(s, e, off, length)
	}
	p := s.N
	s.N++
	r := record{off: off, time: e.Time.UnixNano(), length: uint32(length), kind: k,
		parent: none, depth: none, jump: none, turnAt: none, markAt: none, turn: int32(e.Turn), turnJump: none,
		prevSame: s.Heads[k]}
	if e.Pending {
		r.flags |= fPending
	}
	if e.Snapshot.Set {
		r.flags |= fSnap
	}
	if e.UndoSnapshot.Set {
		r.flags |= fUndoSnap
	}
	if k == kDone && (e.Applied == nil || *e.Applied) {
		r.flags |= fApplied
	}
	s.Heads[k] = p
	if inTree(e.Kind) {
		parent := none
		if e.Parent != "" {
			parent = lookupID(b, e.Parent, p)
			if parent == none || b.rec(parent).flags&fTree == 0 {
				// Its parent is a damaged line: the branch goes on from the
				// conversation entry written before it.
				parent, s.Irregular = s.LastTree, true
			}
		}
		b.place(&r, p, parent, k, s)
		s.Leaf, s.LastTree = p, p
	}
	st.add(r)

	t := tables{st, p}
	t.add(tID, hashKey(string(e.ID)))
	t.add(tIDText, idTextKey(string(e.ID)))
	st.recent.noteID(e.ID, p)
	if e.Key != "" && k != kDone {
		t.add(tKey, hashKey(e.Key))
	}
	if e.Session != "" {
		t.add(tSession, hashKey(e.Session))
	}
	for i, sn := range []Snap{e.Snapshot, e.UndoSnapshot} {
		if i == 1 && sn == e.Snapshot {
			continue
		}
		if sn.Set && !st.recent.hasSnap(sn) && len(b.find(tSnap, sn.ID[:], p)) == 0 {
			t.add(tSnap, sn.ID[:])
			if len(b.find(tGone, sn.ID[:], p)) == 0 {
				s.Snaps++
			}
		}
		if sn.Set {
			st.recent.noteSnap(sn)
		}
	}
	switch k {
	case kTurnStart:
		t.add(tPrompt, hashKey(e.Session, e.Prompt))
		if e.ForkUUID != "" {
			t.add(tFork, hashKey(e.ForkUUID))
		}
		b.supersede(s, e.Session, p)
		// A start written again after its end (a repeated line) has ended.
		if len(b.find(tEnd, hashKey(string(e.ID)), p)) == 0 {
			s.Open = append(s.Open, openTurn{Pos: p, Session: e.Session})
		}
	case kTurnEnd:
		if e.Start != "" {
			t.add(tEnd, hashKey(string(e.Start)))
			s.Open = slices.DeleteFunc(s.Open, func(o openTurn) bool { return idAt(b, o.Pos) == e.Start })
		}
		seen := map[string]bool{}
		for _, c := range e.Changed {
			seen[c.Path] = true
		}
		for _, w := range e.Wrote {
			seen[w] = true
		}
		for path := range seen {
			t.add(tPath, hashKey(path))
		}
	case kCheckpoint:
		if e.Label != "" {
			t.add(tLabel, hashKey(e.Label))
		}
	case kUndo:
		if e.Undoes != "" {
			t.add(tUndo, hashKey(string(e.Undoes)))
		}
	case kDone:
		if e.Of != "" {
			if len(b.find(tDone, hashKey(string(e.Of)), p)) == 0 {
				s.Pending = slices.DeleteFunc(s.Pending, func(x pos) bool { return idAt(b, x) == e.Of })
			}
			t.add(tDone, hashKey(string(e.Of)))
		}
	case kGC:
		s.GCs++
		for i, g := range e.Gone {
			if len(b.find(tGone, g[:], p)) > 0 || slices.Contains(e.Gone[:i], g) {
				continue
			}
			t.add(tGone, g[:])
			if len(b.find(tSnap, g[:], p)) > 0 {
				s.Snaps--
			}
		}
	case kTool:
		if e.Start != "" {
			t.add(tTool, hashKey(string(e.Start)))
			if e.Step > 0 {
				t.add(tStep, hashKey(string(e.Start)))
			}
		}
		call := []string{e.Session, e.Tool, e.ToolUse}
		if e.ToolUse == "" {
			call = append(call, string(e.Start)) // calls without ids pair up within their turn
		}
		t.add(tCall, hashKey(call...))
	}
	if e.InTurn != "" && isOp(k) {
		t.add(tInTurn, hashKey(string(e.InTurn)))
	}
	if e.Pending {
		s.Pending = append(s.Pending, p)
	}
	// The last state recorded for the files: an operation counts by its
	// done entry, the state it led to when it applied.
	switch {
	case k == kDone:
		if e.Snapshot.Set {
			s.Base = e.Snapshot
		}
	case e.Pending:
	case k == kTurnStart, k == kTurnEnd, k == kCheckpoint, isOp(k):
		if e.Snapshot.Set {
			s.Base = e.Snapshot
		}
	}
}

// supersede notes that turn start p of session follows the open turns of
// the session above it: on a branch holding p, they are no longer open.
func (b *builder) supersede(s *viewState, session string, p pos) {
	for i := range s.Open {
		o := &s.Open[i]
		if o.Session == session && isAncestor(b, o.Pos, p) {
			o.Super = append(o.Super, p)
		}
	}
}

// standIn adds the stand-in start of end e, whose start line is lost.
func (b *builder) standIn(s *viewState, e *Entry, off int64, length int) {
	st := b.st
	p := s.N
	s.N++
	s.Irregular = true
	r := record{off: off, length: uint32(length), kind: kTurnStart, flags: fStandIn, turn: int32(e.Turn),
		parent: none, depth: none, jump: none, turnAt: none, markAt: none, turnJump: none, prevSame: s.Heads[kTurnStart]}
	s.Heads[kTurnStart] = p
	b.place(&r, p, s.LastTree, kTurnStart, s)
	s.LastTree = p // the end hangs below it when its parent is its start
	st.add(r)
	b.supersede(s, e.Session, p)
	t := tables{st, p}
	t.add(tID, hashKey(string(e.Start)))
	t.add(tIDText, idTextKey(string(e.Start)))
	st.recent.noteID(e.Start, p)
	if e.Session != "" {
		t.add(tSession, hashKey(e.Session))
	}
}

// place fills in r's place in the tree below parent (none: a root entry).
func (b *builder) place(r *record, p, parent pos, k uint8, s *viewState) {
	r.flags |= fTree
	r.parent = parent
	if parent == none {
		r.depth, r.jump = 0, p
		r.maxTurn = 0
	} else {
		pr := b.rec(parent)
		r.depth = pr.depth + 1
		r.jump = parent
		if j := b.rec(pr.jump); pr.depth-j.depth == j.depth-b.rec(j.jump).depth {
			r.jump = j.jump
		}
		r.turnAt, r.markAt, r.maxTurn = pr.turnAt, pr.markAt, pr.maxTurn
	}
	switch k {
	case kCheckpoint, kSummary:
		r.markAt = p
	case kTurnStart:
		prev := r.turnAt
		r.turnAt = p
		r.maxTurn = max(r.maxTurn, r.turn)
		if prev == none {
			r.turnDepth, r.turnJump = 1, p
			break
		}
		pr := b.rec(prev)
		if r.turn <= pr.turn {
			s.Irregular = true // turn numbers do not rise along this branch
		}
		r.turnDepth = pr.turnDepth + 1
		r.turnJump = prev
		if j := b.rec(pr.turnJump); pr.turnDepth-j.turnDepth == j.turnDepth-b.rec(j.turnJump).turnDepth {
			r.turnJump = j.turnJump
		}
	}
}

// tables adds the pairs of the entry at p.
type tables struct {
	st *storage
	p  pos
}

func (t tables) add(table int, key []byte) { t.st.mem.addPair(table, key, t.p) }

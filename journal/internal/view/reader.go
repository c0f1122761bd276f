package view

// Reader: what the journal's read API (History) asks of the view.

// Reader is the view as of one moment: its first N positions, and the
// state after them. Its lookups never see past N. It is safe for
// concurrent use.
type Reader[E any] struct {
	st *storage[E]
	State
}

// Rec is the record at position p.
func (r *Reader[E]) Rec(p Pos) Record { return r.st.rec(p) }

// Entry is the entry at position p, read from the journal through a cache
// of recent ones; false when p is not one of r's or its line cannot be
// read.
func (r *Reader[E]) Entry(p Pos) (E, bool) {
	if p < 0 || p >= r.N {
		var zero E
		return zero, false
	}
	return r.st.entryAt(p)
}

// IDAt is the id of the entry at p ("" when it cannot be read).
func (r *Reader[E]) IDAt(p Pos) string { return idAt(r.st, p) }

// LookupID is the position of the last entry with id, or None.
func (r *Reader[E]) LookupID(id string) Pos { return lookupID(r.st, id, r.N) }

// Find lists, in journal order, the positions table holds under key.
func (r *Reader[E]) Find(table Table, key []byte) []Pos { return r.st.find(table, key, r.N) }

// Each calls fn with the positions Find lists, in journal order, until it
// returns false: it reads only as far as fn goes.
func (r *Reader[E]) Each(table Table, key []byte, fn func(Pos) bool) {
	r.st.scan(table, key, r.N, false, fn)
}

// EachBack is Each, newest first.
func (r *Reader[E]) EachBack(table Table, key []byte, fn func(Pos) bool) {
	r.st.scan(table, key, r.N, true, fn)
}

// FindPrefix lists, in journal order, the positions table holds under the
// keys that start with prefix.
func (r *Reader[E]) FindPrefix(table Table, prefix []byte) []Pos {
	return r.st.findRange(table, prefix, prefix, r.N)
}

// IsAncestor reports whether a is b or above it in the tree.
func (r *Reader[E]) IsAncestor(a, b Pos) bool { return isAncestor(r.st, a, b) }

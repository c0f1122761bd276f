package view

import "github.com/rewind-lsp/rewind-lsp/store"

// Snap is the state of the files an entry recorded, if any: a snapshot ID
// and whether there is one. The zero Snap is none; the zero ID with Set is
// the empty tree, a state like any other (an empty root).
//
// In JSON it is the snapshot's 64 hex digits, or "" for none (left out
// under omitzero), as the journal has always written snapshot ids.
type Snap struct {
	ID  store.ID
	Set bool
}

// SnapOf is the state id names.
func SnapOf(id store.ID) Snap { return Snap{ID: id, Set: true} }

// IsZero reports whether s names no state.
func (s Snap) IsZero() bool { return !s.Set }

// String is the 64-digit hex form of the snapshot id, or "" for none.
func (s Snap) String() string {
	if !s.Set {
		return ""
	}
	return s.ID.String()
}

// MarshalText is the form String gives.
func (s Snap) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads the form MarshalText writes: 64 hex digits, or ""
// for none.
func (s *Snap) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*s = Snap{}
		return nil
	}
	id, err := store.ParseID(string(text))
	if err != nil {
		return err
	}
	*s = SnapOf(id)
	return nil
}

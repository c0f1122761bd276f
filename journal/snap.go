package journal

import (
	"github.com/rewind-lsp/rewind-lsp/journal/internal/view"
	"github.com/rewind-lsp/rewind-lsp/store"
)

// Snap is the state of the files an entry recorded, if any: a snapshot ID
// and whether there is one. The zero Snap is none; the zero ID with Set is
// the empty tree, a state like any other (an empty root).
//
// In JSON it is the snapshot's 64 hex digits, or "" for none (left out
// under omitzero), as the journal has always written snapshot ids. It is
// defined with the view, which keeps the last one recorded (Baseline).
type Snap = view.Snap

// SnapOf is the state id names.
func SnapOf(id store.ID) Snap { return view.SnapOf(id) }

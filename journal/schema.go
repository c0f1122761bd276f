package journal

// How the view (package view: the journal's storage engine) reads this
// package's entries: a line decoded, and what the view takes of an entry.

import "github.com/rewind-lsp/rewind-lsp/journal/internal/view"

// pos is where an entry is in the view: its number in journal order.
type pos = view.Pos

const none = view.None

var kindCode = map[Kind]view.Kind{KindSession: view.KindSession, KindTurnStart: view.KindTurnStart, KindTurnEnd: view.KindTurnEnd,
	KindCheckpoint: view.KindCheckpoint, KindRewind: view.KindRewind, KindUndo: view.KindUndo, KindSummary: view.KindSummary,
	KindGC: view.KindGC, KindTool: view.KindTool, KindNotice: view.KindNotice, KindDone: view.KindDone, KindRevert: view.KindRevert}

// codeOf is kind as the view's records keep it (view.KindOther: a kind
// this version does not know).
func codeOf(kind Kind) view.Kind { return kindCode[kind] }

// schema is view.Schema for the journal's entries.
type schema struct{}

func (schema) Decode(line []byte) (*Entry, error) { return decodeLine(line) }

func (schema) ID(e *Entry) string { return string(e.ID) }

func (schema) Placed(e *Entry, p view.Pos) { e.pos = p + 1 }

// StandIn is the turn start History makes up for one lost to a damaged
// line: its id, turn number and session from its end.
func (schema) StandIn(end *Entry, parent string) *Entry {
	return &Entry{ID: end.Start, Kind: KindTurnStart, Turn: end.Turn, Session: end.Session, Damaged: true, Parent: EntryID(parent)}
}

func (schema) Facts(e *Entry) view.Facts {
	f := view.Facts{Kind: codeOf(e.Kind), ID: string(e.ID), Parent: string(e.Parent), Start: string(e.Start),
		Time: e.Time.UnixNano(), Pending: e.Pending, Applied: e.Applied == nil || *e.Applied,
		Snapshot: e.Snapshot, UndoSnapshot: e.UndoSnapshot, Turn: e.Turn, Step: e.Step,
		Key: e.Key, Session: e.Session, Prompt: e.Prompt, ForkUUID: e.ForkUUID, Label: e.Label,
		Tool: e.Tool, ToolUse: e.ToolUse, Undoes: string(e.Undoes), Of: string(e.Of), InTurn: string(e.InTurn), Gone: e.Gone}
	if e.Kind == KindTurnEnd {
		for _, c := range e.Changed {
			f.Paths = append(f.Paths, c.Path)
		}
		f.Paths = append(f.Paths, e.Wrote...)
	}
	return f
}

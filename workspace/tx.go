package workspace

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// Caller is who makes a request: one record every request embeds.
type Caller struct {
	Actor string // who records: cli, hook, editor, mcp, acp, server
	// Key is the call's idempotency key: a call the journal holds under
	// it already is answered from what was recorded then.
	Key string
	// Session is the agent session the request comes from, when an agent
	// makes it: during that session's open turn an operation is the
	// agent's own (ownturn.go).
	Session string
	// Via decides how each file of an operation reaches the disk (nil: the
	// command line's, which writes every file itself).
	Via *ViaPolicy
	// Touched says whether an editor saved rel or holds it unsaved since
	// then (nil on the command line: no editor known).
	Touched func(rel string, since time.Time) bool
}

// Tx is one transaction of the journal, the one way anything changes it,
// as a bolt database's Update or a jj transaction: the journal's exclusive
// lock, the history read under it (again after each append), the captures
// of the root made under it (a transaction that captured runs automatic
// retention when it ends), and the appends. A call's idempotency key is
// checked once, when the transaction starts: Recorded is what a call made
// under the key before (its answer was lost), and Append puts the key on
// the call's own entry, never on a second one. Package live, notices and
// maintenance record through it too.
type Tx struct {
	ws       *Workspace
	ctx      context.Context
	l        *journal.Lock
	h        *journal.History
	key      string
	made     func(*journal.Entry) bool // what the call records under key
	recorded *journal.Entry            // what a call under key recorded before
	keyed    bool                      // the key is on an entry of this transaction
	finished int                       // the unfinished operations recover finished
	captured bool                      // the root was captured under the lock
}

// Fault (tests only) is called where an answer may be lost: before an
// append ("append"), after it ("appended"), after an operation's files
// were written ("applied"); its error ends the transaction there.
var Fault func(point string, e *journal.Entry) error

func fault(point string, e *journal.Entry) error {
	if Fault == nil {
		return nil
	}
	return Fault(point, e)
}

// Update runs fn as one transaction. An operation a killed process left
// unfinished is finished first (recover), so fn never sees one. With key
// set, the entry a call made under it before that made accepts (the
// call's own kind of entry: Kinds) is tx.Recorded(). A journal's error
// about what a request names is an argument error of the request's target.
func (s *Workspace) Update(ctx context.Context, key string, made func(*journal.Entry) bool, fn func(tx *Tx) error) error {
	l, err := s.journal.LockContext(ctx)
	if err != nil {
		return err
	}
	defer l.Unlock()
	h, err := s.History()
	if err != nil {
		return err
	}
	tx := &Tx{ws: s, ctx: ctx, l: l, h: h}
	if err := s.recover(tx); err != nil {
		return err
	}
	if tx.key, tx.made = key, made; made == nil {
		tx.key = ""
	}
	for _, e := range tx.h.Keyed(tx.key) {
		if made(e) {
			tx.recorded = e
			break
		}
	}
	if err := fn(tx); err != nil {
		var ut *journal.UnknownTargetError
		if errors.As(err, &ut) {
			return &ArgError{Field: "target", Msg: ut.Error()}
		}
		return err
	}
	s.mu.Lock()
	r := s.retainer
	s.mu.Unlock()
	if tx.captured && r != nil {
		r.AfterCapture(tx) // automatic retention, when a capture grew the store past its bounds
	}
	return nil
}

// record runs fn as one transaction under key and answers the entry fn
// records (its kind: kind); a call under key that recorded one before (a
// retry) is answered with that entry, and fn does not run.
func (s *Workspace) record(ctx context.Context, key string, kind journal.Kind, fn func(tx *Tx) (*journal.Entry, error)) (*journal.Entry, error) {
	var out *journal.Entry
	err := s.Update(ctx, key, Kinds(kind), func(tx *Tx) (err error) {
		if out = tx.Recorded(); out == nil {
			out, err = fn(tx)
		}
		return err
	})
	return out, err
}

// Kinds accepts the entries of kinds: what a call records, for Update.
func Kinds(kinds ...journal.Kind) func(*journal.Entry) bool {
	return func(e *journal.Entry) bool { return slices.Contains(kinds, e.Kind) }
}

// History is the journal as the transaction sees it: read under the lock,
// and again after each append.
func (tx *Tx) History() *journal.History { return tx.h }

// Recorded is the entry the call made under the transaction's key before
// (a retry: what it did then is the answer), or nil.
func (tx *Tx) Recorded() *journal.Entry { return tx.recorded }

// Objects is the workspace's object store.
func (tx *Tx) Objects() *snapshot.Objects { return tx.ws.objects }

// Append appends e. The first entry of the call's own kind carries the
// call's key; a call the journal holds already appends none again.
func (tx *Tx) Append(e *journal.Entry) error {
	if tx.recorded != nil && e.Kind == tx.recorded.Kind {
		return errors.New("internal error: a call retried under its key recorded its " + string(e.Kind) + " again")
	}
	if tx.key != "" && !tx.keyed && tx.recorded == nil && tx.made(e) {
		e.Key, tx.keyed = tx.key, true
	}
	if err := fault("append", e); err != nil {
		return err
	}
	if err := tx.l.Append(e); err != nil {
		return err
	}
	if err := fault("appended", e); err != nil {
		return err
	}
	h, err := tx.ws.History()
	if err != nil {
		return err
	}
	tx.h = h
	return nil
}

// Capture captures the root: through the live tracking when there is one,
// with overlay's buffers when given.
func (tx *Tx) Capture(overlay snapshot.Overlay) (*snapshot.Result, error) {
	res, err := tx.ws.capture(tx.ctx, tx.h, overlay)
	if err == nil {
		tx.captured = true
	}
	return res, err
}

// StartTurn opens a turn of req's session with start state res: the same
// session's turn still open ends first with res as its end, and so does an
// automatic turn; other sessions' turns stay open.
func (tx *Tx) StartTurn(req TurnRequest, res *snapshot.Result) (*journal.Entry, error) {
	if err := tx.EndOpenTurns(res, req.Actor, func(open *journal.Entry) bool {
		return open.Session == req.Session || open.Source == journal.SourceAuto
	}); err != nil {
		return nil, err
	}
	e := journal.NewTurnStart(tx.h.Leaf(), tx.h.NextTurn(), req.Session, req.Source, journal.SnapOf(res.ID))
	e.Actor, e.Prompt, e.Agent, e.Transcript, e.PromptID = req.Actor, req.Prompt, req.Agent, req.Transcript, req.PromptID
	if req.Fork != nil {
		e.ForkPoint = *req.Fork
	}
	return e, tx.Append(e)
}

// EndTurn appends the end of open turn start with res as its end state,
// and returns the entry. The files the session's tool calls wrote during
// the turn (tool entries) are summed up on it.
func (tx *Tx) EndTurn(start *journal.Entry, res *snapshot.Result, req TurnRequest) (*journal.Entry, error) {
	changed, err := tx.ws.Changes(start.Snapshot.ID, res.ID)
	if err != nil {
		return nil, err
	}
	e := journal.NewTurnEnd(tx.h.Leaf(), start, journal.SnapOf(res.ID), changed)
	e.Actor, e.Summary = req.Actor, req.Summary
	if req.Fork != nil && start.Transcript != "" {
		e.ForkPoint = *req.Fork
	}
	if err := tx.ws.attribute(tx.h, start, res, e); err != nil {
		return nil, err
	}
	return e, tx.Append(e)
}

// EndOpenTurns ends the open turns that end accepts (nil: every one) with
// the capture res (an operation does this first, so each session's work is
// recorded before files change, except an agent's own operation's turn).
func (tx *Tx) EndOpenTurns(res *snapshot.Result, actor string, end func(open *journal.Entry) bool) error {
	for _, open := range tx.h.OpenTurns() {
		if end != nil && !end(open) {
			continue
		}
		if _, err := tx.EndTurn(open, res, TurnRequest{Caller: Caller{Actor: actor}}); err != nil {
			return err
		}
	}
	return nil
}

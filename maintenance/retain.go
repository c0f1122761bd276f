package maintenance

import (
	"context"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// DefaultRetention bounds every store that sets nothing else: 2 GiB of
// objects per root and snapshots referenced within 30 days. Pinned
// snapshots (labeled checkpoints, the undo snapshots of the latest
// rewinds, open turns, the last recorded state) are kept whatever the
// bounds.
var DefaultRetention = Retention{MaxBytes: 2 << 30, MaxAge: 30 * 24 * time.Hour}

// retentionFile records the last automatic retention: when it ran and the
// objects' size it left.
const retentionFile = "retention"

// retainEvery is how often the age bound is applied automatically (the
// byte budget is checked after every capture, which costs a listing of
// the packs folder).
const retainEvery = 24 * time.Hour

// Maintainer keeps one root's store within its bounds: automatic
// retention after captures (AfterCapture, under the journal lock), gc and
// fsck on request.
type Maintainer struct {
	w         Store
	retention Retention
}

// Store is what maintenance needs of a workspace (a *workspace.Workspace):
// its store, its transactions, and the place of what runs after a
// transaction that captured.
type Store interface {
	Dir() string
	Objects() *snapshot.Objects
	Journal() *journal.Journal
	Update(ctx context.Context, key string, made func(*journal.Entry) bool, fn func(tx *workspace.Tx) error) error
	ResetCaches()
	SetRetainer(r workspace.Retainer)
}

// New returns the maintainer of w, keeping it within r, and sets it to run
// after w's transactions that captured.
func New(w Store, r Retention) *Maintainer {
	m := &Maintainer{w: w, retention: r}
	w.SetRetainer(m)
	return m
}

// Retention is the bounds automatic retention keeps the store within.
func (m *Maintainer) Retention() Retention { return m.retention }

// AfterCapture runs automatic retention when the store is past its bounds,
// at the end of transaction tx, which captured. It is cheap when it is
// not: a listing of the packs folder and a small file read. A failure is
// said on stderr (the log, in a server) and fails nothing.
func (m *Maintainer) AfterCapture(tx *workspace.Tx) {
	r := m.Retention()
	if r.MaxBytes <= 0 && r.MaxAge <= 0 {
		return
	}
	last, lastBytes := m.readRetention()
	bytes := m.w.Objects().Bytes()
	now := time.Now()
	due := false
	target := Retention{MaxAge: r.MaxAge}
	switch {
	case r.MaxBytes > 0 && bytes > r.MaxBytes && (lastBytes <= r.MaxBytes || bytes > lastBytes+r.MaxBytes/10):
		// Over budget: drop to three quarters of it (retainLocked), so
		// retention does not run again at the next turn. When pinned
		// snapshots alone keep it over, only a tenth of the budget's
		// growth since the last run starts another.
		due = true
		target.MaxBytes = r.MaxBytes
	case now.Sub(last) > retainEvery && (r.MaxAge > 0 || m.w.Objects().HasLoose()):
		// Once a day: the age bound, and a store from before packs gets
		// its loose objects repacked (the store is within its budget).
		due = true
	}
	if !due {
		return
	}
	if target.MaxBytes == 0 && !m.w.Objects().HasLoose() {
		// Nothing is old enough to drop: only note the check.
		if oldest := tx.History().Oldest(); oldest.IsZero() || now.Sub(oldest) <= r.MaxAge {
			m.writeRetention(now, bytes)
			return
		}
	}
	if _, err := m.retainLocked(tx, target, false); err != nil {
		fmt.Fprintf(os.Stderr, "rewind-lsp: automatic retention of %s: %v\n", m.w.Dir(), err)
		m.writeRetention(now, bytes) // not again at every turn
		return
	}
	m.writeRetention(now, m.w.Objects().Bytes())
}

func (m *Maintainer) readRetention() (time.Time, int64) {
	data, err := os.ReadFile(filepath.Join(m.w.Dir(), retentionFile))
	if err != nil {
		return time.Time{}, 0
	}
	f := strings.Fields(string(data))
	if len(f) != 2 {
		return time.Time{}, 0
	}
	sec, err1 := strconv.ParseInt(f[0], 10, 64)
	n, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return time.Time{}, 0
	}
	return time.Unix(sec, 0), n
}

func (m *Maintainer) writeRetention(t time.Time, bytes int64) {
	os.WriteFile(filepath.Join(m.w.Dir(), retentionFile), []byte(fmt.Sprintf("%d %d\n", t.Unix(), bytes)), 0o600)
}

package workspace

import (
	"fmt"
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

// SetRetention sets the bounds automatic retention keeps the store within
// (zero fields: no bound).
func (s *Workspace) SetRetention(r Retention) {
	s.mu.Lock()
	s.retention = r
	s.mu.Unlock()
}

// Retention is the bounds automatic retention keeps the store within.
func (s *Workspace) Retention() Retention {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retention
}

// afterWrite runs automatic retention when a capture happened under the
// lock and the store is past its bounds. It is cheap when it is not: a
// listing of the packs folder and a small file read. A failure is said
// on stderr (the log, in a server) and fails nothing.
func (s *Workspace) afterWrite(l *journal.Lock) {
	s.mu.Lock()
	captured := s.captured
	s.captured = false
	r := s.retention
	s.mu.Unlock()
	if !captured || (r.MaxBytes <= 0 && r.MaxAge <= 0) {
		return
	}
	last, lastBytes := s.readRetention()
	bytes := s.objects.Bytes()
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
	case now.Sub(last) > retainEvery && (r.MaxAge > 0 || s.objects.HasLoose()):
		// Once a day: the age bound, and a store from before packs gets
		// its loose objects repacked (the store is within its budget).
		due = true
	}
	if !due {
		return
	}
	h, err := s.History()
	if err == nil && target.MaxBytes == 0 && !s.objects.HasLoose() {
		// Nothing is old enough to drop: only note the check.
		if oldest := h.Oldest(); oldest.IsZero() || now.Sub(oldest) <= r.MaxAge {
			s.writeRetention(now, bytes)
			return
		}
	}
	if err == nil {
		_, err = s.retainLocked(l, h, target, false)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "rewind-lsp: automatic retention of %s: %v\n", s.dir, err)
		s.writeRetention(now, bytes) // not again at every turn
		return
	}
	s.writeRetention(now, s.objects.Bytes())
}

func (s *Workspace) readRetention() (time.Time, int64) {
	data, err := os.ReadFile(filepath.Join(s.dir, retentionFile))
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

func (s *Workspace) writeRetention(t time.Time, bytes int64) {
	os.WriteFile(filepath.Join(s.dir, retentionFile), []byte(fmt.Sprintf("%d %d\n", t.Unix(), bytes)), 0o600)
}

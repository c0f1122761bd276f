package gitnotes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rewind-lsp/rewind-lsp/osfile"
)

// Write puts a's notes on its commit: the Git AI authorship log on
// GitAIRef and the Agent Trace record (written by rewind-lsp version) on
// TraceRef, each in place of the note the commit had there. Only those two
// refs move. A merge gets no notes (Attestation.Merge).
//
// `git notes add` moves its ref without checking what it moved from, so
// two writers at once (two worktrees committing) would lose one's note:
// the writers of a repository take turns on a lock file beside its refs.
func Write(ctx context.Context, r Repo, a *Attestation, version string) error {
	if a.Merge {
		return nil
	}
	notes := []struct {
		ref  string
		data []byte
	}{{GitAIRef, GitAI(a).Marshal()}, {TraceRef, TraceRecord(a, version).Marshal()}}
	blobs := make([]string, len(notes))
	errs := make([]error, len(notes))
	var wg sync.WaitGroup
	for i, n := range notes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := r.git(ctx, n.data, "hash-object", "-w", "--stdin")
			blobs[i], errs[i] = strings.TrimSpace(string(out)), err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	unlock, err := r.lockNotes(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	for i, n := range notes {
		if err := r.addNoteBlob(ctx, n.ref, a.Commit, blobs[i]); err != nil {
			return err
		}
	}
	return nil
}

// AddNote makes data commit's note on ref, in place of any it had: the
// bytes exactly as given (a blob of its own, not git's cleaned-up message).
// Only ref moves.
func (r Repo) AddNote(ctx context.Context, ref, commit string, data []byte) error {
	blob, err := r.git(ctx, data, "hash-object", "-w", "--stdin")
	if err != nil {
		return err
	}
	unlock, err := r.lockNotes(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return r.addNoteBlob(ctx, ref, commit, strings.TrimSpace(string(blob)))
}

// addNoteBlob makes blob commit's note on ref. A ref another program holds
// locked is tried again until ctx ends.
func (r Repo) addNoteBlob(ctx context.Context, ref, commit, blob string) error {
	for {
		_, err := r.git(ctx, nil, "notes", "--ref", ref, "add", "-f", "-C", blob, commit)
		if err == nil || !strings.Contains(err.Error(), "lock") {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// lockNotes takes the repository's notes lock (rewind-lsp-notes.lock in its
// common git folder, shared by its worktrees), waiting until ctx ends. The
// lock goes with the process that holds it, however it ends.
func (r Repo) lockNotes(ctx context.Context) (unlock func(), err error) {
	dir, err := r.line(ctx, "rev-parse", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(r.Dir, dir)
	}
	f, err := os.OpenFile(filepath.Join(dir, "rewind-lsp-notes.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		ok, err := osfile.TryLock(f, osfile.Exclusive)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			return func() { osfile.Unlock(f); f.Close() }, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

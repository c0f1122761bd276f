package gitnotes

import (
	"context"
	"strings"
)

// Rewrite is one commit a rewrite of history replaced: Old by New.
type Rewrite struct{ Old, New string }

// ParseRewrites reads what git gives its post-rewrite hook: a line
// "OLD NEW [EXTRA]" per rewritten commit.
func ParseRewrites(data []byte) []Rewrite {
	var out []Rewrite
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			out = append(out, Rewrite{Old: f[0], New: f[1]})
		}
	}
	return out
}

// Amended removes the notes of each commit `commit --amend` replaced,
// once its replacement has its own (the post-commit hook wrote them). Only
// the two notes refs move.
func Amended(ctx context.Context, r Repo, rw []Rewrite) error {
	if len(rw) == 0 {
		return nil
	}
	unlock, err := r.lockNotes(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	for _, x := range rw {
		if _, ok, err := r.Note(ctx, GitAIRef, x.New); err != nil || !ok {
			continue
		}
		for _, ref := range []string{GitAIRef, TraceRef} {
			if _, ok, err := r.Note(ctx, ref, x.Old); err != nil || !ok {
				continue
			}
			if _, err := r.git(ctx, nil, "notes", "--ref", ref, "remove", "--ignore-missing", x.Old); err != nil {
				return err
			}
		}
	}
	return nil
}

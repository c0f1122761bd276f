package gitnotes

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// testRepo is a new repository with n commits, returned oldest first.
func testRepo(t *testing.T, n int) (Repo, []string) {
	t.Helper()
	dir := t.TempDir()
	r := Repo{Dir: dir, Env: []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_AUTHOR_NAME=Pat", "GIT_AUTHOR_EMAIL=pat@example.com", "GIT_COMMITTER_NAME=Pat", "GIT_COMMITTER_EMAIL=pat@example.com"}}
	ctx := context.Background()
	if _, err := r.git(ctx, nil, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	var commits []string
	for i := range n {
		if _, err := r.git(ctx, nil, "commit", "-q", "--allow-empty", "-m", fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(ctx, "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		commits = append(commits, c)
	}
	return r, commits
}

// TestWriteConcurrentKeepsEveryNote: writers of many commits at once (two
// worktrees committing together) lose none of each other's notes, and a
// note's bytes are kept exactly.
func TestWriteConcurrentKeepsEveryNote(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	r, commits := testRepo(t, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, len(commits))
	for _, c := range commits {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- Write(ctx, r, &Attestation{Commit: c, Time: time.Now()}, "test")
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range commits {
		for _, ref := range []string{GitAIRef, TraceRef} {
			data, ok, err := r.Note(ctx, ref, c)
			if err != nil || !ok {
				t.Errorf("%s has no note on %s: %v", c, ref, err)
			}
			if ref == GitAIRef && !strings.Contains(string(data), c) {
				t.Errorf("%s's note is %q", c, data)
			}
		}
	}
	exact := []byte("  leading spaces\n\n\n# not a comment\ntrailing  \n")
	if err := r.AddNote(ctx, GitAIRef, commits[0], exact); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := r.Note(ctx, GitAIRef, commits[0]); string(got) != string(exact) {
		t.Errorf("the note's bytes became %q", got)
	}
}

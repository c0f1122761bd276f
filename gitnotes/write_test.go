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

// TestExplainForeignNote: a Git AI note written by hand the way git-ai
// writes one (a bare prompt key, a person's key) is explained from its
// metadata: the agent and model of its prompt, the person, the rest
// unattested.
func TestExplainForeignNote(t *testing.T) {
	r, _ := testRepo(t, 0)
	ctx := context.Background()
	if err := os.WriteFile(r.Dir+"/main.go", []byte("1\n2\n3\n4\n5\n6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.git(ctx, nil, "add", "main.go"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.git(ctx, nil, "commit", "-q", "-m", "m"); err != nil {
		t.Fatal(err)
	}
	c, _ := r.Resolve(ctx, "HEAD")
	note := "main.go\n  h_dca485b1adf836 1-2\n  d4a7828bfdafe456 3-4\n---\n" +
		`{"schema_version":"authorship/3.0.0","git_ai_version":"1.3.4","base_commit_sha":"` + c + `","prompts":{"d4a7828bfdafe456":{"agent_id":{"tool":"claude","id":"x","model":"claude-opus-4-7"}}},"humans":{"h_dca485b1adf836":{"author":"Pat <pat@example.com>"}}}`
	if err := r.AddNote(ctx, GitAIRef, c, []byte(note)); err != nil {
		t.Fatal(err)
	}
	ex, err := Explain(ctx, r, "HEAD", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Added != 6 || ex.HumanLines != 2 || ex.AgentLines != 2 || ex.UnattestedLines != 2 {
		t.Errorf("explain: %+v", ex)
	}
	if len(ex.Sessions) != 1 || ex.Sessions[0].Agent != "claude" || ex.Sessions[0].Model != "claude-opus-4-7" || ex.Sessions[0].Lines != 2 {
		t.Errorf("sessions: %+v", ex.Sessions)
	}
	if len(ex.Files) != 1 || ex.Files[0].Ranges[0].Human != "Pat <pat@example.com>" {
		t.Errorf("files: %+v", ex.Files)
	}

	if err := r.AddNote(ctx, GitAIRef, c, []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	ex, err = Explain(ctx, r, "HEAD", nil)
	if err != nil || len(ex.Warnings) != 1 || !strings.Contains(ex.Warnings[0], c) || ex.UnattestedLines != 6 {
		t.Errorf("a damaged note: %v, %+v", err, ex)
	}
}

// TestHints: the trailers that name an agent are hints; a person's
// Co-authored-by and other trailers are not.
func TestHints(t *testing.T) {
	r, _ := testRepo(t, 0)
	ctx := context.Background()
	msg := "m\n\nCo-authored-by: Claude <noreply@anthropic.com>\nCo-authored-by: Sam <sam@example.com>\nAssisted-by: codex:gpt-5\nClaude-Session: abc\nSigned-off-by: Pat <pat@example.com>\n"
	if _, err := r.git(ctx, nil, "commit", "-q", "--allow-empty", "-m", msg); err != nil {
		t.Fatal(err)
	}
	got, err := Hints(ctx, r, "HEAD", func(email string) string {
		if email == "noreply@anthropic.com" {
			return "claude-code"
		}
		return ""
	})
	want := []string{"Co-authored-by: Claude <noreply@anthropic.com>", "Assisted-by: codex:gpt-5", "Claude-Session: abc"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Hints = %q, %v; want %q", got, err, want)
	}
}

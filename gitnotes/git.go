package gitnotes

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// The notes refs rewind-lsp writes, and the only refs it writes.
const (
	// GitAIRef holds the Git AI authorship logs.
	GitAIRef = "refs/notes/ai"
	// TraceRef holds the Agent Trace records.
	TraceRef = "refs/notes/agent-trace"
)

// Repo is a git repository as its own git command sees it from Dir (a
// folder of its work tree).
type Repo struct {
	Dir string
	// Env is added to the environment git runs with (nil: this process's).
	Env []string
}

// git runs git with args in r.Dir, stdin as its input, and returns its
// standard output; a failure names the command and what git said.
func (r Repo) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.Dir
	if r.Env != nil {
		cmd.Env = append(cmd.Environ(), r.Env...)
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out.Bytes(), nil
}

// line runs git and returns its output's first line.
func (r Repo) line(ctx context.Context, args ...string) (string, error) {
	out, err := r.git(ctx, nil, args...)
	if err != nil {
		return "", err
	}
	s, _, _ := strings.Cut(string(out), "\n")
	return s, nil
}

// Resolve is the full object name of the commit rev names.
func (r Repo) Resolve(ctx context.Context, rev string) (string, error) {
	return r.line(ctx, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
}

// Prefix is where r.Dir lies in its work tree ("" at the top, else
// "sub/dir/"), as git names paths.
func (r Repo) Prefix(ctx context.Context) (string, error) {
	out, err := r.git(ctx, nil, "rev-parse", "--show-prefix")
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// commitParents is the full name of the commit rev names and its
// parents, first parent first (one git process).
func (r Repo) commitParents(ctx context.Context, rev string) (string, []string, error) {
	s, err := r.line(ctx, "rev-list", "--parents", "-n", "1", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", nil, err
	}
	f := strings.Fields(s)
	if len(f) == 0 {
		return "", nil, fmt.Errorf("no commit %s", rev)
	}
	return f[0], f[1:], nil
}

// Note is commit's note on ref, and false when it has none.
func (r Repo) Note(ctx context.Context, ref, commit string) ([]byte, bool, error) {
	if _, err := r.git(ctx, nil, "rev-parse", "--verify", "--quiet", ref); err != nil {
		return nil, false, nil // no notes ref yet
	}
	list, err := r.git(ctx, nil, "notes", "--ref", ref, "list", commit)
	if err != nil {
		return nil, false, nil // git says "no note found"
	}
	blob := strings.TrimSpace(string(list))
	out, err := r.git(ctx, nil, "cat-file", "blob", blob)
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}

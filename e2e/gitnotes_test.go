package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/rewind-lsp/rewind-lsp/gitnotes"
)

// validTrace checks an Agent Trace record against the v1 schema as
// gitnotes/testdata holds it.
func validTrace(t *testing.T, record string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "gitnotes", "testdata", "trace-record.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal([]byte(record), &v); err != nil {
		t.Fatalf("the record is not JSON: %v\n%s", err, record)
	}
	if err := rs.Validate(v); err != nil {
		t.Errorf("the Agent Trace record does not validate: %v\n%s", err, record)
	}
}

// gitEnv is the environment git runs with in these tests: the sandbox's,
// with no user or system git configuration.
func (w *ws) gitEnv() []string {
	return w.Env("HOME="+w.Home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(w.Home, "gitconfig"),
		"GIT_AUTHOR_NAME=Pat", "GIT_AUTHOR_EMAIL=pat@example.com", "GIT_COMMITTER_NAME=Pat", "GIT_COMMITTER_EMAIL=pat@example.com")
}

// gitIn runs git in w's root with stdin and returns its output; a failure
// fails the test.
func (w *ws) gitIn(stdin string, args ...string) string {
	w.t.Helper()
	c := exec.Command("git", args...)
	c.Dir, c.Env = w.Root, w.gitEnv()
	c.Stdin = strings.NewReader(stdin)
	out, err := c.CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (w *ws) git(args ...string) string { w.t.Helper(); return w.gitIn("", args...) }

// newGitWS is a sandbox whose root is a new git repository (git init with
// initArgs) with rewind-lsp's post-commit hook installed.
func newGitWS(t *testing.T, initArgs ...string) *ws {
	t.Helper()
	w := newWS(t)
	w.git(append([]string{"init", "-q"}, initArgs...)...)
	w.ok("setup", "git")
	return w
}

const gitSession = "aaaaaaaa-1111-4111-8111-222222222222"

// notes reads back HEAD's (or rev's) Git AI note.
func (w *ws) gitAINote(rev string) *gitnotes.GitAINote {
	w.t.Helper()
	n, err := gitnotes.ParseGitAI([]byte(w.git("notes", "--ref", gitnotes.GitAIRef, "show", rev)))
	if err != nil {
		w.t.Fatalf("%s's Git AI note: %v", rev, err)
	}
	return n
}

// attested lists the lines of path the note attests, ascending.
func attested(n *gitnotes.GitAINote, path string) []int {
	out := []int{}
	for l := range n.Lines(path) {
		out = append(out, l)
	}
	sort.Ints(out)
	return out
}

// wantLines checks the note against the committed content line by line:
// exactly the lines of want are attested, each to a step of the Claude
// Code session.
func (w *ws) wantLines(n *gitnotes.GitAINote, rev, path string, want ...int) {
	w.t.Helper()
	if want == nil {
		want = []int{}
	}
	got := attested(n, path)
	if !reflect.DeepEqual(got, want) {
		committed := w.git("show", rev+":"+path)
		w.t.Errorf("%s: %s attests lines %v, want %v; committed:\n%s", rev, path, got, want, committed)
	}
	for l, key := range n.Lines(path) {
		s, ok := n.Metadata.Sessions[strings.Split(key, "::")[0]]
		if !ok || s.AgentID.Tool != "claude" || s.AgentID.ID != gitSession || s.AgentID.Model != "unknown" {
			w.t.Errorf("%s: %s line %d: key %s names session %+v", rev, path, l, key, s)
		}
		if !strings.HasPrefix(key, "s_") || !strings.Contains(key, "::t_") || len(key) != 2+14+4+14 {
			w.t.Errorf("%s: %s line %d: key %q is not s_<14 hex>::t_<14 hex>", rev, path, l, key)
		}
	}
}

// TestGitNotesPersonEditsAgentLine: an agent writes three lines, the
// person changes the middle one and adds one of their own before
// committing: the note attests lines 1 and 3 to the agent's step, the
// others are unattested; explain --json splits the commit's lines so.
func TestGitNotesPersonEditsAgentLine(t *testing.T) {
	w := newGitWS(t)
	A := w.claude(gitSession, claudeProjects(t, w))
	A.event("SessionStart", "source", "startup")
	A.prompt("write f")
	A.write("f.txt", "one\ntwo\nthree\n")
	A.stop()
	w.Write("f.txt", "one\nTWO by hand\nthree\nfour by hand\n")
	w.git("add", "f.txt")
	w.git("commit", "-q", "-m", "initial") // also: a root commit
	n := w.gitAINote("HEAD")
	w.wantLines(n, "HEAD", "f.txt", 1, 3)
	if head := strings.TrimSpace(w.git("rev-parse", "HEAD")); n.Metadata.BaseCommitSHA != head || n.Metadata.SchemaVersion != "authorship/3.0.0" {
		t.Errorf("metadata %+v, want base_commit_sha %s", n.Metadata, head)
	}

	var ex struct {
		Commit   string
		Sessions []struct {
			Agent, Model, Session string
			Turns                 []struct {
				Turn   int
				Prompt string
				Steps  []struct {
					Step int
					Tool string
				}
			}
			Lines int
		}
		Files []struct {
			Path   string
			Ranges []struct {
				Start, End, Turn, Step int
				Agent, Session, Tool   string
			}
		}
		Added, AgentLines, HumanLines, UnattestedLines int
		Hints                                          []string
	}
	w.okJSON(&ex, "explain")
	if ex.Added != 4 || ex.AgentLines != 2 || ex.HumanLines != 0 || ex.UnattestedLines != 2 || ex.Hints == nil {
		t.Errorf("explain: added %d, agent %d, human %d, unattested %d, hints %v", ex.Added, ex.AgentLines, ex.HumanLines, ex.UnattestedLines, ex.Hints)
	}
	if len(ex.Sessions) != 1 || ex.Sessions[0].Agent != "claude-code" || ex.Sessions[0].Session != gitSession || ex.Sessions[0].Lines != 2 ||
		len(ex.Sessions[0].Turns) != 1 || len(ex.Sessions[0].Turns[0].Steps) != 1 || ex.Sessions[0].Turns[0].Steps[0].Tool != "Write" || ex.Sessions[0].Turns[0].Prompt != "write f" {
		t.Errorf("explain's sessions: %+v", ex.Sessions)
	}
	if len(ex.Files) != 1 || len(ex.Files[0].Ranges) != 2 || ex.Files[0].Ranges[0].Start != 1 || ex.Files[0].Ranges[0].End != 1 ||
		ex.Files[0].Ranges[1].Start != 3 || ex.Files[0].Ranges[0].Step != 1 || ex.Files[0].Ranges[0].Tool != "Write" {
		t.Errorf("explain's files: %+v", ex.Files)
	}
}

// TestGitNotesPartialStaging: the agent adds a line at the top and one at
// the bottom; the person stages only the top hunk (git add -p, here git
// apply --cached of that hunk) and commits, then commits the rest: each
// commit attests only the lines it committed.
func TestGitNotesPartialStaging(t *testing.T) {
	w := newGitWS(t)
	base := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n"
	w.Write("f.txt", base)
	w.git("add", "f.txt")
	w.git("commit", "-q", "-m", "base")
	if n := w.gitAINote("HEAD"); len(n.Files) != 0 {
		t.Errorf("a commit no turn wrote attests %v", n.Files)
	}
	A := w.claude(gitSession, claudeProjects(t, w))
	A.prompt("top and bottom")
	A.write("f.txt", "top\n"+base+"bottom\n")
	A.stop()
	diff := w.git("diff", "-U0", "f.txt")
	i := strings.Index(diff, "\n@@ ")
	j := strings.Index(diff[i+1:], "\n@@ ")
	if i < 0 || j < 0 {
		t.Fatalf("want two hunks:\n%s", diff)
	}
	w.gitIn(diff[:i+1+j+1], "apply", "--cached", "--unidiff-zero", "-")
	w.git("commit", "-q", "-m", "top only")
	if got := w.git("show", "HEAD:f.txt"); got != "top\n"+base {
		t.Fatalf("the first commit has %q", got)
	}
	w.wantLines(w.gitAINote("HEAD"), "HEAD", "f.txt", 1)
	w.git("commit", "-q", "-a", "-m", "bottom")
	w.wantLines(w.gitAINote("HEAD"), "HEAD", "f.txt", 10)
}

// TestGitNotesRenameBinaryAndNames: a rename with one line added by the
// agent attests only that line; a binary file is in neither note; paths
// with spaces, quotes and a newline are attested under their own names.
func TestGitNotesRenameBinaryAndNames(t *testing.T) {
	w := newGitWS(t)
	A := w.claude(gitSession, claudeProjects(t, w))
	A.prompt("files")
	A.write("c.txt", "c1\nc2\nc3\nc4\nc5\n")
	A.stop()
	w.git("add", "-A")
	w.git("commit", "-q", "-m", "c")
	w.wantLines(w.gitAINote("HEAD"), "HEAD", "c.txt", 1, 2, 3, 4, 5)

	w.git("mv", "c.txt", "d.txt")
	odd := []string{"dir with space/a \"quoted\" name.txt", "new\nline.txt", "tab\there.txt"}
	A.prompt("rename and more")
	A.write("d.txt", "c1\nc2\nc3\nc4\nc5\nc6\n")
	A.write("bin.dat", "\x00\x01\x02binary\n")
	A.write("crlf.txt", "a\r\nb\r\n")
	A.write("nofinal.txt", "x\ny")
	for _, p := range odd {
		A.write(p, "odd\n")
	}
	A.stop()
	w.git("add", "-A")
	w.git("commit", "-q", "-m", "rename")
	if st := w.git("show", "--name-status", "-M", "--format=", "HEAD"); !strings.Contains(st, "R") {
		t.Fatalf("git saw no rename:\n%s", st)
	}
	n := w.gitAINote("HEAD")
	w.wantLines(n, "HEAD", "d.txt", 6)
	for _, p := range odd {
		w.wantLines(n, "HEAD", p, 1)
	}
	w.wantLines(n, "HEAD", "crlf.txt", 1, 2)
	w.wantLines(n, "HEAD", "nofinal.txt", 1, 2)
	if l := n.Lines("bin.dat"); len(l) != 0 {
		t.Errorf("the binary file is attested: %v", l)
	}
	validTrace(t, w.ok("trace").stdout)
	var tr struct {
		Files []struct {
			Path          string
			Conversations []struct {
				Contributor map[string]any
				Ranges      []map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(w.ok("trace").stdout), &tr); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range tr.Files {
		paths = append(paths, f.Path)
	}
	sort.Strings(paths)
	want := append([]string{"d.txt", "crlf.txt", "nofinal.txt"}, odd...)
	sort.Strings(want)
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("the Agent Trace record names %q, want %q", paths, want)
	}
}

// TestGitNotesEmptyCommitAndSHA256: a SHA-256 repository's commits get
// notes naming them by their 64-digit names; an empty commit's notes
// attest nothing.
func TestGitNotesEmptyCommitAndSHA256(t *testing.T) {
	w := newGitWS(t, "--object-format=sha256")
	A := w.claude(gitSession, claudeProjects(t, w))
	A.prompt("write")
	A.write("a.txt", "a\nb\n")
	A.stop()
	w.git("add", "a.txt")
	w.git("commit", "-q", "-m", "a")
	n := w.gitAINote("HEAD")
	w.wantLines(n, "HEAD", "a.txt", 1, 2)
	if len(n.Metadata.BaseCommitSHA) != 64 {
		t.Errorf("base_commit_sha %q is not a SHA-256 name", n.Metadata.BaseCommitSHA)
	}
	w.git("commit", "-q", "--allow-empty", "-m", "empty")
	if n := w.gitAINote("HEAD"); len(n.Files) != 0 {
		t.Errorf("the empty commit attests %v", n.Files)
	}
	validTrace(t, w.ok("trace", "HEAD").stdout)
	var tr map[string]any
	if err := json.Unmarshal([]byte(w.ok("trace", "HEAD~1").stdout), &tr); err != nil {
		t.Fatal(err)
	}
	for k := range tr {
		switch k {
		case "version", "id", "timestamp", "vcs", "tool", "files", "metadata":
		default:
			t.Errorf("the Agent Trace record has a field outside the schema: %q", k)
		}
	}
	if tr["version"] != "0.1.0" || tr["vcs"].(map[string]any)["revision"] != n.Metadata.BaseCommitSHA {
		t.Errorf("the Agent Trace record: %v", tr)
	}
}

// TestGitNotesSetupKeepsHook: an existing post-commit hook still runs,
// first, and its exit status is the hook's; setup git twice changes
// nothing; --remove puts the hook back byte for byte, and with no hook
// before leaves none. A core.hooksPath is where the hook goes; husky's
// hooks are left alone.
func TestGitNotesSetupKeepsHook(t *testing.T) {
	w := newWS(t)
	w.git("init", "-q")
	hooks := filepath.Join(w.Root, ".git", "hooks")
	own := "#!/bin/sh\necho ran >> \"$(git rev-parse --git-dir)/own-hook-ran\"\nexit 3\n"
	if err := os.WriteFile(filepath.Join(hooks, "post-commit"), []byte(own), 0o755); err != nil {
		t.Fatal(err)
	}
	ownRewrite := "#!/bin/sh\ncat >> \"$(git rev-parse --git-dir)/own-rewrite-input\"\n"
	if err := os.WriteFile(filepath.Join(hooks, "post-rewrite"), []byte(ownRewrite), 0o755); err != nil {
		t.Fatal(err)
	}
	w.ok("setup", "git")
	installed := w.Read(".git/hooks/post-commit")
	if out := w.ok("setup", "git").stdout; !strings.Contains(out, "nothing changed") || w.Read(".git/hooks/post-commit") != installed {
		t.Errorf("setup git twice changed something: %s", out)
	}
	w.Write("a.txt", "a\n")
	w.git("add", "a.txt")
	w.git("commit", "-q", "-m", "a")
	if got := w.Read(".git/own-hook-ran"); got != "ran\n" {
		t.Errorf("the repository's own hook ran %q", got)
	}
	w.gitAINote("HEAD")
	before := strings.TrimSpace(w.git("rev-parse", "HEAD"))
	w.git("commit", "-q", "--amend", "-m", "a, amended")
	after := strings.TrimSpace(w.git("rev-parse", "HEAD"))
	if got := w.Read(".git/own-rewrite-input"); got != before+" "+after+"\n" {
		t.Errorf("the repository's own post-rewrite hook read %q", got)
	}
	c := exec.Command(filepath.Join(hooks, "post-commit"))
	c.Dir, c.Env = w.Root, w.gitEnv()
	if err := c.Run(); err == nil || c.ProcessState.ExitCode() != 3 {
		t.Errorf("the hook exits %v, want the own hook's 3", err)
	}
	w.ok("setup", "git", "--remove")
	if got := w.Read(".git/hooks/post-commit"); got != own {
		t.Errorf("--remove left %q", got)
	}
	if got := w.Read(".git/hooks/post-rewrite"); got != ownRewrite {
		t.Errorf("--remove left post-rewrite %q", got)
	}
	if _, err := os.Stat(filepath.Join(hooks, "post-commit.rewind-lsp-saved")); err == nil {
		t.Errorf("--remove left the saved hook")
	}

	// core.hooksPath, and nothing before.
	w.git("config", "core.hooksPath", ".githooks")
	w.ok("setup", "git")
	if !strings.Contains(w.Read(".githooks/post-commit"), "hook git post-commit") {
		t.Errorf("no hook in core.hooksPath")
	}
	w.ok("setup", "git", "--remove")
	if w.Exists(".githooks/post-commit") || w.Exists(".githooks/post-rewrite") {
		t.Errorf("--remove left a hook where there was none")
	}

	// lefthook owns them: the same.
	w.Write("lefthook.yml", "post-commit:\n")
	if out := w.ok("setup", "git").stdout; !strings.Contains(out, "lefthook") || w.Exists(".githooks/post-commit") {
		t.Errorf("with lefthook: %s", out)
	}
	w.Remove("lefthook.yml")

	// husky owns the hooks: a line to add, nothing changed.
	w.git("config", "core.hooksPath", ".husky/_")
	out := w.ok("setup", "git").stdout
	if !strings.Contains(out, "husky") || !strings.Contains(out, "hook git post-commit") || w.Exists(".husky/_/post-commit") {
		t.Errorf("with husky: %s", out)
	}
}

// TestGitNotesMergeGetsNone: a merge concluded by `git commit` after a
// conflict runs the post-commit hook; until a merge attests only its
// resolution, it gets no note rather than its branch's lines.
func TestGitNotesMergeGetsNone(t *testing.T) {
	w := newGitWS(t)
	w.Write("f.txt", "base\n")
	w.git("add", "f.txt")
	w.git("commit", "-q", "-m", "base")
	w.git("checkout", "-q", "-b", "side")
	A := w.claude(gitSession, claudeProjects(t, w))
	A.prompt("side")
	A.write("f.txt", "side\n")
	A.write("g.txt", "g\n")
	A.stop()
	w.git("commit", "-q", "-a", "-m", "side")
	w.git("add", "g.txt")
	w.git("commit", "-q", "-m", "g")
	w.wantLines(w.gitAINote("HEAD"), "HEAD", "g.txt", 1)
	w.git("checkout", "-q", "-")
	w.Write("f.txt", "main\n")
	w.git("commit", "-q", "-a", "-m", "main")
	c := exec.Command("git", "merge", "side")
	c.Dir, c.Env = w.Root, w.gitEnv()
	if out, err := c.CombinedOutput(); err == nil {
		t.Fatalf("the merge did not conflict:\n%s", out)
	}
	w.Write("f.txt", "main and side\n")
	w.git("commit", "-q", "-a", "--no-edit")
	c = exec.Command("git", "notes", "--ref", gitnotes.GitAIRef, "show", "HEAD")
	c.Dir, c.Env = w.Root, w.gitEnv()
	if out, err := c.CombinedOutput(); err == nil {
		t.Errorf("the merge commit has a note:\n%s", out)
	}
}

// TestGitNotesHookNeverFails: the hook outside a repository, or in one
// with no commit, says why on stderr and exits 0.
func TestGitNotesHookNeverFails(t *testing.T) {
	w := newWS(t)
	if r := w.run("hook", "git", "post-commit"); r.code != 0 || r.stderr == "" || r.stdout != "" {
		t.Errorf("outside a repository: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	w.git("init", "-q")
	if r := w.run("hook", "git", "post-commit"); r.code != 0 || r.stderr == "" {
		t.Errorf("with no commit: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.run("hook", "git", "post-something-new"); r.code != 0 {
		t.Errorf("an event of a later version: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestGitNotesRootBelowTop: a root that is a folder inside the work tree:
// the hook, which git runs at the top, attests the root's files under
// their paths from the top.
func TestGitNotesRootBelowTop(t *testing.T) {
	w := newWS(t)
	w.git("-C", w.Home, "init", "-q")
	w.ok("setup", "git")
	if hook := w.Read("../.git/hooks/post-commit"); !strings.Contains(hook, "--root ") {
		t.Fatalf("the hook does not name the root:\n%s", hook)
	}
	A := w.claude(gitSession, claudeProjects(t, w))
	A.prompt("write")
	A.write("a.txt", "a\nb\n")
	A.stop()
	w.git("add", "a.txt")
	w.git("commit", "-q", "-m", "a")
	w.wantLines(w.gitAINote("HEAD"), "HEAD", "work/a.txt", 1, 2)
}

// TestGitNotesTwoWorktrees: two agents in two worktrees of one
// repository, each root with its own store (the default one), commit at
// the same moment: one set of notes holds both commits', each attesting
// its own agent's lines.
func TestGitNotesTwoWorktrees(t *testing.T) {
	w := newWS(t)
	w.git("init", "-q")
	w.git("commit", "-q", "--allow-empty", "-m", "base")
	other := filepath.Join(w.Home, "other")
	w.git("worktree", "add", "-q", "-b", "other", other)
	// bin runs the binary on root with its default store.
	bin := func(root string, args ...string) {
		t.Helper()
		c := w.Command(append([]string{"--root", root}, args...), "HOME="+w.Home)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("rewind-lsp %v: %v\n%s", args, err, out)
		}
	}
	bin(w.Root, "setup", "git")
	for i, root := range []string{w.Root, other} {
		bin(root, "turn", "start", "--prompt", "write", "--session", fmt.Sprint("session-", i))
		if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte(fmt.Sprintf("from %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		bin(root, "turn", "end", "--session", fmt.Sprint("session-", i))
	}
	var cmds []*exec.Cmd
	for _, root := range []string{w.Root, other} {
		c := exec.Command("git", "commit", "-q", "-m", "f")
		c.Dir, c.Env = root, w.gitEnv()
		exec.Command("git", "-C", root, "add", "f.txt").Run()
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	for i, rev := range []string{"HEAD", "other"} {
		n := w.gitAINote(rev)
		if got := attested(n, "f.txt"); !reflect.DeepEqual(got, []int{1}) {
			t.Errorf("%s attests %v", rev, got)
		}
		var ids []string
		for _, s := range n.Metadata.Sessions {
			ids = append(ids, s.AgentID.ID)
		}
		if !reflect.DeepEqual(ids, []string{fmt.Sprint("session-", i)}) {
			t.Errorf("%s names sessions %v", rev, ids)
		}
	}
}

// TestGitNotesAmend: `commit --amend` gives the new commit its notes,
// attesting what it commits, and takes the old commit's away.
func TestGitNotesAmend(t *testing.T) {
	w := newGitWS(t)
	A := w.claude(gitSession, claudeProjects(t, w))
	A.prompt("write")
	A.write("a.txt", "a\nb\n")
	A.stop()
	w.git("add", "a.txt")
	w.git("commit", "-q", "-m", "a")
	old := strings.TrimSpace(w.git("rev-parse", "HEAD"))
	w.wantLines(w.gitAINote(old), old, "a.txt", 1, 2)
	w.Write("a.txt", "a\nB by hand\n")
	w.git("commit", "-q", "-a", "--amend", "-m", "a, amended")
	w.wantLines(w.gitAINote("HEAD"), "HEAD", "a.txt", 1)
	for _, ref := range []string{gitnotes.GitAIRef, gitnotes.TraceRef} {
		c := exec.Command("git", "notes", "--ref", ref, "show", old)
		c.Dir, c.Env = w.Root, w.gitEnv()
		if out, err := c.CombinedOutput(); err == nil {
			t.Errorf("the amended commit keeps its note on %s:\n%s", ref, out)
		}
	}
}

// TestGitNotesHeldRefLock: with the notes ref locked by someone else, the
// hook waits for it within its bound, then gives up: exit 0 within 5 s,
// the reason on stderr; the lock gone, the next run writes the notes.
func TestGitNotesHeldRefLock(t *testing.T) {
	w := newGitWS(t)
	w.Write("a.txt", "a\n")
	w.git("add", "a.txt")
	w.git("commit", "-q", "-m", "a")
	head := strings.TrimSpace(w.git("rev-parse", "HEAD"))
	w.git("notes", "--ref", gitnotes.GitAIRef, "remove", head)
	lock := filepath.Join(w.Root, ".git", "refs", "notes", "ai.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := w.run("hook", "git", "post-commit")
	if d := time.Since(start); r.code != 0 || d > 5*time.Second || !strings.Contains(r.stderr, "rewind-lsp hook git post-commit") {
		t.Errorf("with the ref locked: exit %d after %v, stderr %q", r.code, d, r.stderr)
	}
	os.Remove(lock)
	w.ok("hook", "git", "post-commit")
	w.gitAINote("HEAD")
}

package testkit

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// Sandbox is a workspace for one test: a root, its store and a private
// home for everything else rewind-lsp reads from the environment, all in
// one temporary folder: Home, Home/work (Root) and Home/store (Store).
// Nothing a test starts lands in the real store home.
type Sandbox struct {
	T                 testing.TB
	Home, Root, Store string
	// NoLinks is set when Symlink made no link: Windows without Developer
	// Mode, or wine; the test goes on without it.
	NoLinks bool
}

// NewSandbox makes a sandbox with an empty root.
func NewSandbox(t testing.TB) *Sandbox {
	t.Helper()
	home := t.TempDir()
	s := &Sandbox{T: t, Home: home, Root: filepath.Join(home, "work"), Store: filepath.Join(home, "store")}
	if err := os.MkdirAll(s.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	return s
}

// Abs is the absolute path of root-relative (slash-separated) rel.
func (s *Sandbox) Abs(rel string) string { return filepath.Join(s.Root, filepath.FromSlash(rel)) }

// Write writes a file of the root (mode 0644), making its folders.
func (s *Sandbox) Write(rel, data string) { s.T.Helper(); s.WriteMode(rel, data, 0o644) }

// WriteMode writes a file of the root with mode, making its folders.
func (s *Sandbox) WriteMode(rel, data string, mode fs.FileMode) {
	s.T.Helper()
	p := s.Abs(rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		s.T.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		s.T.Fatal(err)
	}
}

// Symlink makes rel a symbolic link to target, replacing what was there.
// Where Windows makes none (no Developer Mode, wine), it sets NoLinks.
func (s *Sandbox) Symlink(rel, target string) {
	s.T.Helper()
	os.Remove(s.Abs(rel))
	err := os.Symlink(target, s.Abs(rel))
	if fi, lerr := os.Lstat(s.Abs(rel)); runtime.GOOS == "windows" && (err != nil || lerr != nil || fi.Mode()&fs.ModeSymlink == 0) {
		s.NoLinks = true
		return
	}
	if err != nil {
		s.T.Fatal(err)
	}
}

// Remove removes a file of the root; it must exist.
func (s *Sandbox) Remove(rel string) {
	s.T.Helper()
	if err := os.Remove(s.Abs(rel)); err != nil {
		s.T.Fatal(err)
	}
}

// Read is the content of a file of the root, or "<missing>".
func (s *Sandbox) Read(rel string) string {
	data, err := os.ReadFile(s.Abs(rel))
	if err != nil {
		return "<missing>"
	}
	return string(data)
}

// Exists reports whether rel exists (a link counts, whatever it points at).
func (s *Sandbox) Exists(rel string) bool {
	_, err := os.Lstat(s.Abs(rel))
	return err == nil
}

// File is one file of a workspace state.
type File struct {
	Data string
	Kind string // file, exec, symlink
}

// State reads every file under the root (folders only matter through
// their files); .git is left out.
func (s *Sandbox) State() map[string]File {
	s.T.Helper()
	st, err := s.ReadState()
	if err != nil {
		s.T.Fatal(err)
	}
	return st
}

// ReadState is State, with an error for a tree changing while it is read.
func (s *Sandbox) ReadState() (map[string]File, error) {
	st := map[string]File{}
	err := filepath.WalkDir(s.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.Root, p)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, _ := os.Readlink(p)
			st[filepath.ToSlash(rel)] = File{t, "symlink"}
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			kind := "file"
			if fi.Mode()&0o100 != 0 {
				kind = "exec"
			}
			st[filepath.ToSlash(rel)] = File{string(data), kind}
		}
		return nil
	})
	return st, err
}

// WantState fails the test, naming every difference, unless the root holds
// exactly want.
func (s *Sandbox) WantState(want map[string]File, when string) {
	s.T.Helper()
	got := s.State()
	var diffs []string
	for p, g := range got {
		if wv, ok := want[p]; !ok {
			diffs = append(diffs, "extra "+p)
		} else if g != wv {
			diffs = append(diffs, "differs "+p+": got "+jsonStr(g)+", want "+jsonStr(wv))
		}
	}
	for p := range want {
		if _, ok := got[p]; !ok {
			diffs = append(diffs, "missing "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		s.T.Fatalf("%s: workspace state differs:\n%s", when, strings.Join(diffs, "\n"))
	}
}

func jsonStr(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Env is the environment of every process a test starts: this process's,
// with the store home (REWIND_LSP_HOME, XDG_STATE_HOME) inside the
// sandbox's home, then extra ("NAME=value", overriding).
func (s *Sandbox) Env(extra ...string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REWIND_LSP_HOME=") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			env = append(env, kv)
		}
	}
	return append(append(env, "REWIND_LSP_HOME="+s.Home, "XDG_STATE_HOME="+filepath.Join(s.Home, "xdg")), extra...)
}

// Command prepares a run of the binary with args in the sandbox's
// environment plus env.
func (s *Sandbox) Command(args []string, env ...string) *exec.Cmd {
	c := exec.Command(Binary(s.T), args...)
	c.Env = s.Env(env...)
	return c
}

// Result is one run of the command line.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// Run runs the command line on the sandbox's root and store (--root,
// --store, then args) with stdin, in its environment plus env. A process
// that cannot run fails the test; a non-zero exit is the result's Code.
func (s *Sandbox) Run(stdin string, env []string, args ...string) Result {
	s.T.Helper()
	c := s.Command(append([]string{"--root", s.Root, "--store", s.Store}, args...), env...)
	c.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		s.T.Fatalf("run %v: %v", args, err)
	}
	return Result{Code: code, Stdout: out.String(), Stderr: errb.String()}
}

// MustRun is Run without stdin that must exit 0; it returns the output.
func (s *Sandbox) MustRun(args ...string) string {
	s.T.Helper()
	r := s.Run("", nil, args...)
	if r.Code != 0 {
		s.T.Fatalf("rewind-lsp %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

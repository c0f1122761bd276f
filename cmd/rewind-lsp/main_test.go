package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"strings"
	"testing"
)

// bin is the rewind-lsp binary built once for these tests.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rewind-lsp-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "rewind-lsp")
	args := []string{"build", "-o", bin}
	if ov := os.Getenv("REWIND_TEST_OVERLAY"); ov != "" {
		args = append(args, "-overlay", ov)
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build rewind-lsp:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// ws is a workspace with its own store, driven through the binary.
type ws struct {
	t     *testing.T
	root  string
	store string
}

func newWS(t *testing.T) *ws {
	t.Helper()
	w := &ws{t: t, root: t.TempDir(), store: t.TempDir()}
	return w
}

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

func (w *ws) runIn(stdin string, args ...string) result {
	w.t.Helper()
	cmd := exec.Command(bin, append([]string{"--root", w.root, "--store", w.store}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), "REWIND_LSP_HOME="+w.store+"-home")
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("run %v: %v", args, err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

func (w *ws) run(args ...string) result { w.t.Helper(); return w.runIn("", args...) }

// ok runs a command that must succeed.
func (w *ws) ok(args ...string) result {
	w.t.Helper()
	r := w.run(args...)
	if r.code != 0 {
		w.t.Fatalf("rewind-lsp %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
	}
	return r
}

// okJSON runs a command with --json and decodes its output.
func (w *ws) okJSON(v any, args ...string) {
	w.t.Helper()
	r := w.ok(append([]string{"--json"}, args...)...)
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		w.t.Fatalf("rewind-lsp --json %v: %v\n%s", args, err, r.stdout)
	}
}

func (w *ws) write(rel, content string) {
	w.t.Helper()
	p := filepath.Join(w.root, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *ws) read(rel string) string {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.root, rel))
	if err != nil {
		return "<missing>"
	}
	return string(data)
}

// turn records one agent turn that runs edit.
func (w *ws) turn(prompt string, edit func()) {
	w.t.Helper()
	w.ok("turn", "start", "--prompt", prompt)
	edit()
	w.ok("turn", "end")
}

// execBin prepares a run of the binary with extra environment.
func execBin(args []string, env ...string) *exec.Cmd {
	c := exec.Command(bin, args...)
	c.Env = append(os.Environ(), env...)
	return c
}

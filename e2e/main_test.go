package e2e_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// ws is a workspace with its own store, driven through the binary.
type ws struct {
	*testkit.Sandbox
	t *testing.T
}

// newWS makes a sandbox whose store folder exists (empty), as a store
// folder a person names with --store does.
func newWS(t *testing.T) *ws {
	t.Helper()
	w := &ws{Sandbox: testkit.NewSandbox(t), t: t}
	if err := os.Mkdir(w.Store, 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

func (w *ws) runIn(stdin string, args ...string) result {
	w.t.Helper()
	r := w.Run(stdin, nil, args...)
	return result{code: r.Code, stdout: r.Stdout, stderr: r.Stderr}
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

// turn records one agent turn that runs edit.
func (w *ws) turn(prompt string, edit func()) {
	w.t.Helper()
	w.ok("turn", "start", "--prompt", prompt)
	edit()
	w.ok("turn", "end")
}

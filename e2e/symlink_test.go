package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestSymlinkedRootIsOneRoot: a root reached through a symbolic link and
// through its real path is one root with one store. A hook
// runs in the real folder, a person on the link (from a subfolder, found by
// its .git, or with --root): both see the same turn, and paths name files
// by either spelling.
func TestSymlinkedRootIsOneRoot(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	home := filepath.Join(base, "state")
	real := filepath.Join(base, "projects", "real")
	link := filepath.Join(base, "link")
	os.MkdirAll(filepath.Join(real, "src"), 0o755)
	if out, err := exec.Command("git", "init", "-q", real).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(real, "src", "a.txt"), []byte("before\n"), 0o644)
	// run runs the binary in dir, with the shell's idea of the current
	// folder (PWD) kept, as a terminal in the link folder has it.
	sb := testkit.NewSandbox(t)
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := sb.Command(args, "REWIND_LSP_HOME="+home, "REWIND_LSP_NO_SERVER=1", "PWD="+dir)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("rewind-lsp %s in %s: %v\n%s%s", strings.Join(args, " "), dir, err, out.String(), errb.String())
		}
		return out.String()
	}
	run(filepath.Join(real, "src"), "turn", "start", "--prompt", "from the real path")
	os.WriteFile(filepath.Join(link, "src", "a.txt"), []byte("after\n"), 0o644)
	run(filepath.Join(link, "src"), "turn", "end")

	type listing struct {
		Turns []struct {
			Prompt, Ended string
			Changed       []struct{ Path string }
		}
	}
	for _, where := range [][]string{
		{real}, {link}, {filepath.Join(link, "src")}, {base, "--root", link}, {base, "--root", real},
	} {
		var l listing
		out := run(where[0], append(where[1:], "--json", "log")...)
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			t.Fatalf("log in %v: %v\n%s", where, err, out)
		}
		if len(l.Turns) != 1 || l.Turns[0].Prompt != "from the real path" || l.Turns[0].Ended == "" ||
			len(l.Turns[0].Changed) != 1 || l.Turns[0].Changed[0].Path != "src/a.txt" {
			t.Fatalf("log in %v: %s; want the one ended turn changing src/a.txt", where, out)
		}
	}
	if stores, _ := os.ReadDir(home); len(stores) != 1 || !strings.HasPrefix(stores[0].Name(), "real-") {
		t.Fatalf("stores: %v; want one, named after the real folder", stores)
	}
	// A file named through the link or through the real path.
	for _, p := range []string{filepath.Join(link, "src", "a.txt"), filepath.Join(real, "src", "a.txt")} {
		if out := run(link, "diff", "1", p); !strings.Contains(out, "-after") || !strings.Contains(out, "+before") {
			t.Fatalf("diff 1 %s:\n%s", p, out)
		}
	}
	run(filepath.Join(link, "src"), "rewind", "1")
	if data, _ := os.ReadFile(filepath.Join(real, "src", "a.txt")); string(data) != "before\n" {
		t.Fatalf("a.txt after a rewind from the link: %q", data)
	}
}

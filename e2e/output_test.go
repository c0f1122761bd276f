package e2e_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestOutputNamesKindsAndCounts: people read what each file change is —
// "1 file", not "1 files"; a binary file, a symbolic link and a change of
// the executable bit say so instead of "+0 -0"; an undo's header has one
// pair of brackets.
func TestOutputNamesKindsAndCounts(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows files have no executable bit, and links need Developer Mode")
	}
	w := newWS(t)
	w.Write("a.txt", "a\n")
	w.Write("run.sh", "echo hi\n")
	w.Write("logo.bin", "\x00\x01old")
	if err := os.Symlink("a.txt", filepath.Join(w.Root, "link")); err != nil {
		t.Fatal(err)
	}
	w.ok("turn", "start", "--prompt", "kinds")
	w.Write("a.txt", "b\n")
	w.Write("logo.bin", "\x00\x02new")
	if err := os.Chmod(filepath.Join(w.Root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(w.Root, "link"))
	if err := os.Symlink("run.sh", filepath.Join(w.Root, "link")); err != nil {
		t.Fatal(err)
	}
	end := w.ok("turn", "end").stdout
	for _, want := range []string{"4 files changed", "M a.txt  +1 -1\n", "M logo.bin  binary\n", "M link  symlink\n", "M run.sh  mode +x\n"} {
		if !strings.Contains(end, want) {
			t.Errorf("turn end output lacks %q:\n%s", want, end)
		}
	}
	if strings.Contains(end, "+0 -0") {
		t.Errorf("turn end output shows +0 -0 for a change that has no lines:\n%s", end)
	}

	plan := w.ok("rewind", "1", "--dry-run").stdout
	for _, want := range []string{"4 files\n", "M logo.bin  binary\n", "M link  symlink\n", "M run.sh  mode -x\n"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %q:\n%s", want, plan)
		}
	}

	if cp := w.ok("checkpoint", "one").stdout; !strings.Contains(cp, ": 4 files (snapshot") {
		t.Errorf("checkpoint output: %q", cp)
	}
	one := w.ok("rewind", "1", "--paths", "a.txt").stdout
	if !strings.Contains(one, ", mode code: 1 file\n") {
		t.Errorf("a one-file rewind should say \"1 file\":\n%s", one)
	}
	undo := w.ok("undo").stdout
	lone := newWS(t)
	lone.Write("only.txt", "x\n")
	if cp := lone.ok("checkpoint", "lone").stdout; !strings.Contains(cp, ": 1 file (snapshot") {
		t.Errorf("a one-file checkpoint should say \"1 file\": %q", cp)
	}
	first := strings.SplitN(undo, "\n", 2)[0]
	if first != "undone: back to before the rewind, mode code: 1 file" {
		t.Errorf("undo header = %q", first)
	}
}

// TestTargetErrorsAreClear: a bad turn:N target says what is wrong with it.
func TestTargetErrorsAreClear(t *testing.T) {
	w := newWS(t)
	w.Write("a.txt", "a\n")
	w.turn("one", func() { w.Write("a.txt", "b\n") })
	for target, want := range map[string]string{
		"turn:0": `unknown target "turn:0": turn numbers start at 1`,
		"turn:x": `unknown target "turn:x": turn:N needs a turn number`,
	} {
		r := w.run("diff", target)
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("diff %s: exit %d, stderr %q; want exit 1 and %q", target, r.code, r.stderr, want)
		}
	}
}

// TestOneVersion: the command line and the language server report the same
// version.
func TestOneVersion(t *testing.T) {
	w := newWS(t)
	cli := strings.TrimSpace(w.ok("version").stdout)
	if !strings.HasPrefix(cli, "rewind-lsp ") || len(cli) <= len("rewind-lsp ") {
		t.Fatalf("version printed %q", cli)
	}
	_, c := testkit.StartServer(w.Sandbox, "serve")
	var res struct {
		ServerInfo struct{ Name, Version string }
	}
	if err := c.Call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, &res); err != nil {
		t.Fatalf("reading the initialize answer: %v", err)
	}
	if got := res.ServerInfo.Name + " " + res.ServerInfo.Version; got != cli {
		t.Errorf("server reports %q, command line %q", got, cli)
	}
}

// TestDemoShowsTheAgentsEdits: the demo shows three agents at work — a
// Claude Code turn, a pi turn (through rewind-lsp's extension) and a Codex
// turn, each through its own hook — and what each changed as it happens
// (a diff per write, Codex's patch, the shell deletion); the log and blame
// name each turn's agent; after the rewind brings the README back, Codex's
// next prompt gets the notice in Codex's shape and pi's in pi's; the undo
// removes the README again.
func TestDemoShowsTheAgentsEdits(t *testing.T) {
	cmd := testkit.NewSandbox(t).Command([]string{"demo"}, "REWIND_LSP_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	s := string(out)
	order := []string{
		`{"hook_event_name":"UserPromptSubmit","prompt":"greet the customer",…}' | rewind-lsp hook claude-code`,
		"[Claude Code creates greet.go]", "+func greet(name string) string",
		`"tool_name":"Write","tool_input":{"file_path":`, "| rewind-lsp hook claude-code",
		"[Claude Code rewrites main.go]", "+\tfmt.Println(greet(\"shop\"))",
		`{"hook_event_name":"Stop",…}' | rewind-lsp hook claude-code`,
		`{"hook_event_name":"UserPromptSubmit","prompt":"document the greeting",…}' | rewind-lsp hook pi`,
		`{"hook_event_name":"PreToolUse","tool_name":"write","tool_input":{"path":`, "| rewind-lsp hook pi",
		"[pi rewrites README.md]", "+Greets the customer, then prices the order.",
		`{"hook_event_name":"PostToolUse","tool_name":"write","tool_input":{"path":`, "| rewind-lsp hook pi",
		`{"hook_event_name":"Stop",…}' | rewind-lsp hook pi`,
		`{"hook_event_name":"UserPromptSubmit","prompt":"add a 20% discount",…}' | rewind-lsp hook codex`,
		"[Codex applies a patch]", "│ *** Update File: main.go", "│ +func price(n int, discount float64)",
		`"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: main.go\n…"},…}' | rewind-lsp hook codex`,
		"[Codex runs `rm README.md`]", "│ -# shop",
		`{"hook_event_name":"Stop",…}' | rewind-lsp hook codex`,
		"$ rewind-lsp log",
		`Turn 1: greet the customer — 2 files changed (+4 -0) [hook] [claude-code 6f1c2a9e]`,
		`Turn 2: document the greeting — 1 file changed (+2 -0) [hook] [pi …4a7d2c90]`,
		`2.1      step 1: write README.md — 1 file changed (+2 -0)`,
		`Turn 3: add a 20% discount — 2 files changed (+2 -5) [hook] [codex …6c0d1a72]`,
		`3.1      step 1: apply_patch main.go — 1 file changed (+2 -2)`, `3.2      step 2: Bash "rm README.md" — 1 file changed (+0 -3)`,
		"$ rewind-lsp blame main.go", `Turn 1: greet the customer — step 2: Write main.go [claude-code 6f1c2a9e]`,
		`Turn 3: add a 20% discount — step 1: apply_patch main.go [codex …6c0d1a72]`,
		"$ rewind-lsp rewind 3", "$ cat README.md\n# shop\n\nGreets the customer, then prices the order.\n",
		`"prompt":"keep the old price for now",…}' | rewind-lsp hook codex` + "\n" +
			`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"rewind-lsp: since your last prompt, the workspace was rewound to the state before turn 3`,
		`"prompt":"check the README",…}' | rewind-lsp hook pi` + "\n" +
			`{"message":{"customType":"rewind-lsp","content":"rewind-lsp: since your last prompt, the workspace was rewound to the state before turn 3`,
		"$ rewind-lsp undo", "undone: back to before the rewind, mode code: 2 files", "cat: README.md: no such file",
		"$ rewind-lsp rewind 3.2", `rewound to before step 2 of turn 3 (Bash "rm README.md"), mode code: 1 file`, "  A README.md  +3 -0",
		"$ cat README.md\n# shop\n\nGreets the customer, then prices the order.\n",
	}
	at := 0
	for _, want := range order {
		i := strings.Index(s[at:], want)
		if i < 0 {
			t.Fatalf("demo output lacks %q after offset %d:\n%s", want, at, s)
		}
		at += i + len(want)
	}
	if strings.Contains(s, ") (mode") {
		t.Errorf("doubled brackets in the demo:\n%s", s)
	}
}

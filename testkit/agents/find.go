package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Kind names one coding agent the tests drive.
type Kind string

// The agents scripts/agents/install.sh installs.
const (
	Claude  Kind = "claude"
	Codex   Kind = "codex"
	Gemini  Kind = "gemini"
	Copilot Kind = "copilot"
	Qwen    Kind = "qwen"
	Pi      Kind = "pi"
	Omp     Kind = "omp" // oh-my-pi
	// OpenCode and Kilo (its fork) run rewind-lsp's plugin, not command
	// hooks: opencode_test.go drives them.
	OpenCode Kind = "opencode"
	Kilo     Kind = "kilo"
)

// CodexACP is codex-acp, Codex behind the Agent Client Protocol: no hooks
// and no command line of its own, driven only by the ACP tests (not in
// All).
const CodexACP Kind = "codex-acp"

// ClaudeCodeACP is claude-code-acp, Claude Code behind the Agent Client
// Protocol (through its agent SDK), driven only by the ACP tests.
const ClaudeCodeACP Kind = "claude-code-acp"

// All lists every agent the shared tests drive the same way; the others
// have test files of their own.
var All = []Kind{Claude, Codex, Gemini, Copilot}

// More agents, with tests of their own (their prompts reach a session
// another way than All's).
const (
	Droid Kind = "droid"
	Cline Kind = "cline"
)

// EnvBin names the environment variable that gives the folder holding the
// agents' commands (what scripts/agents/install.sh prints). When it is
// set, a test that needs an agent fails if the agent is missing; when it
// is unset, the default cache is used if it is there, else the test is
// skipped with the reason.
const EnvBin = "REWIND_LSP_AGENTS"

// DefaultBin is the folder scripts/agents/install.sh links the agents into
// when REWIND_LSP_AGENTS_CACHE is unset.
func DefaultBin() string {
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "rewind-lsp-test", "agents", "bin")
}

// Require returns the absolute path of the agent's command and the folder
// it is in, or ends the test: skipped (with the reason) when the agents
// are not installed and REWIND_LSP_AGENTS is unset, failed when
// REWIND_LSP_AGENTS is set and the agent cannot be run from it.
func Require(t testing.TB, k Kind) (cmd, bin string) {
	t.Helper()
	bin, set := os.LookupEnv(EnvBin)
	if !set {
		bin = DefaultBin()
	}
	cmd = filepath.Join(bin, string(k))
	if _, err := os.Stat(cmd); err != nil {
		if !set {
			t.Skipf("%s is not installed (%v): run scripts/agents/install.sh, or set %s to the folder it prints", k, err, EnvBin)
		}
		t.Fatalf("%s=%s, but %s cannot be run from it: %v", EnvBin, bin, k, err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("the agents need git on PATH: %v", err)
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(abs, string(k)), abs
}

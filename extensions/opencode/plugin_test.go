package opencode

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginUnderNode runs rewind-lsp.test.mjs under Node's test runner on
// the plugin as setup renders it, calling a fake rewind-lsp
// (testdata/fake-hook.mjs). Node is what the agents' installs need too.
func TestPluginUnderNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the plugin's tests need node on PATH: %v", err)
	}
	dir := t.TempDir()
	fake, err := filepath.Abs(filepath.Join("testdata", "fake-hook.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := Render(shellQuote(node)+" "+shellQuote(fake), "opencode")
	if err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(dir, FileName)
	write(t, plugin, src)
	write(t, filepath.Join(dir, "package.json"), `{"type": "module"}`)
	cmd := exec.Command(node, "--test", "--test-concurrency=1", "rewind-lsp.test.mjs")
	cmd.Env = append(os.Environ(), "REWIND_TEST_PLUGIN="+plugin, "REWIND_TEST_LOG="+filepath.Join(dir, "calls.log"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	t.Logf("%s", lastLines(string(out), 9))
}

// TestRender: the installed plugin names the agent and the command as
// setup gave them, as JavaScript strings, and nothing else changes.
func TestRender(t *testing.T) {
	got, err := Render(`'/opt/my tools/rewind-lsp'`, "kilo")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "\nconst COMMAND = \"'/opt/my tools/rewind-lsp'\"\n") || !strings.Contains(got, "\nconst AGENT = \"kilo\"\n") {
		t.Errorf("rendered plugin does not name the command and agent:\n%s", got[:600])
	}
	if !strings.HasPrefix(got, Marker) || len(strings.Split(got, "\n")) != len(strings.Split(source, "\n")) {
		t.Errorf("rendering changed more than two lines")
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/claudecode"
)

// TestSetupUpdatesAnOlderInstall: a settings file from an older setup (its
// PreToolUse saw Bash alone) gets the file tools in rewind-lsp's own
// matcher, once; every other setting and hook stays as it was, and a
// second setup changes nothing.
func TestSetupUpdatesAnOlderInstall(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	old := `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "other-tool check"}]},
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "rewind-lsp hook claude-code"}]}
    ]
  }
}
`
	os.WriteFile(path, []byte(old), 0o644)
	res, err := Lookup(claudecode.Name).Setup(agent.SetupOptions{Command: "rewind-lsp", Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Added, "PreToolUse (updated)") {
		t.Fatalf("added %v", res.Added)
	}
	var got struct {
		Model string
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct{ Command string }
		}
	}
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	pre := got.Hooks["PreToolUse"]
	if got.Model != "opus" || len(pre) != 2 || pre[0].Matcher != "Bash" || pre[0].Hooks[0].Command != "other-tool check" ||
		pre[1].Matcher != "Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__.*" {
		t.Fatalf("after setup:\n%s", data)
	}
	again, err := Lookup(claudecode.Name).Setup(agent.SetupOptions{Command: "rewind-lsp", Root: root})
	if err != nil || len(again.Added) != 0 {
		t.Fatalf("a second setup: %v %v", err, again)
	}
	if data2, _ := os.ReadFile(path); string(data2) != string(data) {
		t.Fatal("a second setup changed the file")
	}
}

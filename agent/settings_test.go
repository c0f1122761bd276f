package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestHasComment: a settings file with comments is told apart from one
// that merely holds slashes in its strings (a URL, an escaped quote).
func TestHasComment(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`{"a": 1} // trailing`, true},
		{"{\n  /* block */ \"a\": 1\n}", true},
		{`{"url": "http://127.0.0.1/x"}`, false},
		{`{"q": "a \" // not a comment"}`, false},
		{`{"path": "C:\\dir\\"} // after an escaped backslash`, true},
		{`{"a": "/*"}`, false},
	} {
		if got := hasComment([]byte(c.text)); got != c.want {
			t.Errorf("hasComment(%s) = %v, want %v", c.text, got, c.want)
		}
	}
}

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
	res, err := Lookup(ClaudeCode).Setup(SetupOptions{Command: "rewind-lsp", Root: root})
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
	again, err := Lookup(ClaudeCode).Setup(SetupOptions{Command: "rewind-lsp", Root: root})
	if err != nil || len(again.Added) != 0 {
		t.Fatalf("a second setup: %v %v", err, again)
	}
	if data2, _ := os.ReadFile(path); string(data2) != string(data) {
		t.Fatal("a second setup changed the file")
	}
}

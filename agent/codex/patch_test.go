package codex

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
)

func TestPatchPaths(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: new.go\n+package x\n*** Update File: src/a b.go\n*** Move to: src/c.go\n@@\n-x\n+y\n" +
		"*** Delete File: /abs/old.txt\r\n*** End Patch\n"
	if got, want := agent.PatchPaths(patch), []string{"new.go", "src/a b.go", "src/c.go", "/abs/old.txt"}; !slices.Equal(got, want) {
		t.Errorf("PatchPaths = %q, want %q", got, want)
	}
	ev := &agent.Event{Kind: agent.PostTool, Cwd: "/w/project", ToolName: "apply_patch", ToolInput: json.RawMessage(`{"command":` + conv.Quote(patch) + `}`)}
	paths, capture, relevant := codex{}.Writes(ev)
	if want := []string{"/w/project/new.go", "/w/project/src/a b.go", "/w/project/src/c.go", "/abs/old.txt"}; !slices.Equal(paths, want) || capture || !relevant {
		t.Errorf("Writes = %q %v %v", paths, capture, relevant)
	}
}

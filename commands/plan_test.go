package commands_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// TestPlanDiffWhenAsked: a plan's unified diff is made when it is asked
// for, never missing: in the JSON of a rewind's and of a preview's result
// (what editors, agents and --json get) and from DiffText.
func TestPlanDiffWhenAsked(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	f := filepath.Join(root, "a.txt")
	if err := os.WriteFile(f, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	svc, err := commands.Open(commands.Options{Root: root, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	svc.TurnStart(ctx, commands.TurnStartArgs{Prompt: "p"})
	os.WriteFile(f, []byte("one\nTWO\n"), 0o644)
	svc.TurnEnd(ctx, commands.TurnEndArgs{})
	const want = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-TWO\n+two\n"

	p, err := svc.Preview(ctx, commands.PreviewArgs{Target: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.DiffText(); !strings.Contains(got, want) {
		t.Fatalf("the preview's diff:\n%s\nwant it to hold:\n%s", got, want)
	}
	res, err := svc.Rewind(ctx, commands.RewindArgs{Target: "1"})
	if err != nil || !res.Applied {
		t.Fatalf("rewind: %v %+v", err, res)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Plan struct {
			Diff  string `json:"diff"`
			Files []struct {
				Path string `json:"path"`
			} `json:"files"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(back.Plan.Diff, want) || len(back.Plan.Files) != 1 || back.Plan.Files[0].Path != "a.txt" {
		t.Fatalf("the rewind's JSON plan: %s", data)
	}
	if b, _ := os.ReadFile(f); string(b) != "one\ntwo\n" {
		t.Fatalf("a.txt after the rewind: %q", b)
	}
}

package live

import (
	"context"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestAutoTurnCatchesModeOnlyChange: an agent with no hooks runs chmod -x;
// the automatic turn records it (a mode-only change), rewinding that turn
// brings the executable bit back, and the rewind's own chmod is no turn.
func TestAutoTurnCatchesModeOnlyChange(t *testing.T) {
	s, _, root := trackedWorkspace(t, TrackOptions{})
	os.WriteFile(filepath.Join(root, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	waitUntil(t, "the auto turn of run.sh", func() bool {
		ts := turns(t, s)
		return len(ts) == 1 && ts[0].End != nil
	})
	agent := exec.Command("chmod", "-x", "run.sh")
	agent.Dir = root
	if out, err := agent.CombinedOutput(); err != nil {
		t.Fatalf("agent: %v %s", err, out)
	}
	waitUntil(t, "an auto turn for chmod -x", func() bool {
		ts := turns(t, s)
		return len(ts) == 2 && ts[1].End != nil
	})
	out, err := s.Rewind(context.Background(), workspace.RewindRequest{Target: "2"}, nil, workspace.ApplyOnDisk(root))
	if err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	fi, _ := os.Stat(filepath.Join(root, "run.sh"))
	if fi.Mode()&0o100 == 0 {
		t.Fatalf("mode after rewinding the chmod turn: %v", fi.Mode())
	}
	time.Sleep(800 * time.Millisecond)
	if n := len(turns(t, s)); n != 2 {
		t.Errorf("%d turns after the rewind's own chmod, want 2", n)
	}
}

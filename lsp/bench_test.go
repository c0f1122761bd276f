package lsp

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// benchChange is the performance case: 100 files of 1,000 lines,
// 5 % of the lines of each changed. before is the current content (after
// the agent), after the rewind's target.
func benchChange(seed int64) (files []editFile, changedBytes, changedNewBytes int) {
	rng := rand.New(rand.NewSource(seed))
	for f := 0; f < 100; f++ {
		var before, after strings.Builder
		for l := 0; l < 1000; l++ {
			line := fmt.Sprintf("\tresult%d := compute(input%d, %d) // line %d of file %d\n", l, rng.Intn(100), rng.Intn(1000), l, f)
			after.WriteString(line)
			if rng.Intn(100) < 5 {
				changed := fmt.Sprintf("\tresult%d := computeFaster(input%d, %d) // changed by the agent\n", l, rng.Intn(100), rng.Intn(1000))
				before.WriteString(changed)
				changedBytes += len(line) + len(changed)
				changedNewBytes += len(line)
			} else {
				before.WriteString(line)
			}
		}
		files = append(files, editFile{rel: fmt.Sprintf("pkg/file%03d.go", f), uri: fmt.Sprintf("file:///w/pkg/file%03d.go", f),
			change: fileop.Modify, before: before.String(), after: after.String()})
	}
	return files, changedBytes, changedNewBytes
}

// BenchmarkPlanAndEdits measures building the WorkspaceEdit of the 100-file
// change (line diffs, positions, JSON) and reports its size against the
// changed text.
func BenchmarkPlanAndEdits(b *testing.B) {
	files, changed, changedNew := benchChange(1)
	caps := clientCaps{documentChanges: true, createFiles: true, deleteFiles: true}
	var size int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		be := buildEdit(files, caps, encUTF16)
		raw, err := json.Marshal(applyWorkspaceEditParams{Label: "Rewind to turn 1: bench", Edit: be.edit})
		if err != nil {
			b.Fatal(err)
		}
		size = len(raw)
	}
	b.ReportMetric(float64(size), "edit-bytes")
	b.ReportMetric(float64(changed), "changed-bytes(old+new)")
	b.ReportMetric(float64(size)/float64(changed), "edit/changed")
	b.ReportMetric(float64(size)/float64(changedNew), "edit/new-text")
}

// TestEditSize keeps the WorkspaceEdit of the benchmark case within 3× the
// changed text (old and new lines); BenchmarkPlanAndEdits measures its
// build time.
func TestEditSize(t *testing.T) {
	files, changed, changedNew := benchChange(2)
	caps := clientCaps{documentChanges: true, createFiles: true, deleteFiles: true}
	start := time.Now()
	be := buildEdit(files, caps, encUTF16)
	raw, _ := json.Marshal(be.edit)
	took := time.Since(start)
	ratio := float64(len(raw)) / float64(changed)
	t.Logf("100 files × 1,000 lines, 5 %% changed: edits built and encoded in %v; WorkspaceEdit %d bytes, changed text %d bytes (old+new; new only %d): %.2f× (%.2f× the new text)",
		took, len(raw), changed, changedNew, ratio, float64(len(raw))/float64(changedNew))
	if ratio > 3 {
		t.Errorf("the edit is %.2f× the changed text; want ≤ 3×", ratio)
	}
	for _, f := range files {
		var edits []TextEdit
		for _, dc := range be.edit.DocumentChanges {
			if dc.Edit.TextDocument.URI == f.uri {
				edits = dc.Edit.Edits
			}
		}
		if got, err := editorApply(f.before, edits, false); err != nil || got != f.after {
			t.Fatalf("%s: the edit does not give the target (%v)", f.rel, err)
		}
	}
}

// TestPerf100Files measures, through the real binary, preview and rewind of
// the 100-file change: the whole server-side time (capture, plan, edits,
// the editor's answer, verification), with an editor that answers at once.
func TestPerf100Files(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a timing test: not with -short or -race")
	}
	w := testkit.NewSandbox(t)
	files, _, _ := benchChange(3)
	for _, f := range files {
		w.Write(f.rel, f.after)
	}
	_, e := startServer(t, w, testkit.VSCodeLike)
	e.SetSave(true)
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "agent rewrites 5 % of 100 files"}, nil)
	for _, f := range files {
		w.Write(f.rel, f.before)
	}
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)

	var plan commands.Plan
	start := time.Now()
	e.MustCmd(commands.NamePreview, map[string]any{"target": "1"}, &plan)
	preview := time.Since(start)
	var rr commands.RewindResult
	start = time.Now()
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	rewind := time.Since(start)
	if !rr.Applied || len(plan.Files) != 100 {
		t.Fatalf("rewind: applied=%v %q, plan of %d files", rr.Applied, rr.FailureReason, len(plan.Files))
	}
	size := len(e.Edits()[len(e.Edits())-1])
	for _, f := range files {
		data, _ := os.ReadFile(filepath.Join(w.Root, f.rel))
		if string(data) != f.after {
			t.Fatalf("%s differs after the rewind", f.rel)
		}
	}
	t.Logf("server log:\n%s", e.Server.Stderr.String())
	t.Logf("100-file change through the binary: preview %v, rewind %v (incl. the editor's apply and save), applyEdit message %d bytes",
		preview, rewind, size)
}

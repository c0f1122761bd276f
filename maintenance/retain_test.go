package maintenance

import (
	"context"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/workspace"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// TestAutomaticRetentionKeepsTheBudget: turn after turn of new content
// keep the store's objects near its budget with nobody running gc; the
// labeled checkpoint and the latest rewind's undo snapshot stay whole,
// and the turns whose snapshots were dropped stay in the journal, marked
// gone.
func TestAutomaticRetentionKeepsTheBudget(t *testing.T) {
	t.Setenv("REWIND_LSP_GC_GRACE", "0") // a test's turns are seconds old
	ctx := context.Background()
	root := t.TempDir()
	s, err := workspace.Open(root, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 400 << 10
	m := New(s, Retention{MaxBytes: budget})
	r := rand.New(rand.NewSource(1))
	write := func(name string, n int) []byte {
		b := make([]byte, n)
		r.Read(b) // incompressible: each turn adds ~n bytes
		os.WriteFile(filepath.Join(root, name), b, 0o644)
		return b
	}
	pinned := write("pinned.bin", 30<<10)
	if _, err := s.Checkpoint(ctx, workspace.CheckpointRequest{Caller: workspace.Caller{Actor: "test"}, Label: "keep-me"}); err != nil {
		t.Fatal(err)
	}
	var maxSeen int64
	for turn := 0; turn < 60; turn++ {
		if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: fmt.Sprint("turn ", turn)}); err != nil {
			t.Fatal(err)
		}
		write(fmt.Sprintf("f%d.bin", turn%5), 25<<10)
		if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
			t.Fatal(err)
		}
		if n := s.Objects().Bytes(); n > maxSeen {
			maxSeen = n
		}
	}
	// Over budget by at most what one run lets grow before the next (a
	// tenth of the budget) and one turn's content.
	if maxSeen > budget+budget/10+(60<<10) {
		t.Fatalf("the objects reached %d bytes with a budget of %d", maxSeen, budget)
	}
	h, _ := s.History()
	turns := h.Turns(0, 0)
	if len(turns) != 60 {
		t.Fatalf("%d turns in the journal, want 60", len(turns))
	}
	if !h.Gone(turns[3].End.Snapshot) { // (turn 1's start is the pinned checkpoint)
		t.Fatal("an old turn's snapshot was kept: nothing was dropped")
	}
	if h.Gone(turns[59].End.Snapshot) {
		t.Fatal("the latest turn's snapshot was dropped")
	}
	// The labeled checkpoint is pinned: rewinding to it is exact.
	os.Remove(filepath.Join(root, "pinned.bin"))
	out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "@keep-me", Force: true}, nil, workspace.ApplyOnDisk(root))
	if err != nil || !out.Applied {
		t.Fatalf("rewind to the pinned checkpoint: %v %+v", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "pinned.bin")); string(got) != string(pinned) {
		t.Fatal("pinned.bin not restored")
	}
	// More turns: the rewind's undo snapshot stays (undo works), and a
	// rewind to a dropped turn says its content is gone.
	for turn := 0; turn < 20; turn++ {
		s.TurnStart(ctx, workspace.TurnRequest{Prompt: "more"})
		write(fmt.Sprintf("g%d.bin", turn%5), 25<<10)
		s.TurnEnd(ctx, workspace.TurnRequest{})
	}
	if _, err := s.Undo(ctx, workspace.UndoRequest{Force: true}, nil, workspace.ApplyOnDisk(root)); err != nil {
		t.Fatalf("undo of the rewind after retention: %v", err)
	}
	_, err = s.Rewind(ctx, workspace.RewindRequest{Target: "turn:3:end", Force: true}, nil, workspace.ApplyOnDisk(root))
	if err == nil || !strings.Contains(err.Error(), "dropped") {
		t.Fatalf("rewind to a dropped turn: %v", err)
	}
	if probs, err := fsck(m); err != nil || len(probs) > 0 {
		t.Fatalf("fsck after retention: %v %v", err, probs)
	}
}

// TestRetentionIsCheapWhenUnderBudget: under its bounds, a turn does not
// rewrite the store (no gc entry, the packs stay).
func TestRetentionIsCheapWhenUnderBudget(t *testing.T) {
	t.Setenv("REWIND_LSP_GC_GRACE", "0")
	ctx := context.Background()
	root := t.TempDir()
	s, _ := workspace.Open(root, t.TempDir(), 0)
	New(s, DefaultRetention)
	os.WriteFile(filepath.Join(root, "a"), []byte("a"), 0o644)
	for i := 0; i < 5; i++ {
		s.TurnStart(ctx, workspace.TurnRequest{})
		os.WriteFile(filepath.Join(root, "a"), []byte(fmt.Sprint(i)), 0o644)
		s.TurnEnd(ctx, workspace.TurnRequest{})
	}
	h, _ := s.History()
	if h.GCCount() != 0 {
		t.Fatalf("%d gc entries under the default budget", h.GCCount())
	}
}

// TestGCKeepsTheContentOfDeltaBases: a folder's tree stored as a delta
// against its previous version needs that version as its base; gc reaches
// the base first (from the newer snapshot) and must still keep everything
// the older snapshot holds in that folder. (Before Reach, the older
// snapshot's changed file was swept.)
func TestGCKeepsTheContentOfDeltaBases(t *testing.T) {
	t.Setenv("REWIND_LSP_GC_GRACE", "0")
	ctx := context.Background()
	root := t.TempDir()
	s, _ := workspace.Open(root, t.TempDir(), 0)
	dir := filepath.Join(root, "big")
	os.MkdirAll(dir, 0o755)
	for i := 0; i < 60; i++ { // a tree past deltaMinBytes
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%02d.txt", i)), []byte(fmt.Sprint("v1 ", i, "\n")), 0o644)
	}
	s.TurnStart(ctx, workspace.TurnRequest{Prompt: "one"})
	os.WriteFile(filepath.Join(dir, "file-07.txt"), []byte("v2\n"), 0o644)
	s.TurnEnd(ctx, workspace.TurnRequest{})
	m := New(s, Retention{})
	if _, err := m.Retain(Retention{MaxSnapshots: 0}); err != nil {
		t.Fatal(err)
	}
	if probs, err := fsck(m); err != nil || len(probs) > 0 {
		t.Fatalf("fsck after gc: %v %v", err, probs)
	}
	out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "1"}, nil, workspace.ApplyOnDisk(root))
	if err != nil || !out.Applied {
		t.Fatalf("rewind after gc: %v %+v", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "file-07.txt")); string(got) != "v1 7\n" {
		t.Fatalf("file-07.txt after rewind: %q", got)
	}
}

// TestGCKeepsTheStatCache: a gc that keeps the snapshot the stat cache
// describes does not make the next capture read every file again (one
// that drops it does).
func TestGCKeepsTheStatCache(t *testing.T) {
	t.Setenv("REWIND_LSP_GC_GRACE", "0")
	ctx := context.Background()
	root := t.TempDir()
	s, _ := workspace.Open(root, t.TempDir(), 0)
	old := time.Now().Add(-time.Hour)
	for i := 0; i < 30; i++ {
		p := filepath.Join(root, fmt.Sprint("f", i))
		os.WriteFile(p, []byte(fmt.Sprint(i)), 0o644)
		os.Chtimes(p, old, old) // older than the cache: trusted
	}
	s.Checkpoint(ctx, workspace.CheckpointRequest{Label: "one"})
	s.Checkpoint(ctx, workspace.CheckpointRequest{}) // the cache, written after the files
	m := New(s, Retention{})
	if _, err := m.Retain(Retention{MaxSnapshots: 0}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Capturer().Capture(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != 0 {
		t.Fatalf("the capture after a gc read %d files", res.Read)
	}
	// A stat cache whose snapshot is gone is not trusted.
	os.WriteFile(filepath.Join(root, "f0"), []byte("changed"), 0o644)
	s.Checkpoint(ctx, workspace.CheckpointRequest{})
	s.Capturer().Reset()
	if _, err := s.Objects().Repack(func(snapshot.ID) bool { return false }, 0); err != nil {
		t.Fatal(err)
	}
	res, err = s.Capturer().Capture(ctx, nil)
	if err != nil || res.Read != 30 {
		t.Fatalf("after every object was dropped: %v, %d files read, want 30", err, res.Read)
	}
}

// TestRefusedOperationsLeaveTheLatestRewindUndoable: operations the editor
// refused changed nothing and leave nothing to undo, so however many come
// after a rewind, its undo snapshot stays among the pinned ones and the
// undo works after retention ran.
func TestRefusedOperationsLeaveTheLatestRewindUndoable(t *testing.T) {
	t.Setenv("REWIND_LSP_GC_GRACE", "0")
	ctx := context.Background()
	root := t.TempDir()
	s, err := workspace.Open(root, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 300 << 10
	New(s, Retention{MaxBytes: budget})
	r := rand.New(rand.NewSource(2))
	write := func(name string, n int) []byte {
		b := make([]byte, n)
		r.Read(b)
		os.WriteFile(filepath.Join(root, name), b, 0o644)
		return b
	}
	turn := func(i int) {
		if _, err := s.TurnStart(ctx, workspace.TurnRequest{Prompt: fmt.Sprint("turn ", i)}); err != nil {
			t.Fatal(err)
		}
		write(fmt.Sprintf("f%d.bin", i%5), 25<<10)
		if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ {
		turn(i)
	}
	before := map[string][]byte{}
	for i := 0; i < 3; i++ {
		name := fmt.Sprintf("f%d.bin", i)
		before[name], _ = os.ReadFile(filepath.Join(root, name))
	}
	if out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "turn:1:end", Force: true}, nil, workspace.ApplyOnDisk(root)); err != nil || !out.Applied {
		t.Fatalf("rewind: %v %+v", err, out)
	}
	refuse := func(context.Context, string, []snapshot.FileOp, string) error {
		return &workspace.NotAppliedError{Reason: "the editor refused the edit"}
	}
	for i := 0; i < 15; i++ {
		out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "turn:3:end", Force: true}, nil, refuse)
		if err != nil || out.Applied {
			t.Fatalf("refused rewind %d: %v %+v", i, err, out)
		}
	}
	for i := 3; i < 40; i++ { // well past the budget: retention drops what is not pinned
		turn(i)
	}
	if h, _ := s.History(); !h.Gone(h.Turns(0, 0)[1].End.Snapshot) {
		t.Fatal("retention dropped nothing: the test proves nothing")
	}
	if _, err := s.Undo(ctx, workspace.UndoRequest{Force: true}, nil, workspace.ApplyOnDisk(root)); err != nil {
		t.Fatalf("undo of the rewind after 15 refused ones and retention: %v", err)
	}
}

// TestRetentionKeepsWhatWasJustRecorded: with a budget the labeled
// checkpoint alone fills, retention still never marks gone a state the
// journal named within its grace: the turn that just ended can be rewound
// to and back.
func TestRetentionKeepsWhatWasJustRecorded(t *testing.T) {
	t.Setenv("REWIND_LSP_GC_GRACE", "600")
	ctx := context.Background()
	root := t.TempDir()
	s, err := workspace.Open(root, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 50 << 10
	New(s, Retention{MaxBytes: budget})
	r := rand.New(rand.NewSource(3))
	write := func(name string, n int) {
		b := make([]byte, n)
		r.Read(b)
		os.WriteFile(filepath.Join(root, name), b, 0o644)
	}
	write("big.bin", 80<<10) // the checkpoint alone is past the budget
	if _, err := s.Checkpoint(ctx, workspace.CheckpointRequest{Caller: workspace.Caller{Actor: "test"}, Label: "base"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		s.TurnStart(ctx, workspace.TurnRequest{Prompt: fmt.Sprint("turn ", i)})
		write(fmt.Sprintf("f%d.bin", i), 20<<10)
		if _, _, err := s.TurnEnd(ctx, workspace.TurnRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	h, _ := s.History()
	for i, tr := range h.Turns(0, 0) {
		if h.Gone(tr.End.Snapshot) {
			t.Fatalf("turn %d's end, recorded a moment ago, was marked gone", i+1)
		}
	}
	if out, err := s.Rewind(ctx, workspace.RewindRequest{Target: "turn:5:end", Force: true}, nil, workspace.ApplyOnDisk(root)); err != nil || !out.Applied {
		t.Fatalf("rewind to the turn before the latest: %v %+v", err, out)
	}
	if _, err := s.Undo(ctx, workspace.UndoRequest{Force: true}, nil, workspace.ApplyOnDisk(root)); err != nil {
		t.Fatalf("undo: %v", err)
	}
}

package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// oneTurn seeds a.txt and b.txt, opens a.txt, and records one agent turn
// (over LSP) that changes both.
func oneTurn(t *testing.T, kind testkit.EditorKind) (*testkit.Sandbox, *testkit.Editor) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "alpha\nbeta 😀\ngamma\n")
	w.Write("b.txt", "one\ntwo\n")
	_, e := startServer(t, w, kind)
	e.Open(w.Abs("a.txt"))
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "change things"}, nil)
	w.Write("a.txt", "alpha\nBETA 😀 by agent\ngamma\n")
	w.Write("b.txt", "one\nTWO\n")
	e.Reload(w.Abs("a.txt"))
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	return w, e
}

func TestDirtyBufferConflict(t *testing.T) {
	w, e := oneTurn(t, testkit.VSCodeLike)
	// The user types in a.txt without saving: the buffer is a conflict.
	e.TypeText(w.Abs("a.txt"), kitRange(Range{Position{2, 0}, Position{2, 0}}), "user line\n")

	var plan commands.Plan
	e.MustCmd(commands.NamePreview, map[string]any{"target": "1"}, &plan)
	conflicts := 0
	for _, f := range plan.Files {
		if f.Conflict {
			conflicts++
			if f.Path != "a.txt" {
				t.Errorf("unexpected conflict on %s", f.Path)
			}
		}
	}
	if conflicts != 1 {
		t.Fatalf("plan %+v: want exactly a.txt in conflict", plan.Files)
	}

	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	if rr.Applied || !strings.Contains(rr.FailureReason, "a.txt") {
		t.Fatalf("rewind over a dirty buffer: applied=%v reason=%q; want refused naming a.txt", rr.Applied, rr.FailureReason)
	}
	if got, _ := e.Text(w.Abs("a.txt")); got != "alpha\nBETA 😀 by agent\nuser line\ngamma\n" {
		t.Fatalf("the refused rewind touched the buffer: %q", got)
	}
	if m, _ := e.Conn.WaitNotification("window/showMessage", 0, 2*time.Second, nil); m == nil {
		t.Error("no window/showMessage for the refused rewind")
	}

	// With force: one versioned edit against the dirty buffer.
	e.SetSave(false) // keep the buffer dirty, as an editor that does not save
	n := len(e.Edits())
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1", "force": true}, &rr)
	if !rr.Applied {
		t.Fatalf("forced rewind not applied: %s", rr.FailureReason)
	}
	if got, _ := e.Text(w.Abs("a.txt")); got != "alpha\nbeta 😀\ngamma\n" {
		t.Fatalf("buffer after the forced rewind: %q", got)
	}
	raw := e.Edits()[n]
	var p applyWorkspaceEditParams
	json.Unmarshal(raw, &p)
	versioned := false
	for _, dc := range p.Edit.DocumentChanges {
		if dc.Edit != nil && strings.HasSuffix(dc.Edit.TextDocument.URI, "/a.txt") {
			versioned = dc.Edit.TextDocument.Version != nil && *dc.Edit.TextDocument.Version == 3
		}
	}
	if !versioned {
		t.Fatalf("want a.txt edited at the dirty buffer's version 3: %s", raw)
	}
	// The undo brings the user's line back.
	e.MustCmd(commands.NameUndo, map[string]any{}, &rr)
	if got, _ := e.Text(w.Abs("a.txt")); !rr.Applied || got != "alpha\nBETA 😀 by agent\nuser line\ngamma\n" {
		t.Fatalf("undo: applied=%v %q buffer %q", rr.Applied, rr.FailureReason, got)
	}
}

// TestStaleVersion: the user types while the edit is on its way. VS Code
// rejects the stale edit; Neovim skips it but answers applied:true. Both
// must surface as applied:false.
func TestStaleVersion(t *testing.T) {
	for _, kind := range []testkit.EditorKind{testkit.VSCodeLike, testkit.NeovimLike} {
		t.Run(string(kind), func(t *testing.T) {
			w, e := oneTurn(t, kind)
			e.SetBeforeApply(func(e *testkit.Editor) {
				e.SetBeforeApply(nil)
				e.TypeText(w.Abs("a.txt"), kitRange(Range{Position{0, 0}, Position{0, 0}}), "typed meanwhile\n")
			})
			var rr commands.RewindResult
			e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
			if rr.Applied || rr.FailureReason == "" {
				t.Fatalf("stale edit: applied=%v reason=%q; want applied:false with a reason", rr.Applied, rr.FailureReason)
			}
			t.Logf("failureReason: %s", rr.FailureReason)
		})
	}
}

// TestEchoesAreNotTurns: after a rewind the editor echoes didChange and
// didSave and writes the files; none of it becomes a turn or a conflict.
func TestEchoesAreNotTurns(t *testing.T) {
	w, e := oneTurn(t, testkit.VSCodeLike)
	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	if !rr.Applied {
		t.Fatalf("rewind: %s", rr.FailureReason)
	}
	time.Sleep(500 * time.Millisecond)
	var st commands.StatusResult
	e.MustCmd(commands.NameStatus, map[string]any{}, &st)
	if st.Turns != 1 || st.OpenTurn != nil {
		t.Fatalf("status after the rewind's echoes: %d turns, open %+v; want 1 turn, none open", st.Turns, st.OpenTurn)
	}
	var plan commands.Plan
	e.MustCmd(commands.NamePreview, map[string]any{"target": "turn:1:end"}, &plan)
	for _, f := range plan.Files {
		if f.Conflict {
			t.Fatalf("the rewind's own echo became a conflict on %s", f.Path)
		}
	}
	e.MustCmd(commands.NameUndo, map[string]any{}, &rr)
	if !rr.Applied {
		t.Fatalf("undo after echoes: %s", rr.FailureReason)
	}
	if got, _ := e.Text(w.Abs("a.txt")); got != "alpha\nBETA 😀 by agent\ngamma\n" {
		t.Fatalf("buffer after undo: %q", got)
	}
}

// TestDeleteOpenFileWithoutResourceOps: a client without resource
// operations keeps the buffer of a file the server deleted; that buffer
// must not resurrect the file in later plans.
func TestDeleteOpenFileWithoutResourceOps(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "a\n")
	_, e := startServer(t, w, testkit.PlainClient)
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "create c"}, nil)
	w.Write("c.txt", "made by the agent\n")
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	e.Open(w.Abs("c.txt"))
	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	if !rr.Applied {
		t.Fatalf("rewind: %s", rr.FailureReason)
	}
	if _, err := os.Lstat(w.Abs("c.txt")); err == nil {
		t.Fatal("c.txt still exists")
	}
	var plan commands.Plan
	e.MustCmd(commands.NamePreview, map[string]any{"target": "1"}, &plan)
	if len(plan.Files) != 0 {
		t.Fatalf("the deleted file's open buffer came back in the plan: %+v", plan.Files)
	}
	e.MustCmd(commands.NameUndo, map[string]any{}, &rr)
	if data, _ := os.ReadFile(w.Abs("c.txt")); !rr.Applied || string(data) != "made by the agent\n" {
		t.Fatalf("undo: %+v, c.txt=%q", rr, data)
	}
	e.MustCmd(commands.NamePreview, map[string]any{"target": "turn:1:end"}, &plan)
	if len(plan.Files) != 0 {
		t.Fatalf("after undo: %+v", plan.Files)
	}
}

// TestEditorNeverAnswers: the store is locked while the editor applies an
// edit, so an editor that never answers gets applied:false after the apply
// timeout instead of hanging every other writer (in-process, to shorten it).
func TestEditorNeverAnswers(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "a\n")
	srv, c := startInProcess(t)
	srv.srv.applyTimeout = 300 * time.Millisecond
	e := testkit.NewEditor(t, c, testkit.VSCodeLike)
	e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store})
	e.MustCmd(commands.NameTurnStart, map[string]any{}, nil)
	w.Write("a.txt", "b\n")
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	block := make(chan struct{})
	t.Cleanup(func() { e.Stop(); close(block) })
	e.SetBeforeApply(func(*testkit.Editor) { <-block })
	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	if rr.Applied || !strings.Contains(rr.FailureReason, "did not answer") {
		t.Fatalf("applied=%v reason=%q", rr.Applied, rr.FailureReason)
	}
	// The store is free again: the command line can record a checkpoint.
	w.MustRun("checkpoint", "after")
}

// TestSymlinkedFolder: the client names the folder through a symlink.
func TestSymlinkedFolder(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "one\ntwo\n")
	link := filepath.Join(w.Home, "link")
	if err := os.Symlink(w.Root, link); err != nil {
		t.Fatal(err)
	}
	_, c := testkit.StartServer(w)
	e := testkit.NewEditor(t, c, testkit.NeovimLike)
	e.Initialize([]string{link}, map[string]any{"storeDir": w.Store})
	e.Open(filepath.Join(link, "a.txt"))
	e.MustCmd(commands.NameTurnStart, map[string]any{}, nil)
	w.Write("a.txt", "one\nTWO\n")
	e.Reload(filepath.Join(link, "a.txt"))
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	var hist commands.FileHistoryResult
	e.MustCmd(commands.NameFileHistory, map[string]any{"uri": testkit.URI(filepath.Join(link, "a.txt"))}, &hist)
	if len(hist.History) != 1 {
		t.Fatalf("fileHistory through the symlinked folder: %+v", hist)
	}
	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	waitSaved(t, e)
	if got, _ := e.Text(filepath.Join(link, "a.txt")); !rr.Applied || got != "one\ntwo\n" {
		t.Fatalf("applied=%v %q buffer %q", rr.Applied, rr.FailureReason, got)
	}
}

// TestRestoreFileDeletedUnderOpenBuffer: the agent deletes a file the
// editor holds open (the editor keeps the buffer); the rewind restores the
// file and the buffer, for every kind of client.
func TestRestoreFileDeletedUnderOpenBuffer(t *testing.T) {
	for _, kind := range []testkit.EditorKind{testkit.VSCodeLike, testkit.NeovimLike, testkit.PlainClient} {
		t.Run(string(kind), func(t *testing.T) {
			w := testkit.NewSandbox(t)
			w.Write("keep.go", "package keep\n\nfunc K() {}\n")
			_, e := startServer(t, w, kind)
			e.Open(w.Abs("keep.go"))
			e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "delete keep.go"}, nil)
			w.Remove("keep.go")
			e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
			var rr commands.RewindResult
			e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
			if !rr.Applied {
				t.Fatalf("rewind: %s", rr.FailureReason)
			}
			waitSaved(t, e)
			if data, err := os.ReadFile(w.Abs("keep.go")); err != nil || string(data) != "package keep\n\nfunc K() {}\n" {
				t.Fatalf("keep.go after the rewind: %q, %v", data, err)
			}
			if got, _ := e.Text(w.Abs("keep.go")); got != "package keep\n\nfunc K() {}\n" {
				t.Fatalf("buffer: %q", got)
			}
		})
	}
}

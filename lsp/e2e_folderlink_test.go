package lsp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestRewindFolderBackIntoSymlink: the agent replaced
// the symbolic link `lnk` by a folder `lnk` holding new.txt (and, in the
// second case, a text file `notes` by a folder `notes` holding a.txt). The
// rewind makes the folder a link (a file) again, its undo makes it a folder
// again. Every kind of client gets applied:true and exactly the tree of the
// target, with the file under the folder open in the editor or not.
func TestRewindFolderBackIntoSymlink(t *testing.T) {
	cases := []struct {
		name   string
		before func(w *testkit.Sandbox)
		agent  func(w *testkit.Sandbox)
		open   string
	}{
		{"link", func(w *testkit.Sandbox) {
			w.Write("real/x.txt", "in the real folder\n")
			w.Symlink("lnk", "real")
		}, func(w *testkit.Sandbox) {
			w.Remove("lnk")
			w.Write("lnk/new.txt", "made by the agent\n")
			w.Write("lnk/sub/deeper.txt", "made by the agent\n")
		}, "lnk/new.txt"},
		{"file", func(w *testkit.Sandbox) {
			w.Write("notes", "a text file\n")
		}, func(w *testkit.Sandbox) {
			w.Remove("notes")
			w.Write("notes/a.txt", "made by the agent\n")
		}, "notes/a.txt"},
	}
	for _, c := range cases {
		for _, kind := range []testkit.EditorKind{testkit.VSCodeLike, testkit.NeovimLike, testkit.PlainClient} {
			for _, open := range []bool{false, true} {
				name := c.name + "/" + string(kind) + "/closed"
				if open {
					name = c.name + "/" + string(kind) + "/open"
				}
				t.Run(name, func(t *testing.T) {
					w := testkit.NewSandbox(t)
					w.Write("keep.txt", "keep\n")
					c.before(w)
					before := w.State()
					_, e := startServer(t, w, kind)
					e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "make it a folder"}, nil)
					c.agent(w)
					e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
					after := w.State()
					if open {
						e.Open(w.Abs(c.open))
					}
					var rr commands.RewindResult
					e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
					if !rr.Applied {
						t.Fatalf("rewind of a folder back into a %s: %s", c.name, rr.FailureReason)
					}
					waitSaved(t, e)
					w.WantState(before, "after the rewind")
					var plan commands.Plan
					e.MustCmd(commands.NamePreview, map[string]any{"target": "1"}, &plan)
					if len(plan.Files) != 0 {
						t.Fatalf("after the rewind the plan still has %+v", plan.Files)
					}
					e.MustCmd(commands.NameUndo, map[string]any{}, &rr)
					if !rr.Applied {
						t.Fatalf("undo (the %s a folder again): %s", c.name, rr.FailureReason)
					}
					waitSaved(t, e)
					w.WantState(after, "after the undo")
				})
			}
		}
	}
}

// TestUndoAfterRewindIntoLinkOutside: the root holds a link to a folder
// outside it, and that folder holds a file named like one the agent then
// makes. The agent replaces the link by a real folder (new.txt and x); the
// rewind to the checkpoint makes it the link again, writing nothing
// outside; the undo brings back the folder and its two files — the file
// outside, seen through the restored link, is no edit of lnk/x and no
// conflict. Every kind of client, with the agent's change recorded by a
// turn and by an automatic turn.
func TestUndoAfterRewindIntoLinkOutside(t *testing.T) {
	for _, kind := range []testkit.EditorKind{testkit.VSCodeLike, testkit.NeovimLike, testkit.PlainClient} {
		for _, auto := range []bool{false, true} {
			name := string(kind) + "/turn"
			if auto {
				name = string(kind) + "/automatic"
			}
			t.Run(name, func(t *testing.T) {
				w := testkit.NewSandbox(t)
				outside := t.TempDir()
				if err := os.WriteFile(filepath.Join(outside, "x"), []byte("outside the root\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				w.Write("keep.txt", "keep\n")
				w.Symlink("lnk", outside)
				before := w.State()
				srv, c := testkit.StartServer(w)
				e := testkit.NewEditor(t, c, kind)
				e.Server = srv
				e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store, "autoTurnQuietMs": 200})
				e.MustCmd(commands.NameCheckpoint, map[string]any{"label": "before"}, nil)
				agent := func() {
					w.Remove("lnk")
					w.Write("lnk/new.txt", "made by the agent\n")
					w.Write("lnk/x", "x by the agent\n")
				}
				if auto {
					agent()
					waitAutoTurn(t, e, 1)
				} else {
					e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "make it a folder"}, nil)
					agent()
					e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
				}
				after := w.State()
				var rr commands.RewindResult
				e.MustCmd(commands.NameRewind, map[string]any{"target": "@before"}, &rr)
				if !rr.Applied {
					t.Fatalf("rewind of the folder back into a link: %s", rr.FailureReason)
				}
				waitSaved(t, e)
				w.WantState(before, "after the rewind")
				if data, err := os.ReadFile(filepath.Join(outside, "x")); err != nil || string(data) != "outside the root\n" {
					t.Fatalf("the file outside the root: %q %v", data, err)
				}
				if ents, _ := os.ReadDir(outside); len(ents) != 1 {
					t.Fatalf("the rewind wrote outside the root: %v", ents)
				}
				e.MustCmd(commands.NameUndo, map[string]any{}, &rr)
				if !rr.Applied {
					t.Fatalf("undo (the folder back): %s", rr.FailureReason)
				}
				waitSaved(t, e)
				w.WantState(after, "after the undo")
				if data, _ := os.ReadFile(filepath.Join(outside, "x")); string(data) != "outside the root\n" {
					t.Fatalf("the undo changed the file outside the root: %q", data)
				}
			})
		}
	}
}

// waitAutoTurn waits until the n-th turn is an ended automatic turn.
func waitAutoTurn(t *testing.T, e *testkit.Editor, n int) {
	t.Helper()
	for t0 := time.Now(); time.Since(t0) < 20*time.Second; time.Sleep(50 * time.Millisecond) {
		var l commands.ListResult
		e.MustCmd(commands.NameList, map[string]any{}, &l)
		if len(l.Turns) >= n && l.Turns[n-1].Ended != "" {
			if l.Turns[n-1].Source != journal.SourceAuto {
				t.Fatalf("turn %d has source %q, want auto", n, l.Turns[n-1].Source)
			}
			return
		}
	}
	t.Fatalf("no automatic turn %d", n)
}

package lsp

import (
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
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
		before func(w *wsp)
		agent  func(w *wsp)
		open   string
	}{
		{"link", func(w *wsp) {
			w.write("real/x.txt", "in the real folder\n", 0o644)
			w.symlink("lnk", "real")
		}, func(w *wsp) {
			w.remove("lnk")
			w.write("lnk/new.txt", "made by the agent\n", 0o644)
			w.write("lnk/sub/deeper.txt", "made by the agent\n", 0o644)
		}, "lnk/new.txt"},
		{"file", func(w *wsp) {
			w.write("notes", "a text file\n", 0o644)
		}, func(w *wsp) {
			w.remove("notes")
			w.write("notes/a.txt", "made by the agent\n", 0o644)
		}, "notes/a.txt"},
	}
	for _, c := range cases {
		for _, kind := range []editorKind{vscodeLike, neovimLike, plainClient} {
			for _, open := range []bool{false, true} {
				name := c.name + "/" + string(kind) + "/closed"
				if open {
					name = c.name + "/" + string(kind) + "/open"
				}
				t.Run(name, func(t *testing.T) {
					w := newWsp(t)
					w.write("keep.txt", "keep\n", 0o644)
					c.before(w)
					before := w.state()
					_, e := startServer(t, w, kind)
					e.mustCmd(commands.NameTurnStart, map[string]any{"prompt": "make it a folder"}, nil)
					c.agent(w)
					e.mustCmd(commands.NameTurnEnd, map[string]any{}, nil)
					after := w.state()
					if open {
						e.open(w.abs(c.open))
					}
					var rr commands.RewindResult
					e.mustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
					if !rr.Applied {
						t.Fatalf("rewind of a folder back into a %s: %s", c.name, rr.FailureReason)
					}
					waitSaved(t, e)
					w.wantState(before, "after the rewind")
					var plan commands.Plan
					e.mustCmd(commands.NamePreview, map[string]any{"target": "1"}, &plan)
					if len(plan.Files) != 0 {
						t.Fatalf("after the rewind the plan still has %+v", plan.Files)
					}
					e.mustCmd(commands.NameUndo, map[string]any{}, &rr)
					if !rr.Applied {
						t.Fatalf("undo (the %s a folder again): %s", c.name, rr.FailureReason)
					}
					waitSaved(t, e)
					w.wantState(after, "after the undo")
				})
			}
		}
	}
}

package lsp

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/env"
)

// blameOf renders rewind.blame of rel as "line:turn …".
func blameOf(t *testing.T, e *testkit.Editor, w *testkit.Sandbox, rel string) string {
	t.Helper()
	var res commands.BlameResult
	e.MustCmd(commands.NameBlame, map[string]any{"uri": testkit.URI(w.Abs(rel))}, &res)
	var parts []string
	for _, r := range res.Ranges {
		for l := r.StartLine; l < r.EndLine; l++ {
			parts = append(parts, fmt.Sprintf("%d:%d", l, r.Turn))
		}
	}
	return strings.Join(parts, " ")
}

// TestRevertTurnInEditor: reverting one turn through an editor. Turns 1,
// 2, 3 edit one file in different places and turn 2 creates a file. Blame
// shows the three turns; reverting turn 2 after the person edited turn 2's
// line is refused naming user; once that edit is gone the revert keeps
// turns 1 and 3 exactly, removes the created file, and undo brings it all
// back.
func TestRevertTurnInEditor(t *testing.T) {
	for _, kind := range []testkit.EditorKind{testkit.VSCodeLike, testkit.NeovimLike} {
		t.Run(string(kind), func(t *testing.T) {
			w := testkit.NewSandbox(t)
			w.Write("f.txt", "one\ntwo\nthree\nfour\nfive\n")
			_, e := startServer(t, w, kind)
			f := w.Abs("f.txt")
			e.Open(f)
			ev := env.OverEditor(t, w, e)
			ev.Turn("first", map[string]string{"f.txt": "ONE\ntwo\nthree\nfour\nfive\n"})
			ev.Turn("second", map[string]string{"f.txt": "ONE\ntwo\nTHREE\nfour\nfive\n", "made.txt": "by turn 2\n"})
			ev.Turn("third", map[string]string{"f.txt": "ONE\ntwo\nTHREE\nfour\nFIVE\n"})
			if got := blameOf(t, e, w, "f.txt"); got != "0:1 2:2 4:3" {
				t.Fatalf("blame after three turns: %q", got)
			}

			// The person edits the line turn 2 wrote (unsaved buffer).
			e.TypeText(f, kitRange(Range{Position{2, 5}, Position{2, 5}}), " (mine)")
			var rr commands.RewindResult
			// A dry run that finds the conflict answers it, and shows no message.
			n := e.Conn.NotifCount()
			e.MustCmd(commands.NameRevert, map[string]any{"target": "2", "dryRun": true}, &rr)
			if rr.Applied || !strings.Contains(rr.FailureReason, "user") {
				t.Fatalf("dry run over the person's edit: %+v", rr)
			}
			if m, _ := e.Conn.WaitNotification("window/showMessage", n, 300*time.Millisecond, nil); m != nil {
				t.Fatalf("a dry run showed a message: %s", m.Params)
			}
			e.MustCmd(commands.NameRevert, map[string]any{"target": "2"}, &rr)
			if rr.Applied || !strings.Contains(rr.FailureReason, "user") || !strings.Contains(rr.FailureReason, "f.txt") {
				t.Fatalf("revert over the person's edit: applied=%v reason=%q", rr.Applied, rr.FailureReason)
			}
			var conflict *commands.PlanFile
			for i := range rr.Plan.Files {
				if rr.Plan.Files[i].Path == "f.txt" {
					conflict = &rr.Plan.Files[i]
				}
			}
			if conflict == nil || !conflict.Conflict || strings.Join(conflict.Overlaps, ",") != "user" {
				t.Fatalf("plan of the refused revert: %+v", rr.Plan.Files)
			}
			if got := blameOf(t, e, w, "f.txt"); got != "0:1 4:3" {
				t.Fatalf("blame with the person's edit in the buffer: %q", got)
			}
			if _, err := os.Stat(w.Abs("made.txt")); err != nil {
				t.Fatal("a refused revert removed made.txt")
			}

			// The person takes the edit back; the revert goes through.
			e.TypeText(f, kitRange(Range{Position{2, 5}, Position{2, 12}}), "")
			e.MustCmd(commands.NameRevert, map[string]any{"target": "2"}, &rr)
			if !rr.Applied || rr.Entry == "" {
				t.Fatalf("revert of turn 2: %q", rr.FailureReason)
			}
			waitSaved(t, e)
			if got, _ := e.Text(f); got != "ONE\ntwo\nthree\nfour\nFIVE\n" {
				t.Fatalf("buffer after reverting turn 2: %q", got)
			}
			if _, err := os.Stat(w.Abs("made.txt")); err == nil {
				t.Fatal("made.txt, created by turn 2, is still there")
			}
			if got := blameOf(t, e, w, "f.txt"); got != "0:1 4:3" {
				t.Fatalf("blame after the revert: %q", got)
			}

			e.MustCmd(commands.NameUndo, map[string]any{}, &rr)
			if !rr.Applied {
				t.Fatalf("undo of the revert: %q", rr.FailureReason)
			}
			waitSaved(t, e)
			if got, _ := e.Text(f); got != "ONE\ntwo\nTHREE\nfour\nFIVE\n" {
				t.Fatalf("buffer after undo: %q", got)
			}
			if data, err := os.ReadFile(w.Abs("made.txt")); err != nil || string(data) != "by turn 2\n" {
				t.Fatalf("made.txt after undo: %q %v", data, err)
			}
			if got := blameOf(t, e, w, "f.txt"); got != "0:1 2:2 4:3" {
				t.Fatalf("blame after undo: %q", got)
			}
		})
	}
}

// TestBlameHoverAndRevertHereAction: hover on a line a turn wrote names
// the turn and links its preview and revert; the "Revert turn N here"
// action is offered on it and takes back only that hunk; the Preview
// action opens the plan's diff with window/showDocument.
func TestBlameHoverAndRevertHereAction(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("f.txt", "a\nb\nc\nd\ne\n")
	_, e := startServer(t, w, testkit.VSCodeLike)
	f := w.Abs("f.txt")
	e.Open(f)
	ev := env.OverEditor(t, w, e)
	ev.Turn("shout a and e", map[string]string{"f.txt": "A\nb\nc\nd\nE\n"})
	ev.Turn("shout c", map[string]string{"f.txt": "A\nb\nC\nd\nE\n"})
	uri := testkit.URI(f)

	hover := func(line int) *hoverResult {
		var raw json.RawMessage
		if err := e.Conn.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri},
			"position": Position{line, 0}}, &raw); err != nil {
			t.Fatal(err)
		}
		if string(raw) == "null" {
			return nil
		}
		var h hoverResult
		json.Unmarshal(raw, &h)
		return &h
	}
	h := hover(4)
	if h == nil || h.Contents.Kind != "markdown" || !strings.Contains(h.Contents.Value, "Agent turn 1") ||
		!strings.Contains(h.Contents.Value, "shout a and e") || !strings.Contains(h.Contents.Value, "command:rewind.revert?") {
		t.Fatalf("hover on turn 1's line: %+v", h)
	}
	if h := hover(1); h != nil {
		t.Fatalf("hover on a line no turn wrote: %+v", h)
	}

	actions := func(line int) map[string]codeAction {
		var list []codeAction
		if err := e.Conn.Call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
			"range": Range{Position{line, 0}, Position{line, 0}}, "context": map[string]any{"diagnostics": []any{}}}, &list); err != nil {
			t.Fatal(err)
		}
		m := map[string]codeAction{}
		for _, a := range list {
			m[a.Title] = a
		}
		return m
	}
	if _, ok := actions(1)["Revert turn 1 here (keep later changes)"]; ok {
		t.Fatal("revert-here offered on a line no turn changed")
	}
	a, ok := actions(4)["Revert turn 1 here (keep later changes)"]
	if !ok {
		t.Fatalf("no revert-here action on turn 1's line: %v", actions(4))
	}
	var arg map[string]any
	json.Unmarshal(mustJSON(a.Command.Arguments[0]), &arg)
	var rr commands.RewindResult
	e.MustCmd(a.Command.Command, arg, &rr)
	if !rr.Applied {
		t.Fatalf("revert here: %q", rr.FailureReason)
	}
	if got, _ := e.Text(f); got != "A\nb\nC\nd\ne\n" {
		t.Fatalf("after reverting turn 1 at line 4: %q (turn 1's other hunk and turn 2 must stay)", got)
	}

	p, ok := actions(2)["Preview turn 2 changes to this file"]
	if !ok {
		t.Fatal("no preview action")
	}
	var parg map[string]any
	json.Unmarshal(mustJSON(p.Command.Arguments[0]), &parg)
	e.MustCmd(p.Command.Command, parg, nil)
	shown := append([]string(nil), e.Shown()...)
	if len(shown) != 1 {
		t.Fatalf("showDocument requests: %v", shown)
	}
	u, _ := url.Parse(shown[0])
	data, err := os.ReadFile(u.Path)
	if err != nil || !strings.Contains(string(data), "-C\n+c\n") || !strings.Contains(string(data), "-e\n+E\n") {
		t.Fatalf("the shown preview %s holds %q (%v)", u.Path, data, err)
	}
	if fi, err := os.Stat(u.Path); err != nil || fi.Mode().Perm()&0o222 != 0 {
		t.Fatalf("the shown preview is not read-only: %v", fi.Mode())
	}
}

package lsp

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// These tests drive the real binary over stdio with the fake editor, and
// make agent turns with the binary's command line or the turn commands.

func jsonStr(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// startServer starts the binary for w and initializes it as kind.
func startServer(t *testing.T, w *testkit.Sandbox, kind testkit.EditorKind, encodings ...string) (*testkit.Server, *testkit.Editor) {
	srv, c := testkit.StartServer(w)
	e := testkit.NewEditor(t, c, kind)
	e.Server = srv
	e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store}, encodings...)
	return srv, e
}

// seed writes the initial workspace of the two-turn session.
func seed(w *testkit.Sandbox) {
	w.Write("keep.txt", "unchanged\n")
	w.Write("src/mod.go", "// 😀 𝄞 héllo wörld 🎉\npackage mod\n\nfunc A() int { return 1 }\n\nfunc B() {}\n")
	w.Write("crlf.txt", "one\r\ntwo 😀\r\nthree\r\nfour\r\n")
	w.Write("lonecr.txt", "a\rb\rc\r")
	w.Write("noeol.txt", "first\nno final newline 𝄞")
	w.Write("del.txt", "to be deleted by the agent\n")
	w.Write("bin.dat", "\x00\x01\x02\xff\x00binary")
	w.Write("latin1.txt", "caf\xe9 cr\xe8me\n")
	w.Write("run.sh", "#!/bin/sh\necho hi\n")
	w.Symlink("link", "keep.txt")
}

// agentTurn1 is the first turn's edits, made on disk as an agent would.
func agentTurn1(w *testkit.Sandbox) {
	w.Write("src/mod.go", "// 😀 𝄞 héllo wörld 🎉\npackage mod\n\nfunc A() int { return 42 } // 🚀\n\nfunc B() {}\n")
	w.Write("crlf.txt", "one\r\nTWO 😀😀\r\nthree\r\nfour\r\n")
	w.Write("lonecr.txt", "a\rB\rc\r")
	w.Write("new/dir/created.txt", "created by the agent\n")
	w.Remove("del.txt")
	w.Write("bin.dat", "\x00\x01\x02\xfe\x00binary2")
	w.Write("latin1.txt", "caf\xe9 cr\xe8me br\xfbl\xe9e\n")
	w.WriteMode("run.sh", "#!/bin/sh\necho hi\n", 0o755)
	w.Symlink("link", "src/mod.go")
}

// agentTurn2 is the second turn's edits.
func agentTurn2(w *testkit.Sandbox) {
	w.Write("src/mod.go", "// 😀 𝄞 héllo wörld 🎉\npackage mod\n\nfunc A() int { return 42 } // 🚀\n\nfunc B() { A() }\n\nfunc C() {}\n")
	w.Write("noeol.txt", "first\nno final newline 𝄞 changed")
	w.Write("new/second.txt", "second turn\r\n")
}

func TestTwoTurnSession(t *testing.T) {
	for _, kind := range []testkit.EditorKind{testkit.VSCodeLike, testkit.NeovimLike, testkit.PlainClient} {
		t.Run(string(kind), func(t *testing.T) { twoTurnSession(t, kind) })
	}
}

func twoTurnSession(t *testing.T, kind testkit.EditorKind) {
	w := testkit.NewSandbox(t)
	seed(w)
	s0 := w.State()
	_, e := startServer(t, w, kind)
	open := []string{"src/mod.go", "crlf.txt", "noeol.txt", "lonecr.txt"}
	for _, rel := range open {
		e.Open(w.Abs(rel))
	}
	reloadAll := func() {
		for _, rel := range open {
			e.Reload(w.Abs(rel))
		}
	}

	// Turn 1 from the command line; its journal change reaches the editor.
	mark := e.Conn.NotifCount()
	w.MustRun("turn", "start", "--prompt", "make A return 42")
	agentTurn1(w)
	w.MustRun("turn", "end", "--summary", "done")
	reloadAll()
	if kind != testkit.PlainClient {
		if m, _ := e.Conn.WaitNotification("rewind/didChange", mark, didChangeWait, nil); m == nil {
			t.Fatal("no rewind/didChange after a turn made on the command line")
		}
	} // a plain client did not declare rewind/didChange (TestJournalChangeFromOtherProcess)

	// Turn 2 over LSP.
	var ts commands.TurnStartResult
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "add C"}, &ts)
	agentTurn2(w)
	reloadAll()
	var te commands.TurnEndResult
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, &te)
	if ts.Turn != 2 || te.Turn != 2 {
		t.Fatalf("turn numbers %d/%d; want 2", ts.Turn, te.Turn)
	}
	s2 := w.State()

	// Preview to before turn 1.
	var plan commands.Plan
	e.MustCmd(commands.NamePreview, map[string]any{"target": "1"}, &plan)
	got := map[string]string{}
	for _, f := range plan.Files {
		got[f.Path] = string(f.Change) + "/" + string(f.Via)
		if f.Conflict {
			t.Errorf("preview: unexpected conflict on %s", f.Path)
		}
	}
	createVia := "edit"
	if kind == testkit.PlainClient {
		createVia = "disk"
	}
	want := map[string]string{
		"src/mod.go": "modify/edit", "crlf.txt": "modify/edit", "lonecr.txt": "modify/edit", "noeol.txt": "modify/edit",
		"new/dir/created.txt": "delete/" + createVia, "new/second.txt": "delete/" + createVia, "del.txt": "create/" + createVia,
		"bin.dat": "modify/disk", "latin1.txt": "modify/disk", "run.sh": "modify/disk", "link": "modify/disk",
	}
	if runtime.GOOS == "windows" {
		delete(want, "run.sh") // no executable bit to change
	}
	if w.NoLinks {
		delete(want, "link")
	}
	if jsonStr(got) != jsonStr(want) {
		t.Fatalf("plan files:\n got %v\nwant %v", got, want)
	}

	// Rewind: the workspace is exactly as before turn 1, buffers too.
	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	if !rr.Applied {
		t.Fatalf("rewind not applied: %s", rr.FailureReason)
	}
	waitSaved(t, e)
	w.WantState(s0, "after rewind")
	checkBuffers(t, e, w, open, s0)
	checkEditShape(t, e, kind)

	// Echoes are the rewind's own: no conflict, nothing left to do.
	e.MustCmd(commands.NamePreview, map[string]any{"target": "1"}, &plan)
	if len(plan.Files) != 0 {
		t.Fatalf("after the rewind, the plan still has %v", plan.Files)
	}
	var list commands.ListResult
	e.MustCmd(commands.NameList, map[string]any{}, &list)
	if len(list.Turns) != 2 || len(list.Rewinds) != 1 {
		t.Fatalf("list after rewind: %d turns, %d rewinds; want 2, 1", len(list.Turns), len(list.Rewinds))
	}

	// Undo: exactly the state after turn 2.
	var ur commands.RewindResult
	e.MustCmd(commands.NameUndo, map[string]any{}, &ur)
	if !ur.Applied {
		t.Fatalf("undo not applied: %s", ur.FailureReason)
	}
	waitSaved(t, e)
	w.WantState(s2, "after undo")
	checkBuffers(t, e, w, open, s2)
	e.MustCmd(commands.NameList, map[string]any{}, &list)
	if len(list.Turns) != 2 || len(list.Rewinds) != 1 || !list.Rewinds[0].Undone {
		t.Fatalf("list after undo: %+v", list)
	}
}

// waitSaved waits until the editor has applied, sent back and saved every
// edit it was sent: a Neovim-like editor does that after it answers, and
// any editor after its server died while waiting for the answer.
func waitSaved(t *testing.T, e *testkit.Editor) {
	t.Helper()
	if !e.WaitApplied(10 * time.Second) {
		t.Fatal("the editor did not finish applying, sending back and saving an edit")
	}
}

func checkBuffers(t *testing.T, e *testkit.Editor, w *testkit.Sandbox, open []string, want map[string]testkit.File) {
	t.Helper()
	for _, rel := range open {
		got, ok := e.Text(w.Abs(rel))
		if !ok {
			t.Errorf("%s is no longer open in the editor", rel)
			continue
		}
		if got != want[rel].Data {
			t.Errorf("buffer %s = %q; want %q", rel, got, want[rel].Data)
		}
		var dd debugDocumentResult
		if err := e.Conn.Call("rewind/debugDocument", map[string]any{"uri": testkit.URI(w.Abs(rel))}, &dd); err != nil {
			t.Errorf("debugDocument %s: %v", rel, err)
		} else if dd.Text != got {
			t.Errorf("the server's view of %s is %q; the editor has %q", rel, dd.Text, got)
		}
	}
}

// checkEditShape checks the WorkspaceEdit the client kind received.
func checkEditShape(t *testing.T, e *testkit.Editor, kind testkit.EditorKind) {
	t.Helper()
	if len(e.Edits()) == 0 {
		t.Fatal("no workspace/applyEdit was received")
	}
	raw := string(e.Edits()[len(e.Edits())-1])
	var p applyWorkspaceEditParams
	json.Unmarshal([]byte(raw), &p)
	if !strings.HasPrefix(p.Label, "Rewind to turn 1 (") {
		t.Errorf("label %q", p.Label)
	}
	if strings.Contains(raw, "null]") || strings.Contains(raw, `"edits":null`) {
		t.Errorf("null where an array belongs: %s", raw)
	}
	switch kind {
	case testkit.PlainClient:
		if p.Edit.DocumentChanges != nil || len(p.Edit.Changes) == 0 {
			t.Errorf("a plain client must get the changes form: %s", raw)
		}
	default:
		phase := 0 // creates, edits, deletes
		for _, dc := range p.Edit.DocumentChanges {
			ph := 1
			switch {
			case dc.Create != nil:
				ph = 0
			case dc.Delete != nil:
				ph = 2
			}
			if ph < phase {
				t.Errorf("documentChanges out of order (creates, edits, deletes): %s", raw)
			}
			phase = ph
		}
		if !strings.Contains(raw, `"kind":"create"`) || !strings.Contains(raw, `"kind":"delete"`) {
			t.Errorf("resource operations missing: %s", raw)
		}
		if !strings.Contains(raw, `"version":null`) || !strings.Contains(raw, `"version":`) {
			t.Errorf("want versioned edits for open documents and null versions for others: %s", raw)
		}
	}
}

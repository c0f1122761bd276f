package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestServerKilledAfterForcedRewind: the user has an
// unsaved edit in an open buffer and a saved one on disk; a forced rewind
// overwrites both. The server is killed (SIGKILL) while the editor applies
// the edit, so it never hears the answer, records nothing after it and
// writes none of its `via: disk` files (a binary file; for a client without
// resource operations, a delete). The next command — the command line, or
// a new server — finishes the rewind (listed as applied, the tree exactly
// the target), and undo brings both user edits back.
func TestServerKilledAfterForcedRewind(t *testing.T) {
	for _, kind := range []testkit.EditorKind{testkit.VSCodeLike, testkit.NeovimLike, testkit.PlainClient} {
		for _, next := range []string{"cli", "server"} {
			t.Run(string(kind)+"/"+next, func(t *testing.T) { serverKilledAfterForcedRewind(t, kind, next) })
		}
	}
}

func serverKilledAfterForcedRewind(t *testing.T, kind testkit.EditorKind, next string) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "alpha\nbeta\n")
	w.Write("b.txt", "one\n")
	w.Write("bin.dat", "\x00binary\x01")
	srv, e := startServer(t, w, kind)
	e.Open(w.Abs("a.txt"))
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "agent turn"}, nil)
	w.Write("a.txt", "alpha\nBETA by the agent\n")
	w.Write("b.txt", "ONE\n")
	w.Write("c.txt", "created by the agent\n")
	w.Write("bin.dat", "\x00binary by the agent\x02")
	e.Reload(w.Abs("a.txt"))
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	target := map[string]testkit.File{"a.txt": {Data: "alpha\nbeta\n", Kind: "file"}, "b.txt": {Data: "one\n", Kind: "file"},
		"bin.dat": {Data: "\x00binary\x01", Kind: "file"}}
	// What the editor does alone: the text edits, and the delete when it
	// has resource operations.
	editorPart := map[string]testkit.File{"a.txt": target["a.txt"], "b.txt": target["b.txt"],
		"bin.dat": {Data: "\x00binary by the agent\x02", Kind: "file"}}
	if kind == testkit.PlainClient {
		editorPart["c.txt"] = testkit.File{Data: "created by the agent\n", Kind: "file"}
	}

	// The user's edits: unsaved text in a.txt, a saved change to b.txt.
	e.TypeText(w.Abs("a.txt"), kitRange(Range{Position{0, 0}, Position{0, 0}}), "unsaved user line\n")
	w.Write("b.txt", "ONE\nsaved user line\n")
	mine := map[string]testkit.File{
		"a.txt":   {Data: "unsaved user line\nalpha\nBETA by the agent\n", Kind: "file"},
		"b.txt":   {Data: "ONE\nsaved user line\n", Kind: "file"},
		"c.txt":   {Data: "created by the agent\n", Kind: "file"},
		"bin.dat": {Data: "\x00binary by the agent\x02", Kind: "file"},
	}

	// The server dies once it sent the edit; the editor applies it anyway
	// (and saves, as an editor set up to save does).
	journal := filepath.Join(w.Store, "journal")
	var pendingSeen bool
	e.SetBeforeApply(func(e *testkit.Editor) {
		e.SetBeforeApply(nil)
		data, _ := os.ReadFile(journal)
		pendingSeen = strings.Contains(string(data), `"pending":true`)
		srv.Proc.Signal(syscall.SIGKILL)
		<-e.Conn.Closed()
	})
	if err := e.Cmd(commands.NameRewind, map[string]any{"target": "1", "force": true}, nil); err == nil {
		t.Fatal("the rewind answered although its server was killed")
	}
	waitState(t, w, editorPart, "the editor applying the forced rewind")
	if !pendingSeen {
		t.Error("the rewind was not recorded as pending before its edit was sent")
	}

	var undo func() commands.RewindResult
	var list func() commands.ListResult
	switch next {
	case "cli":
		list = func() (l commands.ListResult) {
			unmarshalT(t, w.MustRun("--json", "log"), &l)
			return l
		}
		undo = func() (r commands.RewindResult) {
			unmarshalT(t, w.MustRun("--json", "undo"), &r)
			return r
		}
	case "server":
		_, e2 := startServer(t, w, kind)
		list = func() (l commands.ListResult) {
			e2.MustCmd(commands.NameList, map[string]any{}, &l)
			return l
		}
		undo = func() (r commands.RewindResult) {
			e2.MustCmd(commands.NameUndo, map[string]any{}, &r)
			waitSaved(t, e2)
			return r
		}
	}
	l := list()
	if len(l.Rewinds) != 1 || !l.Rewinds[0].Applied || l.Rewinds[0].Undone {
		t.Fatalf("after the crash, the rewinds are %+v; want the forced rewind, applied", l.Rewinds)
	}
	w.WantState(target, "after the rewind was finished")
	if r := undo(); !r.Applied {
		t.Fatalf("undo of the rewind the server did not finish: %s", r.FailureReason)
	}
	waitState(t, w, mine, "undo")
	if l := list(); len(l.Rewinds) != 1 || !l.Rewinds[0].Undone {
		t.Fatalf("after the undo, the rewinds are %+v", l.Rewinds)
	}
}

// waitState waits (5 s at most) until the workspace is exactly want.
func waitState(t *testing.T, w *testkit.Sandbox, want map[string]testkit.File, when string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if st, err := w.ReadState(); err == nil && jsonStr(st) == jsonStr(want) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.WantState(want, when)
}

func unmarshalT(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("decoding %q: %v", out, err)
	}
}

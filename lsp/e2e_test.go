package lsp

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// These tests drive the real binary over stdio with the fake editor, and
// make agent turns with the binary's command line or the turn commands.

// fstate is one file of a workspace state.
type fstate struct {
	Data string
	Kind string // file, exec, symlink
}

// wsp is a test workspace: a root, a store and a private home.
type wsp struct {
	t                 *testing.T
	home, root, store string
}

func newWsp(t *testing.T) *wsp {
	home := t.TempDir()
	w := &wsp{t: t, home: home, root: filepath.Join(home, "work"), store: filepath.Join(home, "store")}
	if err := os.MkdirAll(w.root, 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *wsp) abs(rel string) string { return filepath.Join(w.root, filepath.FromSlash(rel)) }

func (w *wsp) write(rel, data string, mode fs.FileMode) {
	w.t.Helper()
	p := w.abs(rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		w.t.Fatal(err)
	}
}

func (w *wsp) symlink(rel, target string) {
	w.t.Helper()
	os.Remove(w.abs(rel))
	if err := os.Symlink(target, w.abs(rel)); err != nil {
		w.t.Fatal(err)
	}
}

func (w *wsp) remove(rel string) {
	w.t.Helper()
	if err := os.Remove(w.abs(rel)); err != nil {
		w.t.Fatal(err)
	}
}

// state reads every file under the root (folders only matter through
// their files).
func (w *wsp) state() map[string]fstate {
	w.t.Helper()
	st, err := w.readState()
	if err != nil {
		w.t.Fatal(err)
	}
	return st
}

// readState is state, with an error for a tree changing while it is read.
func (w *wsp) readState() (map[string]fstate, error) {
	st := map[string]fstate{}
	err := filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(w.root, p)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, _ := os.Readlink(p)
			st[filepath.ToSlash(rel)] = fstate{t, "symlink"}
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			kind := "file"
			if fi.Mode()&0o100 != 0 {
				kind = "exec"
			}
			st[filepath.ToSlash(rel)] = fstate{string(data), kind}
		}
		return nil
	})
	return st, err
}

func (w *wsp) wantState(want map[string]fstate, when string) {
	w.t.Helper()
	got := w.state()
	var diffs []string
	for p, g := range got {
		if wv, ok := want[p]; !ok {
			diffs = append(diffs, "extra "+p)
		} else if g != wv {
			diffs = append(diffs, "differs "+p+": got "+jsonStr(g)+", want "+jsonStr(wv))
		}
	}
	for p := range want {
		if _, ok := got[p]; !ok {
			diffs = append(diffs, "missing "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		w.t.Fatalf("%s: workspace state differs:\n%s", when, strings.Join(diffs, "\n"))
	}
}

func jsonStr(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// cmd runs a command over LSP.
func (e *editor) cmd(name string, arg any, result any) error {
	return e.c.call("workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}}, result)
}

func (e *editor) mustCmd(name string, arg any, result any) {
	e.t.Helper()
	if err := e.cmd(name, arg, result); err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
}

// startServer starts the binary for w and initializes it as kind.
func startServer(t *testing.T, w *wsp, kind editorKind, encodings ...string) (*server, *editor) {
	srv, c := startBinary(t, w.home)
	e := newEditor(t, c, kind)
	e.srv = srv
	e.initialize([]string{w.root}, map[string]any{"storeDir": w.store}, encodings...)
	return srv, e
}

// seed writes the initial workspace of the two-turn session.
func seed(w *wsp) {
	w.write("keep.txt", "unchanged\n", 0o644)
	w.write("src/mod.go", "// 😀 𝄞 héllo wörld 🎉\npackage mod\n\nfunc A() int { return 1 }\n\nfunc B() {}\n", 0o644)
	w.write("crlf.txt", "one\r\ntwo 😀\r\nthree\r\nfour\r\n", 0o644)
	w.write("lonecr.txt", "a\rb\rc\r", 0o644)
	w.write("noeol.txt", "first\nno final newline 𝄞", 0o644)
	w.write("del.txt", "to be deleted by the agent\n", 0o644)
	w.write("bin.dat", "\x00\x01\x02\xff\x00binary", 0o644)
	w.write("latin1.txt", "caf\xe9 cr\xe8me\n", 0o644)
	w.write("run.sh", "#!/bin/sh\necho hi\n", 0o644)
	w.symlink("link", "keep.txt")
}

// agentTurn1 is the first turn's edits, made on disk as an agent would.
func agentTurn1(w *wsp) {
	w.write("src/mod.go", "// 😀 𝄞 héllo wörld 🎉\npackage mod\n\nfunc A() int { return 42 } // 🚀\n\nfunc B() {}\n", 0o644)
	w.write("crlf.txt", "one\r\nTWO 😀😀\r\nthree\r\nfour\r\n", 0o644)
	w.write("lonecr.txt", "a\rB\rc\r", 0o644)
	w.write("new/dir/created.txt", "created by the agent\n", 0o644)
	w.remove("del.txt")
	w.write("bin.dat", "\x00\x01\x02\xfe\x00binary2", 0o644)
	w.write("latin1.txt", "caf\xe9 cr\xe8me br\xfbl\xe9e\n", 0o644)
	w.write("run.sh", "#!/bin/sh\necho hi\n", 0o755)
	w.symlink("link", "src/mod.go")
}

// agentTurn2 is the second turn's edits.
func agentTurn2(w *wsp) {
	w.write("src/mod.go", "// 😀 𝄞 héllo wörld 🎉\npackage mod\n\nfunc A() int { return 42 } // 🚀\n\nfunc B() { A() }\n\nfunc C() {}\n", 0o644)
	w.write("noeol.txt", "first\nno final newline 𝄞 changed", 0o644)
	w.write("new/second.txt", "second turn\r\n", 0o644)
}

func TestTwoTurnSession(t *testing.T) {
	for _, kind := range []editorKind{vscodeLike, neovimLike, plainClient} {
		t.Run(string(kind), func(t *testing.T) { twoTurnSession(t, kind) })
	}
}

func twoTurnSession(t *testing.T, kind editorKind) {
	w := newWsp(t)
	seed(w)
	s0 := w.state()
	_, e := startServer(t, w, kind)
	open := []string{"src/mod.go", "crlf.txt", "noeol.txt", "lonecr.txt"}
	for _, rel := range open {
		e.open(w.abs(rel))
	}
	reloadAll := func() {
		for _, rel := range open {
			e.reload(w.abs(rel))
		}
	}

	// Turn 1 from the command line; its journal change reaches the editor.
	mark := e.c.notifCount()
	cli(t, w.home, w.root, w.store, "turn", "start", "--prompt", "make A return 42")
	agentTurn1(w)
	cli(t, w.home, w.root, w.store, "turn", "end", "--summary", "done")
	reloadAll()
	if kind != plainClient {
		if m, _ := e.c.waitNotification("rewind/didChange", mark, 3*time.Second, nil); m == nil {
			t.Fatal("no rewind/didChange after a turn made on the command line")
		}
	} // a plain client did not declare rewind/didChange (TestJournalChangeFromOtherProcess)

	// Turn 2 over LSP.
	var ts commands.TurnStartResult
	e.mustCmd(commands.NameTurnStart, map[string]any{"prompt": "add C"}, &ts)
	agentTurn2(w)
	reloadAll()
	var te commands.TurnEndResult
	e.mustCmd(commands.NameTurnEnd, map[string]any{}, &te)
	if ts.Turn != 2 || te.Turn != 2 {
		t.Fatalf("turn numbers %d/%d; want 2", ts.Turn, te.Turn)
	}
	s2 := w.state()

	// Preview to before turn 1.
	var plan commands.Plan
	e.mustCmd(commands.NamePreview, map[string]any{"target": "1"}, &plan)
	got := map[string]string{}
	for _, f := range plan.Files {
		got[f.Path] = f.Change + "/" + f.Via
		if f.Conflict {
			t.Errorf("preview: unexpected conflict on %s", f.Path)
		}
	}
	createVia := "edit"
	if kind == plainClient {
		createVia = "disk"
	}
	want := map[string]string{
		"src/mod.go": "modify/edit", "crlf.txt": "modify/edit", "lonecr.txt": "modify/edit", "noeol.txt": "modify/edit",
		"new/dir/created.txt": "delete/" + createVia, "new/second.txt": "delete/" + createVia, "del.txt": "create/" + createVia,
		"bin.dat": "modify/disk", "latin1.txt": "modify/disk", "run.sh": "modify/disk", "link": "modify/disk",
	}
	if jsonStr(got) != jsonStr(want) {
		t.Fatalf("plan files:\n got %v\nwant %v", got, want)
	}

	// Rewind: the workspace is exactly as before turn 1, buffers too.
	var rr commands.RewindResult
	e.mustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	if !rr.Applied {
		t.Fatalf("rewind not applied: %s", rr.FailureReason)
	}
	waitSaved(t, e)
	w.wantState(s0, "after rewind")
	checkBuffers(t, e, w, open, s0)
	checkEditShape(t, e, kind)

	// Echoes are the rewind's own: no conflict, nothing left to do.
	e.mustCmd(commands.NamePreview, map[string]any{"target": "1"}, &plan)
	if len(plan.Files) != 0 {
		t.Fatalf("after the rewind, the plan still has %v", plan.Files)
	}
	var list commands.ListResult
	e.mustCmd(commands.NameList, map[string]any{}, &list)
	if len(list.Turns) != 2 || len(list.Rewinds) != 1 {
		t.Fatalf("list after rewind: %d turns, %d rewinds; want 2, 1", len(list.Turns), len(list.Rewinds))
	}

	// Undo: exactly the state after turn 2.
	var ur commands.RewindResult
	e.mustCmd(commands.NameUndo, map[string]any{}, &ur)
	if !ur.Applied {
		t.Fatalf("undo not applied: %s", ur.FailureReason)
	}
	waitSaved(t, e)
	w.wantState(s2, "after undo")
	checkBuffers(t, e, w, open, s2)
	e.mustCmd(commands.NameList, map[string]any{}, &list)
	if len(list.Turns) != 2 || len(list.Rewinds) != 1 || !list.Rewinds[0].Undone {
		t.Fatalf("list after undo: %+v", list)
	}
}

// waitSaved gives a Neovim-like editor (which echoes and saves after it
// answers) time to finish.
func waitSaved(t *testing.T, e *editor) {
	if e.kind == neovimLike {
		time.Sleep(200 * time.Millisecond)
	}
}

func checkBuffers(t *testing.T, e *editor, w *wsp, open []string, want map[string]fstate) {
	t.Helper()
	for _, rel := range open {
		got, ok := e.text(w.abs(rel))
		if !ok {
			t.Errorf("%s is no longer open in the editor", rel)
			continue
		}
		if got != want[rel].Data {
			t.Errorf("buffer %s = %q; want %q", rel, got, want[rel].Data)
		}
		var dd debugDocumentResult
		if err := e.c.call("rewind/debugDocument", map[string]any{"uri": uriFromPath(w.abs(rel))}, &dd); err != nil {
			t.Errorf("debugDocument %s: %v", rel, err)
		} else if dd.Text != got {
			t.Errorf("the server's view of %s is %q; the editor has %q", rel, dd.Text, got)
		}
	}
}

// checkEditShape checks the WorkspaceEdit the client kind received.
func checkEditShape(t *testing.T, e *editor, kind editorKind) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.edits) == 0 {
		t.Fatal("no workspace/applyEdit was received")
	}
	raw := string(e.edits[len(e.edits)-1])
	var p applyWorkspaceEditParams
	json.Unmarshal([]byte(raw), &p)
	if !strings.HasPrefix(p.Label, "Rewind to turn 1: ") {
		t.Errorf("label %q", p.Label)
	}
	if strings.Contains(raw, "null]") || strings.Contains(raw, `"edits":null`) {
		t.Errorf("null where an array belongs: %s", raw)
	}
	switch kind {
	case plainClient:
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

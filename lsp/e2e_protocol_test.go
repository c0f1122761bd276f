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

func waitExit(t *testing.T, srv *testkit.Server, want int) {
	t.Helper()
	select {
	case code := <-srv.Exit:
		if code != want {
			t.Fatalf("exit code %d; want %d", code, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not exit")
	}
}

func TestBinaryBadInputAndExit(t *testing.T) {
	for _, args := range [][]string{nil, {"serve"}, {"--stdio"}} {
		t.Run(strings.Join(append([]string{"rewind-lsp"}, args...), " "), func(t *testing.T) {
			w := testkit.NewSandbox(t)
			srv, c := testkit.StartServer(w, args...)
			e := testkit.NewEditor(t, c, testkit.VSCodeLike)
			wantCode(t, c.Call("workspace/executeCommand", map[string]any{"command": commands.NameStatus}, nil),
				codeNotInitialized, "initialize")
			e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store})

			orphan := 0
			for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{`, `"just a string"`, `{}`} {
				c.WriteRaw([]byte(body))
				var m *testkit.Message
				if m, orphan = c.WaitOrphan(orphan, 5*time.Second); m == nil || m.Error == nil {
					t.Fatalf("no error answer to %q", body)
				}
			}
			c.WriteBytes([]byte("this is not a header\r\n\r\nContent-Length: nope\r\n\r\n"))
			alive(t, c)

			wantCode(t, c.Call("rewind/unknown", map[string]any{}, nil), codeMethodNotFound, "rewind/unknown")
			wantCode(t, e.Cmd("rewind.explode", map[string]any{}, nil), codeInvalidParams, "unknown command")
			wantCode(t, e.Cmd(commands.NameList, map[string]any{"limit": "ten"}, nil), codeInvalidParams, "limit")
			wantCode(t, e.Cmd(commands.NameRewind, map[string]any{"target": "turn:99"}, nil), codeInvalidParams, "target")
			wantCode(t, e.Cmd(commands.NamePreview, map[string]any{"target": "1", "paths": "a.txt"}, nil), codeInvalidParams, "paths")
			wantCode(t, e.Cmd(commands.NamePreview, map[string]any{"target": "1", "mode": "sideways"}, nil), codeInvalidParams, "mode")
			wantCode(t, e.Cmd(commands.NameUndo, map[string]any{}, nil), codeRequestFailed, "nothing to undo")
			wantCode(t, c.Call("rewind/content", map[string]any{"uri": "rewind:/0000/x.txt"}, nil), codeRequestFailed, "x.txt")
			alive(t, c)

			if err := c.Call("shutdown", nil, nil); err != nil {
				t.Fatal(err)
			}
			c.Notify("exit", nil)
			waitExit(t, srv, 0)
		})
	}
}

func TestBinaryExitWithoutShutdown(t *testing.T) {
	w := testkit.NewSandbox(t)
	srv, c := testkit.StartServer(w)
	testkit.NewEditor(t, c, testkit.PlainClient).Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store})
	c.Notify("exit", nil)
	waitExit(t, srv, 1)
}

// TestShutdownWithCommandInFlight: a rewind waits on the editor's answer to
// applyEdit; shutdown is still answered at once and exit ends the process.
func TestShutdownWithCommandInFlight(t *testing.T) {
	_, e := oneTurn(t, testkit.VSCodeLike)
	block := make(chan struct{})
	t.Cleanup(func() { e.Stop(); close(block) })
	asked := make(chan struct{}, 1)
	e.SetBeforeApply(func(*testkit.Editor) { asked <- struct{}{}; <-block })
	_, rewindCh := e.Conn.Start("workspace/executeCommand", map[string]any{"command": commands.NameRewind,
		"arguments": []any{map[string]any{"target": "1"}}})
	waitApplyEdit(t, asked) // the rewind is waiting for the editor
	start := time.Now()
	if err := e.Conn.Call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	// The rewind waits a minute for the editor's answer: a shutdown answered
	// well within that did not wait for it (the bound is wide for a loaded
	// machine; the time it took is logged).
	t.Logf("shutdown took %v", time.Since(start))
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("shutdown took %v with a command in flight", d)
	}
	select {
	case m := <-rewindCh:
		t.Logf("the rewind answered before exit: %+v", m.Error)
	default:
	}
	e.Conn.Notify("exit", nil)
	start = time.Now()
	waitExit(t, e.Server, 0)
	t.Logf("exit took %v", time.Since(start))
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("exit took %v with a command in flight", d)
	}
}

// TestCancelRequest: $/cancelRequest on a rewind waiting for the editor
// answers it with RequestCancelled.
func TestCancelRequest(t *testing.T) {
	_, e := oneTurn(t, testkit.VSCodeLike)
	block := make(chan struct{})
	t.Cleanup(func() { e.Stop(); close(block) })
	asked := make(chan struct{}, 1)
	e.SetBeforeApply(func(*testkit.Editor) { asked <- struct{}{}; <-block })
	id, ch := e.Conn.Start("workspace/executeCommand", map[string]any{"command": commands.NameRewind,
		"arguments": []any{map[string]any{"target": "1"}}})
	waitApplyEdit(t, asked)
	e.Conn.Notify("$/cancelRequest", map[string]any{"id": id})
	err := e.Conn.Wait("rewind", ch, nil, 5*time.Second)
	wantCode(t, err, codeRequestCancelled, "cancelled")
}

// waitApplyEdit waits until the editor was asked to apply an edit (asked is
// signalled by its before-apply hook).
func waitApplyEdit(t *testing.T, asked <-chan struct{}) {
	t.Helper()
	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatal("the rewind never asked the editor to apply its edit")
	}
}

// TestProgress: a command slower than 200 ms reports work-done progress to
// a client that supports it.
func TestProgress(t *testing.T) {
	_, e := oneTurn(t, testkit.VSCodeLike)
	e.SetBeforeApply(func(*testkit.Editor) { time.Sleep(500 * time.Millisecond) })
	mark := e.Conn.NotifCount()
	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	begin, next := e.Conn.WaitNotification("$/progress", mark, 10*time.Second, func(m *testkit.Message) bool {
		return strings.Contains(string(m.Params), `"begin"`)
	})
	if begin == nil {
		t.Fatal("no $/progress begin for a slow rewind")
	}
	if end, _ := e.Conn.WaitNotification("$/progress", next, 10*time.Second, func(m *testkit.Message) bool {
		return strings.Contains(string(m.Params), `"end"`)
	}); end == nil {
		t.Fatal("no $/progress end")
	}
}

// TestHistoryContentAndCodeActions covers rewind.fileHistory,
// rewind/content and the code actions: a file's history, its text in a
// snapshot, and the preview and rewind actions offered on it.
func TestHistoryContentAndCodeActions(t *testing.T) {
	w, e := oneTurn(t, testkit.NeovimLike)
	uri := testkit.URI(w.Abs("a.txt"))
	var hist commands.FileHistoryResult
	e.MustCmd(commands.NameFileHistory, map[string]any{"uri": uri}, &hist)
	if len(hist.History) != 1 || hist.History[0].Turn != 1 {
		t.Fatalf("fileHistory: %+v", hist)
	}
	var content contentResult
	if err := e.Conn.Call("rewind/content", map[string]any{"uri": "rewind:/" + hist.History[0].Snapshot.String() + "/a.txt"}, &content); err != nil {
		t.Fatal(err)
	}
	if content.Text != "alpha\nbeta 😀\ngamma\n" {
		t.Fatalf("rewind/content = %q", content.Text)
	}

	actions := func(r Range, only ...string) map[string]codeAction {
		params := map[string]any{"textDocument": map[string]any{"uri": uri}, "range": r, "context": map[string]any{"diagnostics": []any{}}}
		if len(only) > 0 {
			params["context"] = map[string]any{"diagnostics": []any{}, "only": only}
		}
		var list []codeAction
		if err := e.Conn.Call("textDocument/codeAction", params, &list); err != nil {
			t.Fatal(err)
		}
		m := map[string]codeAction{}
		for _, a := range list {
			m[a.Title] = a
		}
		return m
	}
	got := actions(Range{Position{1, 2}, Position{1, 2}})
	hunk, ok := got["Revert this hunk to before turn 1"]
	if !ok || hunk.Kind != kindRefactorRewrite {
		t.Fatalf("no hunk action on the changed line: %v", got)
	}
	if _, ok := got["Rewind file to before turn 1: change things"]; !ok {
		t.Fatalf("no file action: %v", got)
	}
	if _, ok := got["Preview turn 1 changes to this file"]; !ok {
		t.Fatalf("no preview action: %v", got)
	}
	if _, ok := actions(Range{Position{0, 0}, Position{0, 1}})["Revert this hunk to before turn 1"]; ok {
		t.Fatal("a hunk action on an unchanged line")
	}
	if only := actions(Range{Position{1, 0}, Position{1, 0}}, "source"); len(only) != 2 {
		t.Fatalf("only=source: %v", only)
	}

	// Run the hunk action's command: only that hunk goes back.
	w.Write("a.txt", "alpha\nBETA 😀 by agent\ngamma\nmore by the agent\n")
	e.Reload(w.Abs("a.txt"))
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "second"}, nil)
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	var arg map[string]any
	json.Unmarshal(mustJSON(hunk.Command.Arguments[0]), &arg)
	var rr commands.RewindResult
	e.MustCmd(hunk.Command.Command, arg, &rr)
	if !rr.Applied {
		t.Fatalf("hunk rewind: %s", rr.FailureReason)
	}
	waitSaved(t, e)
	if got, _ := e.Text(w.Abs("a.txt")); got != "alpha\nbeta 😀\ngamma\nmore by the agent\n" {
		t.Fatalf("after the hunk revert: %q", got)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestMultiRoot: two folders with their own stores; root and uri select.
func TestMultiRoot(t *testing.T) {
	w := testkit.NewSandbox(t)
	rootB := filepath.Join(w.Home, "other")
	os.MkdirAll(rootB, 0o755)
	os.WriteFile(filepath.Join(rootB, "b.txt"), []byte("b\n"), 0o644)
	w.Write("a.txt", "a\n")
	srv, c := testkit.StartServer(w)
	_ = srv
	e := testkit.NewEditor(t, c, testkit.VSCodeLike)
	e.Initialize([]string{w.Root, rootB}, map[string]any{"storeDir": w.Store})

	var sa, sb commands.StatusResult
	e.MustCmd(commands.NameStatus, map[string]any{}, &sa)
	e.MustCmd(commands.NameStatus, map[string]any{"root": testkit.URI(rootB)}, &sb)
	if sa.Root != w.Root || sb.Root != rootB || sa.Store == sb.Store || sa.Store != w.Store {
		t.Fatalf("status: %+v / %+v", sa, sb)
	}
	var byURI commands.StatusResult
	e.MustCmd(commands.NameStatus, map[string]any{"uri": testkit.URI(filepath.Join(rootB, "b.txt"))}, &byURI)
	if byURI.Root != rootB {
		t.Fatalf("uri selected %s; want %s", byURI.Root, rootB)
	}
	// A turn in B does not show in A.
	e.MustCmd(commands.NameTurnStart, map[string]any{"root": rootB, "prompt": "in b"}, nil)
	os.WriteFile(filepath.Join(rootB, "b.txt"), []byte("B\n"), 0o644)
	e.MustCmd(commands.NameTurnEnd, map[string]any{"root": rootB}, nil)
	e.MustCmd(commands.NameStatus, map[string]any{}, &sa)
	e.MustCmd(commands.NameStatus, map[string]any{"root": rootB}, &sb)
	if sa.Turns != 0 || sb.Turns != 1 {
		t.Fatalf("turns: a=%d b=%d; want 0, 1", sa.Turns, sb.Turns)
	}
	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"root": rootB, "target": "1"}, &rr)
	if data, _ := os.ReadFile(filepath.Join(rootB, "b.txt")); !rr.Applied || string(data) != "b\n" {
		t.Fatalf("rewind in b: %+v, b.txt=%q", rr, data)
	}

	// Folders come and go.
	c.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{}, "removed": []any{map[string]any{"uri": testkit.URI(rootB), "name": "other"}}}})
	wantCode(t, e.Cmd(commands.NameStatus, map[string]any{"root": rootB}, nil), codeInvalidParams, "root")
	c.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{map[string]any{"uri": testkit.URI(rootB), "name": "other"}}, "removed": []any{}}})
	e.MustCmd(commands.NameStatus, map[string]any{"root": rootB}, &sb)
	if sb.Turns != 1 {
		t.Fatalf("re-added folder: %d turns; want 1 (same store)", sb.Turns)
	}
}

// TestRootURIFallback: a client that sends only rootUri (or rootPath).
func TestRootURIFallback(t *testing.T) {
	for _, field := range []string{"rootUri", "rootPath"} {
		t.Run(field, func(t *testing.T) {
			w := testkit.NewSandbox(t)
			_, c := testkit.StartServer(w)
			e := testkit.NewEditor(t, c, testkit.PlainClient)
			v := w.Root
			if field == "rootUri" {
				v = testkit.URI(w.Root)
			}
			if err := c.Call("initialize", map[string]any{"capabilities": map[string]any{}, field: v,
				"initializationOptions": map[string]any{"storeDir": w.Store}}, nil); err != nil {
				t.Fatal(err)
			}
			var st commands.StatusResult
			e.MustCmd(commands.NameStatus, map[string]any{}, &st)
			if st.Root != w.Root {
				t.Fatalf("root %s; want %s", st.Root, w.Root)
			}
		})
	}
}

// TestUTF8Rewind: with utf-8 positions, edits reaching the end of a line
// without a final newline count bytes.
func TestUTF8Rewind(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("n.txt", "x\n😀 end")
	_, e := startServer(t, w, testkit.NeovimLike, "utf-8")
	if !e.UTF8 {
		t.Fatal("utf-8 not negotiated")
	}
	e.Open(w.Abs("n.txt"))
	e.MustCmd(commands.NameTurnStart, map[string]any{}, nil)
	w.Write("n.txt", "x\n😀 changed")
	e.Reload(w.Abs("n.txt"))
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	var rr commands.RewindResult
	e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
	waitSaved(t, e)
	if got, _ := e.Text(w.Abs("n.txt")); !rr.Applied || got != "x\n😀 end" {
		t.Fatalf("applied=%v %q; buffer %q", rr.Applied, rr.FailureReason, got)
	}
}

// didChangeWait bounds the wait for a rewind/didChange: well under the 30 s
// of the journal watcher's stat check, so one that comes proves the file
// notification path, with room for a loaded machine (the time is logged).
const didChangeWait = 10 * time.Second

// namesLatest accepts a rewind/didChange whose newest entry is entry. The
// journal may change more than once for one command (created empty, then
// written): the notification that matters is the one that lists it.
func namesLatest(entry string) func(*testkit.Message) bool {
	return func(m *testkit.Message) bool {
		var n didChangeJournal
		return json.Unmarshal(m.Params, &n) == nil && n.Latest == entry
	}
}

// TestJournalChangeFromOtherProcess: a checkpoint made on the command line
// right after the editor started reaches it as rewind/didChange.
func TestJournalChangeFromOtherProcess(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "a\n")
	// A plain LSP client that declared rewind/didChange hears of it; one
	// that did not (lsp-mode, Helix: "unknown notification" warnings) is
	// never sent it.
	_, plain := startServer(t, w, testkit.PlainClient)
	srv, c := testkit.StartServer(w)
	e := testkit.NewEditor(t, c, testkit.PlainClient)
	e.Server = srv
	e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store, "rewindDidChange": true})
	mark, plainMark := e.Conn.NotifCount(), plain.Conn.NotifCount()
	start := time.Now()
	var cp commands.CheckpointResult
	unmarshalT(t, w.MustRun("--json", "checkpoint", "here"), &cp)
	m, _ := e.Conn.WaitNotification("rewind/didChange", mark, didChangeWait, namesLatest(string(cp.Entry)))
	if m == nil {
		t.Fatalf("no rewind/didChange naming the checkpoint %s made by another process", cp.Entry)
	}
	t.Logf("rewind/didChange %v after the command started", time.Since(start))
	var n didChangeJournal
	json.Unmarshal(m.Params, &n)
	if n.Root != w.Root {
		t.Fatalf("rewind/didChange %s", m.Params)
	}
	if m, _ := plain.Conn.WaitNotification("rewind/didChange", plainMark, 500*time.Millisecond, nil); m != nil {
		t.Errorf("a client that did not declare rewind/didChange was sent it: %s", m.Params)
	}
}

// TestJournalChangeFromOtherServer: two editors on one root; a checkpoint
// made through one server reaches the other editor as rewind/didChange
// (the journal is written by another process).
func TestJournalChangeFromOtherServer(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "a\n")
	_, first := startServer(t, w, testkit.VSCodeLike)
	_, second := startServer(t, w, testkit.NeovimLike)
	mark := second.Conn.NotifCount()
	start := time.Now()
	var cp commands.CheckpointResult
	first.MustCmd(commands.NameCheckpoint, map[string]any{"label": "from-the-first"}, &cp)
	if m, _ := second.Conn.WaitNotification("rewind/didChange", mark, didChangeWait, namesLatest(string(cp.Entry))); m == nil {
		t.Fatalf("the second editor heard nothing of the first server's checkpoint %s", cp.Entry)
	}
	t.Logf("rewind/didChange %v after the checkpoint started", time.Since(start))
}

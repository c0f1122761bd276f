package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

var update = flag.Bool("update", false, "regenerate the golden files in testdata")

// golden compares got (JSON) with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != string(b) {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", p, b, want)
	}
}

func wantCode(t *testing.T, err error, code int, contains string) {
	t.Helper()
	var we *testkit.RPCError
	if !errors.As(err, &we) {
		t.Fatalf("got %v; want a JSON-RPC error %d", err, code)
	}
	if we.Code != code || !strings.Contains(we.Message, contains) {
		t.Fatalf("got error %d %q; want %d containing %q", we.Code, we.Message, code, contains)
	}
}

// alive checks that the server still answers.
func alive(t *testing.T, c *testkit.Conn) {
	t.Helper()
	var actions []codeAction
	if err := c.Call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": "file:///nowhere/x.go"}, "range": Range{},
	}, &actions); err != nil {
		t.Fatalf("the server stopped answering: %v", err)
	}
}

func TestLifecycleErrors(t *testing.T) {
	srv, c := startInProcess(t)
	e := testkit.NewEditor(t, c, testkit.VSCodeLike)

	err := c.Call("workspace/executeCommand", map[string]any{"command": commands.NameStatus}, nil)
	wantCode(t, err, codeNotInitialized, "initialize")

	e.Initialize([]string{t.TempDir()}, map[string]any{"storeDir": t.TempDir()})

	wantCode(t, c.Call("textDocument/definition", map[string]any{}, nil), codeMethodNotFound, "textDocument/definition")
	wantCode(t, c.Call("textDocument/hover", map[string]any{}, nil), codeInvalidParams, "textDocument.uri")
	wantCode(t, c.Call("workspace/executeCommand", map[string]any{"command": "rewind.nope", "arguments": []any{}}, nil),
		codeInvalidParams, "unknown command")
	wantCode(t, c.Call("workspace/executeCommand", map[string]any{"command": 3}, nil), codeInvalidParams, "command")
	wantCode(t, c.Call("workspace/executeCommand", map[string]any{"command": commands.NamePreview,
		"arguments": []any{map[string]any{"target": 3}}}, nil), codeInvalidParams, "target")
	wantCode(t, c.Call("workspace/executeCommand", map[string]any{"command": commands.NameList,
		"arguments": []any{"not an object"}}, nil), codeInvalidParams, "object")
	wantCode(t, c.Call("workspace/executeCommand", map[string]any{"command": commands.NameList,
		"arguments": []any{map[string]any{}, map[string]any{}}}, nil), codeInvalidParams, "arguments")
	wantCode(t, c.Call("workspace/executeCommand", map[string]any{"command": commands.NameList,
		"arguments": []any{map[string]any{"root": "/not/a/folder"}}}, nil), codeInvalidParams, "root")
	wantCode(t, c.Call("workspace/executeCommand", map[string]any{"command": commands.NameList,
		"arguments": []any{map[string]any{"root": 7}}}, nil), codeInvalidParams, "root")
	wantCode(t, c.Call("rewind/content", map[string]any{"uri": "file:///x"}, nil), codeInvalidParams, "uri")
	wantCode(t, c.Call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": 5}}, nil),
		codeInvalidParams, "textDocument.uri")
	wantCode(t, c.Call("initialize", map[string]any{}, nil), codeInvalidRequest, "already")

	// Malformed input: bad JSON, a non-object, a frame without a length,
	// garbage between frames. Each is answered or logged; the server lives.
	orphan := 0
	for _, body := range []string{`{"jsonrpc":"2.0","id":9,"method":`, `[1,2]`, `{"jsonrpc":"2.0","id":{},"method":"x"}`} {
		c.WriteRaw([]byte(body))
		var m *testkit.Message
		if m, orphan = c.WaitOrphan(orphan, 5*time.Second); m == nil || m.Error == nil {
			t.Fatalf("no error answer to %q", body)
		}
	}
	c.WriteBytes([]byte("garbage line\r\nContent-Type: x\r\n\r\n"))
	c.WriteBytes([]byte("Content-Length: 5\r\n\r\nnull!"))
	alive(t, c)
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": "file:///not/open", "version": 2}})
	c.Notify("no/suchNotification", nil)
	alive(t, c)

	// shutdown, then requests are refused, then exit → 0.
	if err := c.Call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.Call("textDocument/codeAction", map[string]any{}, nil), codeInvalidRequest, "shutting down")
	c.Notify("exit", nil)
	select {
	case code := <-srv.Exit:
		if code != 0 {
			t.Fatalf("exit code %d after shutdown; want 0", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no exit")
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	srv, c := startInProcess(t)
	e := testkit.NewEditor(t, c, testkit.PlainClient)
	e.Initialize(nil, nil)
	c.Notify("exit", nil)
	select {
	case code := <-srv.Exit:
		if code != 1 {
			t.Fatalf("exit code %d without shutdown; want 1", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no exit")
	}
}

// TestInitializeGolden checks the real binary's initialize result.
func TestInitializeGolden(t *testing.T) {
	w := testkit.NewSandbox(t)
	_, c := testkit.StartServer(w)
	e := testkit.NewEditor(t, c, testkit.VSCodeLike)
	var res initializeResult
	if err := json.Unmarshal(e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store, "autoTurnQuietMs": 500, "maxFileBytes": 1000}), &res); err != nil {
		t.Fatal(err)
	}
	res.ServerInfo.Version = "<version>"
	golden(t, "initialize.golden.json", res)
	if !reflect.DeepEqual(res.Capabilities.ExecuteCommandProvider.Commands, commands.All) {
		t.Fatalf("advertised %v; want commands.All %v", res.Capabilities.ExecuteCommandProvider.Commands, commands.All)
	}
	if res.Capabilities.PositionEncoding != "utf-16" {
		t.Fatalf("position encoding %q; want utf-16", res.Capabilities.PositionEncoding)
	}
	// Every advertised command is dispatched (it may fail for other
	// reasons, but never as unknown), and nothing else is.
	for _, name := range res.Capabilities.ExecuteCommandProvider.Commands {
		err := c.Call("workspace/executeCommand", map[string]any{"command": name, "arguments": []any{map[string]any{}}}, nil)
		if err != nil && strings.Contains(err.Error(), "unknown command") {
			t.Errorf("advertised %s is not dispatched: %v", name, err)
		}
	}
	wantCode(t, c.Call("workspace/executeCommand", map[string]any{"command": "rewind.Status"}, nil), codeInvalidParams, "unknown command")
}

func TestUTF8Negotiation(t *testing.T) {
	_, c := startInProcess(t)
	e := testkit.NewEditor(t, c, testkit.NeovimLike)
	var res initializeResult
	if err := json.Unmarshal(e.Initialize(nil, nil, "utf-8", "utf-16"), &res); err != nil {
		t.Fatal(err)
	}
	if res.Capabilities.PositionEncoding != "utf-8" {
		t.Fatalf("position encoding %q; want utf-8", res.Capabilities.PositionEncoding)
	}
}

// TestRandomDidChange sends 500 random incremental edits (with CRLF, lone
// CR, emoji and astral characters) to the real binary and checks the
// server's view equals the editor's, in both encodings.
func TestRandomDidChange(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8"} {
		t.Run(enc, func(t *testing.T) {
			w := testkit.NewSandbox(t)
			_, e := startServer(t, w, testkit.VSCodeLike, enc)
			c := e.Conn
			if e.UTF8 != (enc == "utf-8") {
				t.Fatalf("negotiated utf8=%v", e.UTF8)
			}
			p := w.Abs("doc.txt")
			os.WriteFile(p, []byte("start 😀\r\nsecond 𝄞 line\rthird\n"), 0o644)
			e.Open(p)
			rng := rand.New(rand.NewSource(42))
			pieces := []string{"a", "é", "😀", "𝄞", "\n", "\r\n", "\r", "xyz", "", "中文"}
			for i := 0; i < 500; i++ {
				text, _ := e.Text(p)
				start := randomPos(rng, text, e.UTF8)
				end := start
				if rng.Intn(2) == 0 {
					end = randomPos(rng, text, e.UTF8)
					if less(end, start) {
						start, end = end, start
					}
				}
				var ins strings.Builder
				for n := rng.Intn(4); n > 0; n-- {
					ins.WriteString(pieces[rng.Intn(len(pieces))])
				}
				e.TypeText(p, kitRange(Range{start, end}), ins.String())
			}
			var got debugDocumentResult
			if err := c.Call("rewind/debugDocument", map[string]any{"uri": testkit.URI(p)}, &got); err != nil {
				t.Fatal(err)
			}
			want, _ := e.Text(p)
			if got.Text != want || got.Version != 501 {
				t.Fatalf("server has version %d %q\neditor has version 501 %q", got.Version, got.Text, want)
			}
		})
	}
}

// randomPos picks a valid position (never inside a surrogate pair or a
// "\r\n") in text.
func randomPos(rng *rand.Rand, text string, useUTF8 bool) Position {
	var offs []int
	for i := range text { // rune starts
		if i > 0 && text[i-1] == '\r' && text[i] == '\n' {
			continue
		}
		offs = append(offs, i)
	}
	offs = append(offs, len(text))
	enc := encUTF16
	if useUTF8 {
		enc = encUTF8
	}
	return positionAt(text, offs[rng.Intn(len(offs))], enc)
}

func less(a, b Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

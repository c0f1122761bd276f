package mcp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// editor is a minimal LSP client: the real rewind-lsp server of a root,
// with documents opened, changed and saved as an editor would.
type editor struct {
	t    *testing.T
	root string
	in   io.WriteCloser
	mu   sync.Mutex
	next int
	resp map[int]chan json.RawMessage
}

func startEditor(t *testing.T, w *agentWS) *editor {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Stderr = io.Discard
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e := &editor{t: t, root: w.root, in: in, resp: map[int]chan json.RawMessage{}}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	go e.read(bufio.NewReader(out))
	uri := e.uri("")
	e.call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": uri, "capabilities": map[string]any{},
		"workspaceFolders":      []any{map[string]any{"uri": uri, "name": "ws"}},
		"initializationOptions": map[string]any{"storeDir": w.store}})
	e.notify("initialized", map[string]any{})
	// The server serves the command line of its root once its socket is up.
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(w.store, "server.sock")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the language server never listened on its socket")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return e
}

func (e *editor) uri(rel string) string {
	return (&url.URL{Scheme: "file", Path: filepath.Join(e.root, rel)}).String()
}

func (e *editor) write(msg map[string]any) {
	msg["jsonrpc"] = "2.0"
	data, _ := json.Marshal(msg)
	e.mu.Lock()
	defer e.mu.Unlock()
	fmt.Fprintf(e.in, "Content-Length: %d\r\n\r\n%s", len(data), data)
}

func (e *editor) notify(method string, params any) {
	e.write(map[string]any{"method": method, "params": params})
}

func (e *editor) call(method string, params any) json.RawMessage {
	e.t.Helper()
	e.mu.Lock()
	e.next++
	id := e.next
	ch := make(chan json.RawMessage, 1)
	e.resp[id] = ch
	e.mu.Unlock()
	e.write(map[string]any{"id": id, "method": method, "params": params})
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		e.t.Fatalf("%s: no answer", method)
		return nil
	}
}

// read takes the server's messages: answers to our requests, and its own
// requests (answered with null).
func (e *editor) read(r *bufio.Reader) {
	for {
		n := 0
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var m struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
			Result json.RawMessage  `json:"result"`
		}
		json.Unmarshal(body, &m)
		switch {
		case m.ID != nil && m.Method != "":
			e.write(map[string]any{"id": m.ID, "result": nil})
		case m.ID != nil:
			id, _ := strconv.Atoi(string(*m.ID))
			e.mu.Lock()
			ch := e.resp[id]
			e.mu.Unlock()
			if ch != nil {
				ch <- m.Result
			}
		}
	}
}

func (e *editor) open(rel string) string {
	text := readFile(e.t, filepath.Join(e.root, rel))
	e.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": e.uri(rel), "languageId": "plaintext", "version": 1, "text": text}})
	return text
}

func (e *editor) change(rel string, version int, text string) {
	e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": e.uri(rel), "version": version},
		"contentChanges": []any{map[string]any{"text": text}}})
}

func (e *editor) save(rel, text string) {
	os.WriteFile(filepath.Join(e.root, rel), []byte(text), 0o644)
	e.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": e.uri(rel)}, "text": text})
}

func readFile(t *testing.T, p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestMCPRewindLeavesTheEditorsChanges: with a language server running,
// the agent's rewind to its checkpoint counts the changes since as its
// own, except files the person saved from the editor or holds unsaved
// since: those are conflicts, the rewind is refused and lists them, and
// nothing is restored (never forced).
func TestMCPRewindLeavesTheEditorsChanges(t *testing.T) {
	w := newAgentWS(t)
	w.write("agent.txt", "agent 0\n")
	w.write("unsaved.txt", "unsaved 0\n")
	w.write("saved.txt", "saved 0\n")
	ed := startEditor(t, w)
	ed.open("unsaved.txt")
	ed.open("saved.txt")
	cs := w.connect()
	ok(t, cs, "checkpoint", map[string]any{"goal": "try something"})

	w.write("agent.txt", "agent 1\n") // the agent's own change
	ed.change("unsaved.txt", 2, "unsaved 1, typed in the editor\n")
	ed.change("saved.txt", 2, "saved 1\n")
	ed.save("saved.txt", "saved 1\n")
	time.Sleep(300 * time.Millisecond) // the notifications reach the server before the rewind does

	text, isErr := call(t, cs, "rewind", map[string]any{"report": "it did not work"})
	listed := map[string]bool{}
	if i := strings.LastIndex(text, ": "); i >= 0 {
		for _, f := range strings.Split(text[i+2:], ", ") {
			listed[f] = true
		}
	}
	if !isErr || !listed["unsaved.txt"] || !listed["saved.txt"] || listed["agent.txt"] {
		t.Fatalf("rewind with the editor's changes since: %q (error %v), want a conflict naming unsaved.txt and saved.txt only", text, isErr)
	}
	t.Logf("refused: %s", text)
	if w.read("agent.txt") != "agent 1\n" || w.read("saved.txt") != "saved 1\n" || w.read("unsaved.txt") != "unsaved 0\n" {
		t.Fatal("a refused rewind changed files")
	}
}

// Package acpclient is a scripted editor of the Agent Client Protocol for
// tests: it starts an agent (or rewind-lsp acp in front of one) over
// stdio, speaks newline-delimited JSON-RPC to it, answers the agent's
// requests as an editor does — fs/read_text_file from the disk (a missing
// file reads as empty, as an editor opening a new buffer), fs/write_text_file
// to the disk, recording each, session/request_permission allowed once —
// and keeps every line it received, in order, for the test to read.
package acpclient

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Client is one editor connection to one agent process.
type Client struct {
	t    testing.TB
	Cmd  *exec.Cmd
	in   io.WriteCloser
	mu   sync.Mutex
	wmu  sync.Mutex // one message written at a time
	cond *sync.Cond
	next int
	// received holds every line from the agent, in order.
	received [][]byte
	answers  map[string]Message
	writes   []Write
	exited   bool
	// FS is what the client offers in initialize; the zero value offers
	// both file methods.
	NoFS bool
	// Timeout bounds each wait (default 2 minutes).
	Timeout time.Duration
}

// Message is one JSON-RPC message.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// Write is one fs/write_text_file the client carried out.
type Write struct {
	Session, Path, Content string
}

// Start runs cmd (its Stdin and Stdout are the client's; Stderr goes to
// the test's log unless set) and reads it.
func Start(t testing.TB, cmd *exec.Cmd) *Client {
	t.Helper()
	c := &Client{t: t, Cmd: cmd, answers: map[string]Message{}, Timeout: 2 * time.Minute}
	c.cond = sync.NewCond(&c.mu)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &logWriter{t: t}
	}
	// A grandchild left holding stderr never holds the test up.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.in = in
	go c.read(out)
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Errorf("the agent did not end within 20 s of its input's end")
			cmd.Process.Kill()
			<-done
		}
	})
	return c
}

// logWriter logs the process's stderr; a data race the race-built binary
// reports (REWIND_LSP_TEST_RACE) fails the test.
type logWriter struct{ t testing.TB }

func (w *logWriter) Write(p []byte) (int, error) {
	w.t.Logf("stderr: %s", strings.TrimRight(string(p), "\n"))
	if strings.Contains(string(p), "WARNING: DATA RACE") {
		w.t.Errorf("the process has a data race")
	}
	return len(p), nil
}

func (c *Client) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			c.handle(line)
		}
		if err != nil {
			c.mu.Lock()
			c.exited = true
			c.cond.Broadcast()
			c.mu.Unlock()
			return
		}
	}
}

func (c *Client) handle(line []byte) {
	var m Message
	err := json.Unmarshal(line, &m)
	c.mu.Lock()
	c.received = append(c.received, append([]byte(nil), line...))
	if err == nil && m.Method == "" && len(m.ID) > 0 {
		c.answers[string(m.ID)] = m
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	if err == nil && m.Method != "" && len(m.ID) > 0 {
		go c.serve(m)
	}
}

// serve answers one request of the agent as an editor does.
func (c *Client) serve(m Message) {
	var result any
	var rpcErr any
	switch m.Method {
	case "fs/read_text_file":
		var p struct{ Path string }
		json.Unmarshal(m.Params, &p)
		data, err := os.ReadFile(p.Path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			rpcErr = map[string]any{"code": -32603, "message": err.Error()}
			break
		}
		result = map[string]any{"content": string(data)}
	case "fs/write_text_file":
		var p struct {
			SessionID string `json:"sessionId"`
			Path      string
			Content   string
		}
		json.Unmarshal(m.Params, &p)
		c.mu.Lock()
		c.writes = append(c.writes, Write{Session: p.SessionID, Path: p.Path, Content: p.Content})
		c.mu.Unlock()
		os.MkdirAll(filepath.Dir(p.Path), 0o755)
		if err := os.WriteFile(p.Path, []byte(p.Content), 0o644); err != nil {
			rpcErr = map[string]any{"code": -32603, "message": err.Error()}
			break
		}
		result = nil
	case "session/request_permission":
		var p struct {
			Options []struct {
				OptionID string `json:"optionId"`
				Kind     string `json:"kind"`
			} `json:"options"`
		}
		json.Unmarshal(m.Params, &p)
		choice := ""
		for _, o := range p.Options {
			if o.Kind == "allow_once" || (choice == "" && o.Kind == "allow_always") {
				choice = o.OptionID
			}
		}
		result = map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": choice}}
	default:
		rpcErr = map[string]any{"code": -32601, "message": "method not found: " + m.Method}
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if rpcErr != nil {
		resp["error"] = rpcErr
	} else {
		resp["result"] = result
	}
	c.Send(resp)
}

// Send writes one message.
func (c *Client) Send(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.SendLine(append(data, '\n'))
}

// SendLine writes raw bytes (one or more lines, or anything).
func (c *Client) SendLine(line []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.in.Write(line)
}

// Request sends a request and waits for its answer; an error answer fails
// the test.
func (c *Client) Request(method string, params any) json.RawMessage {
	c.t.Helper()
	m := c.Call(method, params)
	if len(m.Error) > 0 && string(m.Error) != "null" {
		c.t.Fatalf("%s: %s", method, m.Error)
	}
	return m.Result
}

// Call sends a request and waits for its answer.
func (c *Client) Call(method string, params any) Message {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	id := c.next
	c.mu.Unlock()
	c.Send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	key := fmt.Sprint(id)
	var m Message
	c.Wait(method, func() bool {
		var ok bool
		m, ok = c.answers[key]
		return ok
	})
	return m
}

// Wait waits until cond (called with the client's lock held) holds, and
// fails the test after Timeout or when the agent exited first.
func (c *Client) Wait(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(c.Timeout)
	timer := time.AfterFunc(c.Timeout, func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for !cond() {
		if c.exited {
			c.t.Fatalf("waiting for %s: the agent exited", what)
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("waiting for %s: nothing after %v", what, c.Timeout)
		}
		c.cond.Wait()
	}
}

// WaitExit waits for the process to end and returns its exit status and
// how long it took from now.
func (c *Client) WaitExit(limit time.Duration) (int, time.Duration, error) {
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- c.Cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), time.Since(start), nil
		}
		return 0, time.Since(start), err
	case <-time.After(limit):
		return -1, time.Since(start), fmt.Errorf("still running after %v", limit)
	}
}

// Initialize sends initialize, offering the file methods unless NoFS.
func (c *Client) Initialize() json.RawMessage {
	c.t.Helper()
	return c.Request("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": !c.NoFS, "writeTextFile": !c.NoFS}, "terminal": false}})
}

// NewSession opens a session in folder cwd and returns its id.
func (c *Client) NewSession(cwd string) string {
	c.t.Helper()
	var v struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(c.Request("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}), &v); err != nil || v.SessionID == "" {
		c.t.Fatalf("session/new answered no session: %v", err)
	}
	return v.SessionID
}

// Turn is what one prompt brought: its stop reason and the text of the
// agent_message_chunk updates of its session between the prompt and its
// answer.
type Turn struct {
	StopReason string
	Text       string
	Updates    []json.RawMessage
}

// Prompt sends a prompt of text blocks and waits for its answer.
func (c *Client) Prompt(session string, texts ...string) Turn {
	c.t.Helper()
	var blocks []any
	for _, t := range texts {
		blocks = append(blocks, map[string]any{"type": "text", "text": t})
	}
	c.mu.Lock()
	from := len(c.received)
	c.mu.Unlock()
	m := c.Call("session/prompt", map[string]any{"sessionId": session, "prompt": blocks})
	if len(m.Error) > 0 && string(m.Error) != "null" {
		c.t.Fatalf("session/prompt: %s", m.Error)
	}
	var r struct {
		StopReason string `json:"stopReason"`
	}
	json.Unmarshal(m.Result, &r)
	turn := Turn{StopReason: r.StopReason}
	for _, u := range c.Updates(session, from) {
		turn.Updates = append(turn.Updates, u)
		var v struct {
			SessionUpdate string `json:"sessionUpdate"`
			Content       struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		}
		json.Unmarshal(u, &v)
		if v.SessionUpdate == "agent_message_chunk" && v.Content.Type == "text" {
			turn.Text += v.Content.Text
		}
	}
	return turn
}

// Updates are the session/update updates of session received since line
// from.
func (c *Client) Updates(session string, from int) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []json.RawMessage
	for _, line := range c.received[from:] {
		var m struct {
			Method string `json:"method"`
			Params struct {
				SessionID string          `json:"sessionId"`
				Update    json.RawMessage `json:"update"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method == "session/update" && m.Params.SessionID == session {
			out = append(out, m.Params.Update)
		}
	}
	return out
}

// Commands waits until the session's latest available_commands_update
// lists a command satisfying want, and returns the names it lists.
func (c *Client) Commands(session string, want func(names []string) bool) []string {
	c.t.Helper()
	var names []string
	c.Wait("the session's commands", func() bool {
		names = nil
		for i := len(c.received) - 1; i >= 0; i-- {
			var m struct {
				Method string `json:"method"`
				Params struct {
					SessionID string `json:"sessionId"`
					Update    struct {
						SessionUpdate     string `json:"sessionUpdate"`
						AvailableCommands []struct {
							Name string `json:"name"`
						} `json:"availableCommands"`
					} `json:"update"`
				} `json:"params"`
			}
			if json.Unmarshal(c.received[i], &m) != nil || m.Params.SessionID != session || m.Params.Update.SessionUpdate != "available_commands_update" {
				continue
			}
			for _, a := range m.Params.Update.AvailableCommands {
				names = append(names, a.Name)
			}
			break
		}
		return names != nil && want(names)
	})
	return names
}

// Writes are the fs/write_text_file requests the client carried out.
func (c *Client) Writes() []Write {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Write(nil), c.writes...)
}

// Received is every line received so far, in order.
func (c *Client) Received() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.received...)
}

// Mark is the number of lines received so far: a point to read from.
func (c *Client) Mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.received)
}

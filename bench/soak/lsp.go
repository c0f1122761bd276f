package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// wire is any JSON-RPC message.
type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// conn is the editor's end of the Language Server connection: requests
// with replies, notifications, and the server's own requests handed to
// handle (its result is the reply).
type conn struct {
	w   io.Writer
	wmu sync.Mutex

	mu      sync.Mutex
	next    int
	pending map[int]chan wire
	dead    chan struct{}

	handle func(method string, params json.RawMessage) any
	notes  func(method string, params json.RawMessage)
}

func newConn(r io.Reader, w io.Writer, handle func(string, json.RawMessage) any, notes func(string, json.RawMessage)) *conn {
	c := &conn{w: w, pending: map[int]chan wire{}, dead: make(chan struct{}), handle: handle, notes: notes}
	go c.read(r)
	return c
}

func (c *conn) write(m any) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = c.w.Write(body)
	return err
}

// call sends a request and waits for its reply.
func (c *conn) call(method string, params any, result any, timeout time.Duration) error {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan wire, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: error %d: %s", method, m.Error.Code, m.Error.Message)
		}
		if result != nil {
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("%s: decoding %s: %w", method, m.Result, err)
			}
		}
		return nil
	case <-c.dead:
		return errors.New(method + ": the server exited")
	case <-time.After(timeout):
		return fmt.Errorf("%s: no reply in %s", method, timeout)
	}
}

func (c *conn) notify(method string, params any) error {
	return c.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// read dispatches the server's messages until its output closes. Server
// requests are answered on their own goroutine: a rewind's applyEdit
// arrives while the command that caused it waits for its reply.
func (c *conn) read(r io.Reader) {
	defer close(c.dead)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		n := -1
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Content-Length") {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if n < 0 {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		var m wire
		if err := json.Unmarshal(body, &m); err != nil {
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			go func() {
				res := c.handle(m.Method, m.Params)
				c.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
			}()
		case m.Method != "":
			if c.notes != nil {
				c.notes(m.Method, m.Params)
			}
		default:
			id, err := strconv.Atoi(string(m.ID))
			if err != nil {
				continue
			}
			c.mu.Lock()
			ch := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

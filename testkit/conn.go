package testkit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Message is any JSON-RPC message.
type Message struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id,omitempty"`
	Method  string           `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   *RPCError        `json:"error,omitempty"`
}

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// Conn is the client's end of an LSP connection over any stream: it frames
// messages, matches answers to requests, keeps every notification, and
// hands the server's own requests to whoever serves them (Requests).
// window/workDoneProgress/create is answered at once, as editors do, even
// while another request is being handled.
type Conn struct {
	w      io.Writer
	wmu    sync.Mutex
	report func(error)

	mu       sync.Mutex
	nextID   int
	pending  map[string]chan *Message
	notifs   []*Message
	nsig     chan struct{}
	orphans  []*Message // responses to no request (e.g. id null errors)
	closed   chan struct{}
	onNotify func(*Message)

	serverReq chan *Message // server→client requests, in order
}

// NewConn starts reading the server's messages from r; requests and
// notifications go to w. report receives the server's protocol
// violations (a line that is not a header, malformed JSON); nil ignores
// them.
func NewConn(r io.Reader, w io.Writer, report func(error)) *Conn {
	if report == nil {
		report = func(error) {}
	}
	c := &Conn{w: w, report: report, pending: map[string]chan *Message{}, nsig: make(chan struct{}),
		closed: make(chan struct{}), serverReq: make(chan *Message, 100)}
	go c.readLoop(r)
	return c
}

// OnNotification makes fn see every notification as it arrives (they are
// kept for WaitNotification all the same).
func (c *Conn) OnNotification(fn func(*Message)) {
	c.mu.Lock()
	c.onNotify = fn
	c.mu.Unlock()
}

// Closed is closed once the server's output ended.
func (c *Conn) Closed() <-chan struct{} { return c.closed }

// Requests delivers the server's requests, in order; answer each with
// Reply.
func (c *Conn) Requests() <-chan *Message { return c.serverReq }

// Reply answers server request m with result, or with rerr when it is not
// nil.
func (c *Conn) Reply(m *Message, result any, rerr *RPCError) error {
	resp := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if rerr != nil {
		resp["error"] = rerr
	} else {
		resp["result"] = result
	}
	return c.Send(resp)
}

// AnswerNull answers every server request with a null result, for a
// client that serves none of them.
func (c *Conn) AnswerNull() {
	go func() {
		for {
			select {
			case m := <-c.serverReq:
				c.Reply(m, nil, nil)
			case <-c.closed:
				return
			}
		}
	}()
}

// HangUp closes the server's input and waits (5 s at most) until its
// output ends.
func (c *Conn) HangUp() {
	if cl, ok := c.w.(io.Closer); ok {
		cl.Close()
	}
	select {
	case <-c.closed:
	case <-time.After(5 * time.Second):
	}
}

func (c *Conn) readLoop(r io.Reader) {
	defer close(c.closed)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		length := -1
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			} else if !strings.HasPrefix(line, "Content-Type:") {
				c.report(fmt.Errorf("server wrote a non-header line to stdout: %q", line))
			}
		}
		if length < 0 {
			c.report(fmt.Errorf("server sent a message without Content-Length"))
			return
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		var m Message
		if err := json.Unmarshal(body, &m); err != nil {
			c.report(fmt.Errorf("server sent malformed JSON %q: %v", body, err))
			continue
		}
		switch {
		case m.Method == "window/workDoneProgress/create" && m.ID != nil:
			c.Reply(&m, nil, nil)
		case m.Method != "" && m.ID != nil:
			c.serverReq <- &m
		case m.Method != "":
			c.mu.Lock()
			c.notifs = append(c.notifs, &m)
			close(c.nsig)
			c.nsig = make(chan struct{})
			fn := c.onNotify
			c.mu.Unlock()
			if fn != nil {
				fn(&m)
			}
		default:
			key := "null"
			if m.ID != nil {
				key = string(*m.ID)
			}
			c.mu.Lock()
			ch := c.pending[key]
			delete(c.pending, key)
			if ch == nil {
				c.orphans = append(c.orphans, &m)
				close(c.nsig)
				c.nsig = make(chan struct{})
			}
			c.mu.Unlock()
			if ch != nil {
				ch <- &m
			}
		}
	}
}

// WriteRaw sends body as one framed message, whatever it holds.
func (c *Conn) WriteRaw(body []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	frame := make([]byte, 0, len(body)+32)
	frame = fmt.Appendf(frame, "Content-Length: %d\r\n\r\n", len(body))
	_, err := c.w.Write(append(frame, body...))
	return err
}

// WriteBytes sends b as it is, without framing (to test a server against
// garbage).
func (c *Conn) WriteBytes(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(b)
	return err
}

// Send sends m, marshalled to JSON, as one message.
func (c *Conn) Send(m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("marshal: %w", err)
	}
	return c.WriteRaw(b)
}

// Start sends a request and returns its id and the channel of its answer.
func (c *Conn) Start(method string, params any) (id int, ch chan *Message) {
	c.mu.Lock()
	c.nextID++
	id = c.nextID
	ch = make(chan *Message, 1)
	c.pending[strconv.Itoa(id)] = ch
	c.mu.Unlock()
	c.Send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return id, ch
}

// Call sends a request and waits (30 s at most) for its answer, decoded
// into result when it is not nil; a JSON-RPC error comes back as
// *RPCError.
func (c *Conn) Call(method string, params any, result any) error {
	_, ch := c.Start(method, params)
	return c.Wait(method, ch, result, 30*time.Second)
}

// Wait waits for the answer on ch (from Start) at most timeout.
func (c *Conn) Wait(method string, ch chan *Message, result any, timeout time.Duration) error {
	select {
	case m := <-ch:
		if m.Error != nil {
			return m.Error
		}
		if result != nil {
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("decoding the %s result %s: %w", method, m.Result, err)
			}
		}
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("%s: no answer in %v", method, timeout)
	case <-c.closed:
		return fmt.Errorf("%s: the connection closed", method)
	}
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) error {
	return c.Send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// WaitNotification waits at most timeout for a notification of method at
// or after index from (in the list of all notifications) matching ok (nil:
// any), and returns it and the index after it; nil when none came.
func (c *Conn) WaitNotification(method string, from int, timeout time.Duration, ok func(*Message) bool) (*Message, int) {
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		for i := from; i < len(c.notifs); i++ {
			if c.notifs[i].Method == method && (ok == nil || ok(c.notifs[i])) {
				m := c.notifs[i]
				c.mu.Unlock()
				return m, i + 1
			}
		}
		sig := c.nsig
		c.mu.Unlock()
		select {
		case <-sig:
		case <-deadline:
			return nil, from
		}
	}
}

// NotifCount is the number of notifications received so far.
func (c *Conn) NotifCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.notifs)
}

// WaitOrphan waits at most timeout for an answer whose id matches no
// request (the from-th such answer), and returns it and the index after
// it; nil when none came.
func (c *Conn) WaitOrphan(from int, timeout time.Duration) (*Message, int) {
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		if len(c.orphans) > from {
			m := c.orphans[from]
			c.mu.Unlock()
			return m, from + 1
		}
		sig := c.nsig
		c.mu.Unlock()
		select {
		case <-sig:
		case <-deadline:
			return nil, from
		}
	}
}

package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The harness is a fake editor: it starts a server (the real binary, or Run
// in-process for tests that need the *Server), speaks LSP to it over pipes,
// keeps buffers, answers workspace/applyEdit by applying the edit to its
// buffers in UTF-16 (like an editor) and, when asked, saves them to disk.

// wireMsg is any JSON-RPC message.
type wireMsg struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id,omitempty"`
	Method  string           `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   *wireError       `json:"error,omitempty"`
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *wireError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// conn is the editor's end of the connection.
type conn struct {
	t   testing.TB
	w   io.Writer
	wmu sync.Mutex

	mu      sync.Mutex
	nextID  int
	pending map[string]chan *wireMsg
	notifs  []*wireMsg
	nsig    chan struct{}
	orphans []*wireMsg // responses to no request (e.g. id null errors)
	closed  chan struct{}

	serverReq chan *wireMsg // server→client requests, handled in order
}

func newConn(t testing.TB, r io.Reader, w io.Writer) *conn {
	c := &conn{t: t, w: w, pending: map[string]chan *wireMsg{}, nsig: make(chan struct{}),
		closed: make(chan struct{}), serverReq: make(chan *wireMsg, 100)}
	go c.readLoop(r)
	return c
}

// hangUp closes the server's input and waits (a little) until it exits.
func (c *conn) hangUp() {
	if cl, ok := c.w.(io.Closer); ok {
		cl.Close()
	}
	select {
	case <-c.closed:
	case <-time.After(5 * time.Second):
	}
}

func (c *conn) readLoop(r io.Reader) {
	defer close(c.closed)
	br := bufio.NewReader(r)
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
				c.t.Errorf("server wrote a non-header line to stdout: %q", line)
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		var m wireMsg
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("server sent malformed JSON %q: %v", body, err)
			continue
		}
		switch {
		case m.Method == "window/workDoneProgress/create" && m.ID != nil:
			// Answered at once, as editors do, even while another request
			// (a slow applyEdit) is being handled.
			c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
		case m.Method != "" && m.ID != nil:
			c.serverReq <- &m
		case m.Method != "":
			c.mu.Lock()
			c.notifs = append(c.notifs, &m)
			close(c.nsig)
			c.nsig = make(chan struct{})
			c.mu.Unlock()
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

func (c *conn) writeRaw(body []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(body))
	c.w.Write(body)
}

func (c *conn) send(m any) {
	b, err := json.Marshal(m)
	if err != nil {
		c.t.Fatalf("marshal: %v", err)
	}
	c.writeRaw(b)
}

// start sends a request and returns the channel of its response.
func (c *conn) start(method string, params any) (id int, ch chan *wireMsg) {
	c.mu.Lock()
	c.nextID++
	id = c.nextID
	ch = make(chan *wireMsg, 1)
	c.pending[strconv.Itoa(id)] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return id, ch
}

// call sends a request and waits for its response; a JSON-RPC error comes
// back as *wireError.
func (c *conn) call(method string, params any, result any) error {
	_, ch := c.start(method, params)
	return c.wait(method, ch, result, 30*time.Second)
}

func (c *conn) wait(method string, ch chan *wireMsg, result any, timeout time.Duration) error {
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

func (c *conn) notify(method string, params any) {
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// waitNotification waits for a notification of method after index from
// (in the list of all notifications) matching ok, and returns it and the
// index after it.
func (c *conn) waitNotification(method string, from int, timeout time.Duration, ok func(*wireMsg) bool) (*wireMsg, int) {
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

func (c *conn) notifCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.notifs)
}

// waitOrphan waits for a response with an id that matches no request.
func (c *conn) waitOrphan(from int, timeout time.Duration) (*wireMsg, int) {
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

// server is a running server and how to wait for its exit code.
type server struct {
	in     io.WriteCloser
	exit   chan int
	stderr *lockedBuffer
	srv    *Server     // in-process only
	proc   *os.Process // the binary's process (startBinary only)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startInProcess runs the server in this process over pipes.
func startInProcess(t testing.TB) (*server, *conn) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &server{in: inW, exit: make(chan int, 1), stderr: &lockedBuffer{}}
	ready := make(chan *Server, 1)
	go func() {
		code := run(context.Background(), inR, outW, s.stderr, func(srv *Server) {
			srv.verifyTimeout = 500 * time.Millisecond
			ready <- srv
		})
		outW.Close()
		s.exit <- code
	}()
	s.srv = <-ready
	c := newConn(t, outR, inW)
	t.Cleanup(func() {
		inW.Close()
		if t.Failed() {
			t.Logf("server log:\n%s", s.stderr.String())
		}
	})
	return s, c
}

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// moduleRoot finds the folder holding go.mod.
func moduleRoot(t testing.TB) string {
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test folder")
		}
		dir = parent
	}
}

// binary builds the real rewind-lsp once per test run.
func binary(t testing.TB) string {
	root := moduleRoot(t)
	mains, _ := filepath.Glob(filepath.Join(root, "cmd", "rewind-lsp", "*.go"))
	if len(mains) == 0 {
		t.Skip("cmd/rewind-lsp has no main package yet")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rewind-lsp-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "rewind-lsp")
		args := []string{"build", "-o", buildPath}
		if os.Getenv("REWIND_LSP_TEST_RACE") != "" {
			args = append(args, "-race") // race-check the server under the e2e tests
		}
		cmd := exec.Command("go", append(args, "./cmd/rewind-lsp")...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/rewind-lsp: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// testEnv is the environment of every process a test starts: a private
// store home, so nothing lands in the real one.
func testEnv(home string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REWIND_LSP_HOME=") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "REWIND_LSP_HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "xdg"))
}

// startBinary starts the real binary with args (none: it serves LSP).
func startBinary(t testing.TB, home string, args ...string) (*server, *conn) {
	bin := binary(t)
	cmd := exec.Command(bin, args...)
	cmd.Env = testEnv(home)
	cmd.Dir = home
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{in: stdin, exit: make(chan int, 1), stderr: &lockedBuffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.proc = cmd.Process
	c := newConn(t, stdout, stdin)
	exited := make(chan struct{})
	go func() {
		<-c.closed
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			code = -1
		}
		s.exit <- code
		close(exited)
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
		if strings.Contains(s.stderr.String(), "WARNING: DATA RACE") {
			t.Errorf("the server has a data race")
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", s.stderr.String())
		}
	})
	return s, c
}

// cli runs the binary's command line in root with store, and returns its
// stdout; it fails the test on a non-zero exit.
func cli(t testing.TB, home, root, store string, args ...string) string {
	t.Helper()
	full := append([]string{"--root", root, "--store", store}, args...)
	cmd := exec.Command(binary(t), full...)
	cmd.Env = testEnv(home)
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("rewind-lsp %s: %v\nstdout: %s\nstderr: %s", strings.Join(full, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

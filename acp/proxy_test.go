package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeAgentEnv) != "" {
		fakeAgent()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// editor is a scripted editor in front of a proxy run in this process,
// whose agent is the fake one.
type editor struct {
	t    *testing.T
	root string
	in   *io.PipeWriter
	svc  *commands.Service

	mu    sync.Mutex
	cond  *sync.Cond
	lines [][]byte
	done  bool
	code  int
	next  int
	// writes are the proxy's fs/write_text_file requests, answered by
	// writing the disk.
	writes []string
}

// startProxy runs a proxy in front of the fake agent (with env added to
// its environment) on a fresh root; locate, when set, replaces the
// root's client.
func startProxy(t *testing.T, bound time.Duration, locate func(string, commands.Applier) (string, commands.Client, error), env ...string) *editor {
	root := t.TempDir()
	e := &editor{t: t, root: root}
	e.cond = sync.NewCond(&e.mu)
	if locate == nil {
		locate = func(dir string, ap commands.Applier) (string, commands.Client, error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.svc == nil {
				svc, err := commands.Open(commands.Options{Root: root, StoreDir: filepath.Join(t.TempDir(), "store"), Actor: "acp", Applier: ap})
				if err != nil {
					return "", nil, err
				}
				e.svc = svc
			}
			return root, e.svc, nil
		}
	}
	editorIn, proxyIn := io.Pipe()
	proxyOut, editorOut := io.Pipe()
	e.in = proxyIn
	tl := &testLog{t: t}
	o := Options{Command: []string{os.Args[0], "-test.run=^$"}, Env: append(os.Environ(), append(env, fakeAgentEnv+"=1")...),
		Dir: root, Locate: locate, Log: tl, Bound: bound}
	go func() {
		code, err := Run(context.Background(), editorIn, editorOut, o)
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		editorOut.Close()
		e.mu.Lock()
		e.code = code
		e.mu.Unlock()
	}()
	go e.read(proxyOut)
	t.Cleanup(func() { proxyIn.Close(); e.waitDone(20 * time.Second) })
	t.Cleanup(func() { tl.mu.Lock(); tl.done = true; tl.mu.Unlock() })
	return e
}

// testLog logs the proxy's words while the test runs (its queues may
// speak after).
type testLog struct {
	t    *testing.T
	mu   sync.Mutex
	done bool
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		l.t.Logf("%s", bytes.TrimRight(p, "\n"))
	}
	return len(p), nil
}

func (e *editor) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			e.mu.Lock()
			e.lines = append(e.lines, line)
			e.cond.Broadcast()
			e.mu.Unlock()
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Path    string `json:"path"`
					Content string `json:"content"`
				} `json:"params"`
			}
			if json.Unmarshal(line, &m) == nil && m.Method == "fs/write_text_file" {
				os.WriteFile(m.Params.Path, []byte(m.Params.Content), 0o644)
				e.mu.Lock()
				e.writes = append(e.writes, string(m.ID)+" "+m.Params.Path)
				e.mu.Unlock()
				e.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID))
			}
		}
		if err != nil {
			e.mu.Lock()
			e.done = true
			e.cond.Broadcast()
			e.mu.Unlock()
			return
		}
	}
}

var sendMu sync.Mutex

func (e *editor) send(line string) {
	sendMu.Lock()
	defer sendMu.Unlock()
	io.WriteString(e.in, line+"\n")
}

// wait waits until cond holds (the lock held), failing after 20 s.
func (e *editor) wait(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	go func() { time.Sleep(20 * time.Second); e.mu.Lock(); e.cond.Broadcast(); e.mu.Unlock() }()
	e.mu.Lock()
	defer e.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("waiting for %s; received:\n%s", what, bytes.Join(e.lines, nil))
		}
		if e.done {
			e.t.Fatalf("waiting for %s: the proxy ended; received:\n%s", what, bytes.Join(e.lines, nil))
		}
		e.cond.Wait()
	}
}

func (e *editor) waitDone(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		e.mu.Lock()
		d := e.done
		e.mu.Unlock()
		if d {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// call sends a request and returns its answer's line, and the lines
// received meanwhile (from the request on).
func (e *editor) call(method, params string) (answer []byte, during [][]byte) {
	e.t.Helper()
	e.mu.Lock()
	e.next++
	id := e.next
	from := len(e.lines)
	e.mu.Unlock()
	e.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	want := fmt.Sprintf(`"id":%d`, id)
	e.wait(method+" answered", func() bool {
		for _, l := range e.lines[from:] {
			if bytes.Contains(l, []byte(want)) && !bytes.Contains(l, []byte(`"method"`)) {
				answer = l
				return true
			}
		}
		return false
	})
	e.mu.Lock()
	during = append(during, e.lines[from:]...)
	e.mu.Unlock()
	return answer, during
}

// start initializes (offering fs/write_text_file) and opens a session.
func (e *editor) start() {
	e.t.Helper()
	e.call("initialize", `{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}`)
	e.call("session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, e.root))
}

// prompt sends a prompt of one text block and returns the text of the
// chunks that came before its answer.
func (e *editor) prompt(text string) string {
	e.t.Helper()
	blocks, _ := json.Marshal([]any{map[string]string{"type": "text", "text": text}})
	_, during := e.call("session/prompt", fmt.Sprintf(`{"sessionId":"s1","prompt":%s}`, blocks))
	var out strings.Builder
	for _, l := range during {
		var m struct {
			Params struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
					Content       struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"update"`
			} `json:"params"`
		}
		if json.Unmarshal(l, &m) == nil && m.Params.Update.SessionUpdate == "agent_message_chunk" {
			out.WriteString(m.Params.Update.Content.Text)
		}
	}
	return out.String()
}

// turns lists the root's turns once the journal shows n of them ended.
func (e *editor) turns(n int) []commands.TurnInfo {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		l, err := e.svc.List(context.Background(), commands.ListArgs{})
		if err != nil {
			e.t.Fatal(err)
		}
		ended := 0
		for _, t := range l.Turns {
			if t.Ended != "" {
				ended++
			}
		}
		if ended >= n || time.Now().After(deadline) {
			return l.Turns
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPassesEverythingAsItIs: the editor's lines reach the agent byte for
// byte — unknown methods, odd spacing, a line that is not JSON — and the
// agent's reach the editor the same way, in order; a stream of updates
// comes in order, before its prompt's answer.
func TestPassesEverythingAsItIs(t *testing.T) {
	e := startProxy(t, 0, nil)
	e.start()
	odd := []string{
		`{"jsonrpc":"2.0","method":"x/unknown", "params" : {"b":[1,2,{}]}}`,
		`not json`,
		`{"jsonrpc":"2.0","id":"x-1","result":{"unasked":true}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1","_meta":{"é":"\u00e9"}}}`,
	}
	for _, l := range odd {
		e.send(l)
	}
	dump := e.prompt("dump")
	for _, l := range odd {
		if !strings.Contains(dump, l+"\n") {
			t.Errorf("the agent did not get %s as it was sent; it got:\n%s", l, dump)
		}
	}
	_, during := e.call("session/prompt", `{"sessionId":"s1","prompt":[{"type":"text","text":"odd"}]}`)
	got := string(bytes.Join(during, nil))
	if !strings.Contains(got, `{"jsonrpc":"2.0","method":"x/unknown","params":{"a": 1}}`+"\nnot json at all\n") {
		t.Errorf("the agent's odd lines did not reach the editor as they were, in order:\n%s", got)
	}
	text := e.prompt("stream 300")
	var want strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&want, "chunk %d;", i)
	}
	if text != want.String() {
		t.Errorf("the stream came out of order or incomplete: %.200s…", text)
	}
}

// TestTurnsAndSteps: each prompt is a turn of its session; a tool call
// that wrote a file is a step with that file.
func TestTurnsAndSteps(t *testing.T) {
	e := startProxy(t, 0, nil)
	e.start()
	a := filepath.Join(e.root, "a.txt")
	e.prompt("write " + a + " one")
	e.prompt("write " + a + " two")
	turns := e.turns(2)
	if len(turns) != 2 {
		t.Fatalf("%d turns, want 2: %+v", len(turns), turns)
	}
	for i, tu := range turns {
		if tu.Session != "s1" || tu.Source != journal.SourceACP || len(tu.Steps) != 1 || len(tu.Steps[0].Changed) != 1 || tu.Steps[0].Changed[0].Path != "a.txt" {
			t.Errorf("turn %d: %+v", i+1, tu)
		}
	}
}

// TestOwnCommands: the proxy offers its commands beside the agent's (a
// name the agent uses gets the prefix), answers them itself — the agent
// never sees them — writes the rewound text file through the editor with
// an id of its own whose answer the agent never sees, and tells the agent
// at its next prompt, once, in a block before the person's.
func TestOwnCommands(t *testing.T) {
	e := startProxy(t, 0, nil, "FAKE_AGENT_COMMANDS=undo,review")
	e.start()
	e.wait("the commands", func() bool {
		for _, l := range e.lines {
			if bytes.Contains(l, []byte(`"name":"rewind-undo"`)) && bytes.Contains(l, []byte(`"name":"review"`)) && bytes.Contains(l, []byte(`"name":"turns"`)) {
				return true
			}
		}
		return false
	})
	a := filepath.Join(e.root, "a.txt")
	e.prompt("write " + a + " one")
	e.prompt("write " + a + " two")
	e.turns(2)
	text := e.prompt("/rewind 2")
	if !strings.Contains(text, "rewound to turn 2") || !strings.Contains(text, "M a.txt") || !strings.Contains(text, "undo it with: /rewind-undo") {
		t.Errorf("/rewind 2 answered %q", text)
	}
	if got, _ := os.ReadFile(a); string(got) != "one\n" {
		t.Errorf("a.txt = %q after /rewind 2", got)
	}
	if len(e.writes) != 1 || !strings.HasPrefix(e.writes[0], `"rewind-lsp-`) {
		t.Errorf("the editor was asked to write %v", e.writes)
	}
	blocks := e.prompt("blocks")
	if !strings.Contains(blocks, "rewound to the state before turn 2") || !strings.HasSuffix(blocks, `{"type":"text","text":"blocks"}]`) {
		t.Errorf("the prompt after the rewind reached the agent as %s", blocks)
	}
	if blocks := e.prompt("blocks"); blocks != `[{"type":"text","text":"blocks"}]` {
		t.Errorf("the notice came twice: %s", blocks)
	}
	e.prompt("/undo")
	if !strings.Contains(e.prompt("dump"), `"text":"/undo"`) {
		t.Errorf("/undo, the agent's own command here, did not reach the agent")
	}
	if got, _ := os.ReadFile(a); string(got) != "one\n" {
		t.Errorf("a.txt = %q: the agent's /undo ran the proxy's", got)
	}
	dump := e.prompt("dump")
	if strings.Contains(dump, "/rewind 2") || strings.Contains(dump, "rewind-lsp-") {
		t.Errorf("the agent saw the proxy's command or its editor request:\n%s", dump)
	}
	text = e.prompt("/rewind-undo")
	if !strings.Contains(text, "undone") {
		t.Errorf("/rewind-undo answered %q", text)
	}
	if got, _ := os.ReadFile(a); string(got) != "two\n" {
		t.Errorf("a.txt = %q after /rewind-undo", got)
	}
	if text := e.prompt("/turns"); !strings.Contains(text, "Turn 1: write") || !strings.Contains(text, "1.1") {
		t.Errorf("/turns answered %q", text)
	}
}

// TestAgentWritesThroughTheEditor: a file the agent asks the editor to
// write (the agent's request id 1, which the proxy's own ids never
// collide with) is a step of the call in progress.
func TestAgentWritesThroughTheEditor(t *testing.T) {
	e := startProxy(t, 0, nil)
	e.start()
	b := filepath.Join(e.root, "b.txt")
	e.prompt("ask " + b + " bee")
	if got, _ := os.ReadFile(b); string(got) != "bee\n" {
		t.Fatalf("b.txt = %q", got)
	}
	turns := e.turns(1)
	if len(turns) != 1 || len(turns[0].Steps) != 1 || turns[0].Steps[0].Changed[0].Path != "b.txt" {
		t.Errorf("turns: %+v", turns)
	}
}

// TestAgentCrash: the proxy ends with its agent, with the agent's status.
func TestAgentCrash(t *testing.T) {
	e := startProxy(t, 0, nil)
	e.start()
	e.send(`{"jsonrpc":"2.0","id":99,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"crash"}]}}`)
	if !e.waitDone(10 * time.Second) {
		t.Fatal("the proxy did not end with its agent")
	}
	time.Sleep(50 * time.Millisecond)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.code != 7 {
		t.Errorf("the proxy exited %d, want the agent's 7", e.code)
	}
}

// TestJournalThatHangs: a journal that never answers holds a prompt up
// for the bound only.
func TestJournalThatHangs(t *testing.T) {
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	e := startProxy(t, 50*time.Millisecond, func(string, commands.Applier) (string, commands.Client, error) {
		<-hang
		return "", nil, fmt.Errorf("gone")
	})
	e.start()
	if text := e.prompt("stream 2"); text != "chunk 0;chunk 1;" {
		t.Errorf("the prompt answered %q", text)
	}
}

// TestConflictRefused: a rewind over a file someone changed since it was
// recorded is refused, naming the file, and changes nothing.
func TestConflictRefused(t *testing.T) {
	e := startProxy(t, 0, nil)
	e.start()
	a := filepath.Join(e.root, "a.txt")
	e.prompt("write " + a + " one")
	e.prompt("write " + a + " two")
	e.turns(2)
	if err := os.WriteFile(a, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := e.prompt("/rewind 2")
	if !strings.Contains(text, "refused: conflict") || !strings.Contains(text, "a.txt") {
		t.Errorf("/rewind 2 over a changed file answered %q", text)
	}
	if got, _ := os.ReadFile(a); string(got) != "mine\n" {
		t.Errorf("a.txt = %q after a refused rewind", got)
	}
	if text := e.prompt("/revert 9"); !strings.HasPrefix(text, "rewind-lsp: ") {
		t.Errorf("/revert of a turn that does not exist answered %q", text)
	}
	if text := e.prompt("/rewind 1 sideways"); !strings.HasPrefix(text, "usage: /rewind") {
		t.Errorf("/rewind with a bad mode answered %q", text)
	}
}

package acp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// Options configure one proxy.
type Options struct {
	// Command is the ACP agent to run, with its arguments.
	Command []string
	// Env is the agent's environment (nil: this process's).
	Env []string
	// Dir is the agent's working folder ("": this process's).
	Dir string
	// Locate gives the workspace root of a session's folder and the
	// client of its command set: through the language server running for
	// the root when there is one, else in this process with ap applying
	// rewinds. It is the command line's own client, so every door records
	// the same way.
	Locate func(dir string, ap commands.Applier) (root string, cl commands.Client, err error)
	// Log receives what the proxy has to say (stderr).
	Log io.Writer
	// Bound is how long a prompt or a tool call waits for the journal
	// before it is passed on anyway (default 3 s): a journal the proxy
	// cannot write never blocks the agent.
	Bound time.Duration
}

// Proxy stands between one editor and one agent process.
type Proxy struct {
	o        Options
	log      *log.Logger
	toEditor *writer
	toAgent  *writer
	ap       *applier

	mu       sync.Mutex
	fsWrite  bool                      // the editor offers fs/write_text_file
	agent    string                    // the agent's name (agentInfo.name, else the command's)
	pending  map[string]pendingRequest // the editor's requests the proxy follows, by id
	sessions map[string]*session       // by ACP session id
	own      map[string]chan ownAnswer // the proxy's requests to the editor, by id
	nonce    string                    // makes the proxy's request ids its own
	next     int
	answers  sync.Mutex // one proxy-answered command at a time
}

// pendingRequest is an editor request whose answer the proxy reads.
type pendingRequest struct {
	method  string
	session string // session/load, session/prompt
	cwd     string // session/new, session/load
}

// ownAnswer is the editor's answer to one of the proxy's requests.
type ownAnswer struct {
	result json.RawMessage
	err    json.RawMessage
}

// Run starts the agent and passes messages between the editor (in, out)
// and it until the agent exits; it returns the agent's exit status. When
// the editor closes its side, the agent's input is closed and it is given
// time to exit.
func Run(ctx context.Context, in io.Reader, out io.Writer, o Options) (int, error) {
	if len(o.Command) == 0 {
		return 2, errors.New("no agent command")
	}
	if o.Bound <= 0 {
		o.Bound = 3 * time.Second
	}
	if o.Log == nil {
		o.Log = os.Stderr
	}
	cmd := exec.Command(o.Command[0], o.Command[1:]...)
	cmd.Env, cmd.Dir, cmd.Stderr = o.Env, o.Dir, os.Stderr
	agentIn, err := cmd.StdinPipe()
	if err != nil {
		return 1, err
	}
	agentOut, err := cmd.StdoutPipe()
	if err != nil {
		return 1, err
	}
	if err := cmd.Start(); err != nil {
		return 127, fmt.Errorf("start the agent: %w", err)
	}
	p := New(out, agentIn, o)
	p.agent = agentName(o.Command[0])

	fromAgent := lines(agentOut)
	fromEditor := lines(in)
	agentDone := make(chan struct{})
	go func() {
		defer close(agentDone)
		for line := range fromAgent {
			p.FromAgent(line)
		}
	}()
	editorDone := make(chan struct{})
	go func() {
		defer close(editorDone)
		for line := range fromEditor {
			p.FromEditor(line)
		}
	}()

	select {
	case <-agentDone:
	case <-editorDone:
		// The editor is gone: so is the agent's input. An agent that
		// does not exit then (codex-acp 0.16 does not) is stopped.
		agentIn.Close()
		select {
		case <-agentDone:
		case <-time.After(2 * time.Second):
			stop(cmd)
		}
	case <-ctx.Done():
		stop(cmd)
	}
	<-agentDone
	err = cmd.Wait()
	return exitStatus(cmd, err), nil
}

// New returns a proxy that writes to the editor on toEditor and to the
// agent on toAgent; the caller feeds it each line with FromEditor and
// FromAgent, in the order they come.
func New(toEditor, toAgent io.Writer, o Options) *Proxy {
	if o.Bound <= 0 {
		o.Bound = 3 * time.Second
	}
	if o.Log == nil {
		o.Log = os.Stderr
	}
	b := make([]byte, 6)
	rand.Read(b)
	p := &Proxy{o: o, log: log.New(o.Log, "rewind-lsp acp: ", 0), toEditor: &writer{w: toEditor}, toAgent: &writer{w: toAgent},
		pending: map[string]pendingRequest{}, sessions: map[string]*session{}, own: map[string]chan ownAnswer{},
		nonce: hex.EncodeToString(b)}
	p.ap = &applier{p: p}
	return p
}

// agentName is the agent's name until its initialize answer gives one:
// its command's.
func agentName(command string) string {
	return strings.TrimSuffix(filepath.Base(command), filepath.Ext(command))
}

// stop asks the agent to end, then ends it after a grace period.
func stop(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	time.AfterFunc(3*time.Second, func() { cmd.Process.Kill() })
}

// exitStatus is the agent's exit status; a signal is 128 + its number, as
// shells report it.
func exitStatus(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState == nil {
		return 1
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if c := cmd.ProcessState.ExitCode(); c >= 0 {
		return c
	}
	return 1
}

// FromEditor handles one line the editor sent.
func (p *Proxy) FromEditor(line []byte) {
	env, ok := peek(line)
	if !ok {
		p.toAgent.write(line)
		return
	}
	if env.isResponse() {
		p.mu.Lock()
		ch, mine := p.own[idKey(env.ID)]
		delete(p.own, idKey(env.ID))
		p.mu.Unlock()
		if mine {
			ch <- ownAnswer{result: env.Result, err: env.Error}
			return
		}
		p.editorWrote(env.ID)
		p.toAgent.write(line)
		return
	}
	if env.isRequest() {
		switch env.Method {
		case "initialize":
			var v struct {
				ClientCapabilities struct {
					FS struct {
						WriteTextFile bool `json:"writeTextFile"`
					} `json:"fs"`
				} `json:"clientCapabilities"`
			}
			json.Unmarshal(env.Params, &v)
			p.mu.Lock()
			p.fsWrite = v.ClientCapabilities.FS.WriteTextFile
			p.pending[idKey(env.ID)] = pendingRequest{method: env.Method}
			p.mu.Unlock()
		case "session/new", "session/load", "session/resume", "session/fork":
			var v struct {
				SessionID string `json:"sessionId"`
				Cwd       string `json:"cwd"`
			}
			json.Unmarshal(env.Params, &v)
			if env.Method == "session/fork" {
				v.SessionID = "" // the fork's id is in the answer
			}
			p.mu.Lock()
			p.pending[idKey(env.ID)] = pendingRequest{method: env.Method, session: v.SessionID, cwd: v.Cwd}
			if v.SessionID != "" {
				p.sessionLocked(v.SessionID, v.Cwd)
			}
			p.mu.Unlock()
		case "session/prompt":
			line = p.prompt(env, line)
			if line == nil {
				return // answered by the proxy
			}
		}
	}
	p.toAgent.write(line)
}

// FromAgent handles one line the agent sent.
func (p *Proxy) FromAgent(line []byte) {
	env, ok := peek(line)
	if !ok {
		p.toEditor.write(line)
		return
	}
	switch {
	case env.isResponse():
		p.mu.Lock()
		req, followed := p.pending[idKey(env.ID)]
		delete(p.pending, idKey(env.ID))
		p.mu.Unlock()
		if !followed {
			break
		}
		p.answered(req, env, line)
		return
	case env.Method == "session/update":
		line = p.update(env, line)
	case env.Method == "session/request_permission":
		p.permission(env)
	case env.Method == "fs/write_text_file":
		p.agentWrites(env)
	}
	p.toEditor.write(line)
}

// answered passes on the agent's answer to an editor request the proxy
// follows, and acts on it.
func (p *Proxy) answered(req pendingRequest, env envelope, line []byte) {
	switch req.method {
	case "initialize":
		var v struct {
			AgentInfo struct {
				Name string `json:"name"`
			} `json:"agentInfo"`
		}
		if json.Unmarshal(env.Result, &v) == nil && v.AgentInfo.Name != "" {
			p.mu.Lock()
			p.agent = v.AgentInfo.Name
			p.mu.Unlock()
		}
		p.toEditor.write(line)
	case "session/new", "session/load", "session/resume", "session/fork":
		sid := req.session
		if sid == "" {
			var v struct {
				SessionID string `json:"sessionId"`
			}
			json.Unmarshal(env.Result, &v)
			sid = v.SessionID
		}
		p.toEditor.write(line)
		if sid == "" || len(env.Error) > 0 {
			return
		}
		p.mu.Lock()
		s := p.sessionLocked(sid, req.cwd)
		told := s.agentListed
		p.mu.Unlock()
		if !told {
			// The agent has not listed its commands (yet): the proxy's
			// go out now; the agent's list, when it comes, gets them too.
			p.advertise(s)
		}
	case "session/prompt":
		// The turn's end is queued before the editor hears of it: the
		// next prompt, which may follow at once, opens the next turn after
		// it.
		p.endTurn(req.session)
		p.toEditor.write(line)
	default:
		p.toEditor.write(line)
	}
}

// request sends one of the proxy's own requests to the editor and waits
// for its answer. Its id is the proxy's own (a string no agent makes),
// and the answer is never passed on to the agent.
func (p *Proxy) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p.mu.Lock()
	p.next++
	id := fmt.Sprintf("rewind-lsp-%s-%d", p.nonce, p.next)
	raw, _ := json.Marshal(id)
	ch := make(chan ownAnswer, 1)
	p.own[idKey(raw)] = ch
	p.mu.Unlock()
	if err := p.toEditor.send(rpcRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params}); err != nil {
		return nil, err
	}
	select {
	case a := <-ch:
		if len(a.err) > 0 && string(a.err) != "null" {
			var e rpcError
			json.Unmarshal(a.err, &e)
			return nil, fmt.Errorf("the editor refused %s: %s (%d)", method, e.Message, e.Code)
		}
		return a.result, nil
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.own, idKey(raw))
		p.mu.Unlock()
		return nil, ctx.Err()
	}
}

// notify sends one of the proxy's own notifications to the editor.
func (p *Proxy) notify(method string, params any) {
	if err := p.toEditor.send(rpcNotification{JSONRPC: "2.0", Method: method, Params: params}); err != nil {
		p.log.Printf("to the editor: %v", err)
	}
}

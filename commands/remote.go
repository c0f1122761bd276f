package commands

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
)

// A running language server serves the command line of the same root over
// a Unix socket (AF_UNIX, on Windows 10 and later too) in the store
// (owner-only), or where the store's path is too long for a socket address,
// at a short owner-only path (socketAddr, per system), so a hook's turn boundary costs
// what changed since the last capture, and the open editors hear of it at
// once. Each connection carries one request line; the server answers with
// zero or more heartbeat lines while it works, then one response line.

const socketName = "server.sock"

const (
	// heartbeatEvery is how often a server working on a call says so.
	heartbeatEvery = 500 * time.Millisecond
	// silenceLimit is how long a client waits without a line from the
	// server before taking it for hung or stopped.
	silenceLimit = 2 * time.Second
	// retryPause is how long a client waits before asking again after a
	// lost answer (a restarting server, a busy one).
	retryPause = 100 * time.Millisecond
)

// remoteRequest is one command-line call forwarded to a running server.
type remoteRequest struct {
	Command string          `json:"command"`
	Args    json.RawMessage `json:"args"`
	Call
}

// remoteResponse is the answer: a heartbeat, or a result or an error of a
// kind the command line maps to its exit status.
type remoteResponse struct {
	Working bool            `json:"working,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   string          `json:"error,omitempty"`
	Kind    string          `json:"kind,omitempty"` // arg, refused, error
	Field   string          `json:"field,omitempty"`
}

// SocketServer serves command-line calls for one root.
type SocketServer struct {
	svc *Service
	ln  net.Listener
	ctx context.Context
	end context.CancelFunc
	wg  sync.WaitGroup
}

// ServeSocket starts serving svc's root on the store's socket, unless a
// live server already does (then it returns nil, nil). A socket left by a
// dead server is replaced.
func ServeSocket(svc *Service) (*SocketServer, error) {
	addr, release, err := socketAddr(svc.StoreDir())
	if err != nil {
		return nil, err
	}
	defer release()
	// A live server is found by dialling (on some Windows versions a socket
	// file cannot even be stat'ed).
	if c, err := net.DialTimeout("unix", addr, time.Second); err == nil {
		c.Close()
		return nil, nil // another live server serves this root
	}
	os.Remove(addr) // a dead server's socket
	ln, err := net.Listen("unix", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	os.Chmod(addr, 0o600)
	ctx, end := context.WithCancel(context.Background())
	s := &SocketServer{svc: svc, ln: ln, ctx: ctx, end: end}
	go s.accept()
	return s, nil
}

// Close stops serving, removes the socket, and waits for the calls being
// served (a call already started finishes: its caller may retry with the
// same key and must then find it recorded).
func (s *SocketServer) Close() {
	if s == nil {
		return
	}
	s.ln.Close()
	s.wg.Wait()
	s.end()
}

func (s *SocketServer) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serve(c)
		}()
	}
}

func (s *SocketServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 64<<10)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := r.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return
	}
	var req remoteRequest
	if err := json.Unmarshal(line, &req); err != nil {
		writeLine(c, remoteResponse{Error: "malformed request: " + err.Error(), Kind: "error"})
		return
	}
	// The call runs here, to its end even if the caller goes away: it may
	// be half done, and a retry with the same key must find it recorded.
	// Most calls answer in milliseconds and start nothing else; one still
	// working after heartbeatEvery says so every heartbeatEvery, from a
	// timer.
	var mu sync.Mutex
	finished := false
	var beat *time.Timer
	mu.Lock()
	beat = time.AfterFunc(heartbeatEvery, func() {
		mu.Lock()
		defer mu.Unlock()
		if finished {
			return
		}
		if writeLine(c, remoteResponse{Working: true}) != nil {
			finished = true // the caller is gone; the call goes on
			return
		}
		beat.Reset(heartbeatEvery)
	})
	mu.Unlock()
	resp := s.call(req)
	mu.Lock()
	defer mu.Unlock()
	beat.Stop()
	if !finished {
		finished = true
		writeLine(c, resp)
	}
}

func writeLine(c net.Conn, v remoteResponse) error {
	out, _ := json.Marshal(v)
	c.SetWriteDeadline(time.Now().Add(silenceLimit))
	_, err := c.Write(append(out, '\n'))
	return err
}

// call runs a forwarded command. Rewinds and undos from the command line
// write the disk (as the command line would), with open editor buffers
// still counting as current content.
func (s *SocketServer) call(req remoteRequest) (resp remoteResponse) {
	defer func() {
		if r := recover(); r != nil {
			resp = remoteResponse{Error: fmt.Sprintf("internal error: %v", r), Kind: "error"}
		}
	}()
	svc := *s.svc
	svc.opts.Applier = nil
	if req.Actor == "" {
		req.Actor = "cli"
	}
	ctx := WithCall(s.ctx, req.Call)
	res, err := dispatchAny(ctx, &svc, req.Command, req.Args)
	if err != nil {
		var ae *ArgError
		var re *RefusedError
		switch {
		case errors.As(err, &ae):
			return remoteResponse{Error: ae.Msg, Kind: "arg", Field: ae.Field}
		case errors.As(err, &re):
			return remoteResponse{Error: re.Msg, Kind: "refused"}
		}
		return remoteResponse{Error: err.Error(), Kind: "error"}
	}
	data, err := json.Marshal(res)
	if err != nil {
		return remoteResponse{Error: err.Error(), Kind: "error"}
	}
	return remoteResponse{Result: data}
}

// ErrNoServer means no live server listens for the root: the caller works
// alone.
var ErrNoServer = errors.New("no language server runs for this root")

// ErrNoAnswer means a server took the call but its answer was lost (it
// died, hung or was stopped) and asking again did not help before the
// deadline; the caller may run the call itself under the same key.
var ErrNoAnswer = errors.New("the language server took the call but did not answer")

// errSilent is a lost answer from a server that went silent (stopped or
// hung), as opposed to one whose connection broke.
var errSilent = fmt.Errorf("%w: it went silent", ErrNoAnswer)

// Remote forwards calls to the language server running for one root.
type Remote struct {
	storeDir string
}

// NewRemote returns the forwarder of the root whose store is storeDir.
func NewRemote(storeDir string) *Remote { return &Remote{storeDir: storeDir} }

// Call forwards command name with args, decoding the result into out. The
// Call attached to ctx (its key, actor, source) goes with it. It returns
// ErrNoServer when no server listens (nothing was sent), and ErrNoAnswer
// when one took the call but its answer was lost even when asked again.
func (r *Remote) Call(ctx context.Context, name string, args, out any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	req, err := json.Marshal(remoteRequest{Command: name, Args: raw, Call: CallOf(ctx)})
	if err != nil {
		return err
	}
	req = append(req, '\n')
	for attempt := 0; ; attempt++ {
		resp, err := r.once(ctx, req)
		switch {
		case err == nil:
			return decodeResponse(resp, out)
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, ErrNoServer) && attempt > 0:
			return ErrNoAnswer // it was there, and is gone
		case errors.Is(err, errSilent):
			// A server that says nothing for silenceLimit is stopped or
			// hung: asking it again would only wait as long once more.
			return ErrNoAnswer
		case !errors.Is(err, ErrNoAnswer):
			return err
		}
		// The answer was lost: ask once more (a server restarting, or
		// one that dropped the connection), then give up; the caller may
		// run it itself under the same key.
		if attempt > 0 || (mutating(name) && CallOf(ctx).Key == "") {
			return ErrNoAnswer
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < silenceLimit+retryPause {
			return ErrNoAnswer
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(retryPause):
		}
	}
}

// once sends one request and reads its answer. It returns ErrNoServer when
// nothing listens (nothing was sent), ErrNoAnswer when the request went out
// but no answer came.
func (r *Remote) once(ctx context.Context, req []byte) (*remoteResponse, error) {
	addr, release, err := socketAddr(r.storeDir)
	if err != nil {
		return nil, ErrNoServer
	}
	defer release()
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	c, err := d.DialContext(dctx, "unix", addr)
	cancel()
	if err != nil {
		return nil, ErrNoServer // a dead server's socket: ignored
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	c.SetWriteDeadline(time.Now().Add(silenceLimit))
	if _, err := c.Write(req); err != nil {
		return nil, ErrNoAnswer
	}
	br := bufio.NewReaderSize(c, 64<<10) // a longer answer grows the line
	for {
		c.SetReadDeadline(time.Now().Add(silenceLimit))
		line, err := br.ReadBytes('\n')
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && ctx.Err() == nil {
			return nil, errSilent
		}
		if err != nil {
			return nil, ErrNoAnswer
		}
		var resp remoteResponse
		if err := json.Unmarshal(line, &resp); err != nil {
			return nil, fmt.Errorf("server answer: %w", err)
		}
		if !resp.Working {
			return &resp, nil
		}
	}
}

func decodeResponse(resp *remoteResponse, out any) error {
	switch resp.Kind {
	case "":
	case "arg":
		return &ArgError{Field: resp.Field, Msg: resp.Error}
	case "refused":
		return &RefusedError{Msg: resp.Error}
	default:
		return fmt.Errorf("server: %s", resp.Error)
	}
	if out != nil {
		if err := json.Unmarshal(resp.Result, out); err != nil {
			return fmt.Errorf("server result: %w", err)
		}
	}
	return nil
}

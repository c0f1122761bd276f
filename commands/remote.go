package commands

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A running language server serves the command line of the same root over
// a Unix socket in the store (owner-only), so a hook's turn boundary costs
// what changed since the last capture, and the open editors hear of it at
// once. Each connection carries one request line and one response line.

const socketName = "server.sock"

// remoteRequest is one command-line call forwarded to a running server.
type remoteRequest struct {
	Command string          `json:"command"`
	Args    json.RawMessage `json:"args"`
	Actor   string          `json:"actor"`
	Source  string          `json:"source,omitempty"`
}

// remoteResponse is the answer: a result or an error of a kind the command
// line maps to its exit status.
type remoteResponse struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	Kind   string          `json:"kind,omitempty"` // arg, refused, error
	Field  string          `json:"field,omitempty"`
}

// socketAddr returns a path for the store's socket that fits the 108-byte
// limit of socket paths: a long store path is reached through an open file
// descriptor of the store folder (/proc/self/fd/N). close releases it.
func socketAddr(storeDir string) (addr string, close func(), err error) {
	p := filepath.Join(storeDir, socketName)
	if len(p) < 100 {
		return p, func() {}, nil
	}
	d, err := os.Open(storeDir)
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", d.Fd(), socketName), func() { d.Close() }, nil
}

// SocketServer serves command-line calls for one root.
type SocketServer struct {
	svc  *Service
	ln   net.Listener
	mu   sync.Mutex
	done bool
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
	if c, err := net.DialTimeout("unix", addr, time.Second); err == nil {
		c.Close()
		return nil, nil // another live server serves this root
	}
	os.Remove(filepath.Join(svc.StoreDir(), socketName))
	ln, err := net.Listen("unix", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", filepath.Join(svc.StoreDir(), socketName), err)
	}
	os.Chmod(filepath.Join(svc.StoreDir(), socketName), 0o600)
	s := &SocketServer{svc: svc, ln: ln}
	go s.accept()
	return s, nil
}

// Close stops serving and removes the socket.
func (s *SocketServer) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
	s.ln.Close()
}

func (s *SocketServer) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.serve(c)
	}
}

func (s *SocketServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 64<<10)
	line, err := r.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return
	}
	var req remoteRequest
	var resp remoteResponse
	if err := json.Unmarshal(line, &req); err != nil {
		resp = remoteResponse{Error: "malformed request: " + err.Error(), Kind: "error"}
	} else {
		resp = s.call(req)
	}
	out, _ := json.Marshal(resp)
	c.Write(append(out, '\n'))
}

// call runs a forwarded command. Rewinds and undos from the command line
// write the disk (as the command line would), with open editor buffers
// still counting as current content.
func (s *SocketServer) call(req remoteRequest) remoteResponse {
	svc := *s.svc
	svc.opts.Applier = nil
	if req.Actor != "" {
		svc.opts.Actor = req.Actor
	}
	ctx := context.Background()
	var res any
	var err error
	if req.Command == NameTurnStart {
		var a TurnStartArgs
		if err = decodeArg(req.Args, &a); err == nil {
			a.Source = req.Source
			res, err = svc.TurnStart(ctx, a)
		}
	} else if req.Command == NameToolCall { // the command line's own, not an editor command
		var a ToolCallArgs
		if err = decodeArg(req.Args, &a); err == nil {
			res, err = svc.ToolCall(ctx, a)
		}
	} else {
		res, err = Dispatch(ctx, &svc, req.Command, req.Args)
	}
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

// CallServer forwards one command to the server running for the root whose
// store is storeDir, decoding its result into out. ok is false when no live
// server listens (the caller then works alone).
func CallServer(storeDir, name string, args any, actor, source string, out any) (ok bool, err error) {
	addr, release, err := socketAddr(storeDir)
	if err != nil {
		return false, nil
	}
	defer release()
	if _, err := os.Stat(filepath.Join(storeDir, socketName)); err != nil {
		return false, nil
	}
	c, err := net.DialTimeout("unix", addr, time.Second)
	if err != nil {
		return false, nil // a dead server's socket: ignored
	}
	defer c.Close()
	raw, err := json.Marshal(args)
	if err != nil {
		return true, err
	}
	req, _ := json.Marshal(remoteRequest{Command: name, Args: raw, Actor: actor, Source: source})
	if _, err := c.Write(append(req, '\n')); err != nil {
		return false, nil
	}
	line, err := bufio.NewReaderSize(c, 1<<20).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return false, nil // the server went away before answering
	}
	var resp remoteResponse
	if err := json.Unmarshal(line, &resp); err != nil {
		return true, fmt.Errorf("server answer: %w", err)
	}
	switch resp.Kind {
	case "":
	case "arg":
		return true, &ArgError{Field: resp.Field, Msg: resp.Error}
	case "refused":
		return true, &RefusedError{Msg: resp.Error}
	default:
		return true, fmt.Errorf("server: %s", resp.Error)
	}
	if out != nil {
		if err := json.Unmarshal(resp.Result, out); err != nil {
			return true, fmt.Errorf("server result: %w", err)
		}
	}
	return true, nil
}

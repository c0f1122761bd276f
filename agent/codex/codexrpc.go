package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
)

// appServerTimeout bounds one conversation with `codex app-server`.
const appServerTimeout = 20 * time.Second

// appServer is a running `codex app-server`: JSON-RPC requests and
// answers, one JSON object a line, on its stdin and stdout.
type appServer struct {
	in   io.WriteCloser
	out  *bufio.Reader
	next int
}

// withAppServer starts `codex app-server` in dir, introduces rewind-lsp
// (initialize, then initialized), runs fn, and stops it. codex missing
// from PATH is a *Refusal that says so.
func withAppServer(dir string, fn func(a *appServer) error) error {
	bin, err := exec.LookPath("codex")
	if err != nil {
		return agent.Refusef("codex is not on PATH")
	}
	ctx, cancel := context.WithTimeout(context.Background(), appServerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "app-server")
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start codex app-server: %w", err)
	}
	a := &appServer{in: in, out: bufio.NewReaderSize(out, 1<<20)}
	err = a.call("initialize", map[string]any{"clientInfo": map[string]string{"name": "rewind-lsp", "version": "1"}}, nil)
	if err == nil {
		err = a.send(map[string]any{"method": "initialized"})
	}
	if err == nil {
		err = fn(a)
	}
	in.Close()
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("codex app-server did not answer within %v", appServerTimeout)
	}
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" && !isRefusal(err) {
			return fmt.Errorf("%w (codex app-server: %s)", err, conv.LastLine(msg))
		}
		return err
	}
	if werr != nil && !errors.As(werr, new(*exec.ExitError)) {
		return werr
	}
	return nil
}

func isRefusal(err error) bool {
	var r *agent.Refusal
	return errors.As(err, &r)
}

func (a *appServer) send(msg any) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = a.in.Write(append(data, '\n'))
	return err
}

// call sends one request and reads lines until its answer, skipping the
// server's notifications and requests; an error answer is an error with
// its message. result may be nil.
func (a *appServer) call(method string, params, result any) error {
	a.next++
	id := a.next
	if err := a.send(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return fmt.Errorf("codex app-server %s: %w", method, err)
	}
	for {
		line, err := a.out.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("codex app-server %s: no answer: %w", method, err)
		}
		var msg struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != id || msg.Method != "" {
			continue
		}
		if msg.Error != nil {
			return fmt.Errorf("codex app-server %s: %s", method, msg.Error.Message)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(msg.Result, result)
	}
}

package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// envelope is what the proxy reads of every message: enough to route it,
// never re-encoded. A line that does not decode is passed on as it is.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// peek decodes line's envelope; ok is false for anything that is not one
// JSON-RPC object.
func peek(line []byte) (env envelope, ok bool) {
	b := bytes.TrimSpace(line)
	if len(b) == 0 || b[0] != '{' {
		return env, false
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return env, false
	}
	return env, true
}

// isRequest: a method and an id.
func (e *envelope) isRequest() bool { return e.Method != "" && hasID(e.ID) }

// isResponse: an id and no method.
func (e *envelope) isResponse() bool { return e.Method == "" && hasID(e.ID) }

func hasID(id json.RawMessage) bool {
	return len(id) > 0 && string(id) != "null"
}

// idKey is an id as a map key: its JSON text, so 1 and "1" stay apart.
func idKey(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }

// lines reads newline-delimited messages, each with its line ending, as
// they come (the last one may lack it); the channel closes at the end of
// the stream.
func lines(r io.Reader) <-chan []byte {
	out := make(chan []byte, 64)
	go func() {
		defer close(out)
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				out <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}

// writer writes whole messages to one peer, one at a time: the proxy's
// own messages never interleave with a passed-on one.
type writer struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// write sends line (which ends with its newline) in one Write.
func (w *writer) write(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	_, w.err = w.w.Write(line)
	return w.err
}

// send encodes v as one message.
func (w *writer) send(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.write(append(data, '\n'))
}

// rpcRequest, rpcResponse and rpcNotification are the messages the proxy
// makes itself.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      any    `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type rpcNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// replaceParams re-encodes a message with new params: only for the
// messages the proxy changes (a prompt with a notice, a command list with
// its own commands).
func replaceParams(line []byte, params any) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, err
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	m["params"] = p
	out, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

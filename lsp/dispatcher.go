package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/sourcegraph/jsonrpc2"
)

// dispatcher is the connection's jsonrpc2.Handler. jsonrpc2 calls Handle on
// its read loop, one message at a time; the dispatcher keeps that order for
// notifications (handled inline, so a didChange is in the document store
// before any later message is read) and runs requests on goroutines, so a
// command can send workspace/applyEdit and wait for the answer while the
// read loop goes on delivering it.
type dispatcher struct {
	s *Server

	mu       sync.Mutex
	inflight map[string]context.CancelFunc
	wg       sync.WaitGroup
}

// lifecycle states.
const (
	stateNew = iota
	stateInitialized
	stateShutdown
)

// rpcError is an error with a JSON-RPC code.
type rpcError struct {
	code int
	msg  string
}

// Error returns the message sent to the client.
func (e *rpcError) Error() string { return e.msg }

func invalidParams(field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = fmt.Sprintf("%s: %s", field, msg)
	}
	return &rpcError{codeInvalidParams, msg}
}

// Handle implements jsonrpc2.Handler.
func (d *dispatcher) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	<-d.s.ready // jsonrpc2 starts reading before NewConn returns the conn
	if req.Notif {
		d.notification(ctx, req)
		return
	}
	state := d.s.lifecycle()
	switch {
	case req.Method == "initialize":
		// Inline: no other message may be handled before it is answered.
		res, err := d.s.initialize(params(req))
		d.reply(ctx, req, res, err)
		return
	case state == stateNew:
		d.replyErr(ctx, req.ID, &rpcError{codeNotInitialized, "the server is not initialized yet: send initialize first"})
		return
	case state == stateShutdown:
		d.replyErr(ctx, req.ID, &rpcError{codeInvalidRequest, "the server is shutting down"})
		return
	case req.Method == "shutdown":
		// Inline and immediate, even with commands in flight: they finish
		// or are cancelled at exit.
		d.s.setLifecycle(stateShutdown)
		d.reply(ctx, req, nil, nil)
		return
	}
	h, ok := d.s.requestHandler(req.Method)
	if !ok {
		d.replyErr(ctx, req.ID, &rpcError{codeMethodNotFound, fmt.Sprintf("method not found: %s", req.Method)})
		return
	}
	rctx, cancel := context.WithCancel(d.s.baseCtx)
	key := req.ID.String()
	d.mu.Lock()
	d.inflight[key] = cancel
	d.mu.Unlock()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer func() {
			d.mu.Lock()
			delete(d.inflight, key)
			d.mu.Unlock()
			cancel()
		}()
		res, err := d.safeCall(rctx, h, req)
		if err != nil && rctx.Err() != nil && errors.Is(err, context.Canceled) {
			err = &rpcError{codeRequestCancelled, "request cancelled"}
		}
		d.reply(ctx, req, res, err)
	}()
}

// safeCall runs a request handler, turning a panic into an error response:
// a bug in one request must not take down the editor's session.
func (d *dispatcher) safeCall(ctx context.Context, h requestFunc, req *jsonrpc2.Request) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			d.s.log.Printf("BUG: %s panicked: %v", req.Method, r)
			res, err = nil, &rpcError{codeInternalError, fmt.Sprintf("internal error in %s: %v", req.Method, r)}
		}
	}()
	return h(ctx, params(req))
}

func params(req *jsonrpc2.Request) json.RawMessage {
	if req.Params == nil {
		return nil
	}
	return *req.Params
}

func (d *dispatcher) notification(ctx context.Context, req *jsonrpc2.Request) {
	defer func() {
		if r := recover(); r != nil {
			d.s.log.Printf("BUG: notification %s panicked: %v", req.Method, r)
		}
	}()
	switch req.Method {
	case "exit":
		d.s.exit()
		return
	case "$/cancelRequest":
		d.cancel(params(req))
		return
	}
	if d.s.lifecycle() == stateNew {
		d.s.log.Printf("dropping %s: not initialized", req.Method)
		return
	}
	h, ok := d.s.notificationHandler(req.Method)
	if !ok {
		if !strings.HasPrefix(req.Method, "$/") {
			d.s.log.Printf("ignoring unknown notification %s", req.Method)
		}
		return
	}
	if err := h(ctx, params(req)); err != nil {
		d.s.log.Printf("%s: %v", req.Method, err)
	}
}

// cancel cancels the request named by $/cancelRequest's id.
func (d *dispatcher) cancel(p json.RawMessage) {
	var cp cancelParams
	if err := json.Unmarshal(p, &cp); err != nil {
		d.s.log.Printf("$/cancelRequest: %v", err)
		return
	}
	var key string
	var n uint64
	var str string
	switch {
	case json.Unmarshal(cp.ID, &n) == nil:
		key = strconv.FormatUint(n, 10)
	case json.Unmarshal(cp.ID, &str) == nil:
		key = strconv.Quote(str)
	default:
		return
	}
	d.mu.Lock()
	c := d.inflight[key]
	d.mu.Unlock()
	if c != nil {
		c()
	}
}

// cancelAll cancels every request in flight.
func (d *dispatcher) cancelAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.inflight {
		c()
	}
}

func (d *dispatcher) reply(ctx context.Context, req *jsonrpc2.Request, res any, err error) {
	if err != nil {
		d.replyErr(ctx, req.ID, err)
		return
	}
	if rerr := d.s.conn.Reply(ctx, req.ID, res); rerr != nil {
		d.s.log.Printf("replying to %s: %v", req.Method, rerr)
	}
}

func (d *dispatcher) replyErr(ctx context.Context, id jsonrpc2.ID, err error) {
	if rerr := d.s.conn.ReplyWithError(ctx, id, toRPCError(err)); rerr != nil {
		d.s.log.Printf("replying with an error: %v", rerr)
	}
}

// toRPCError maps an error to its JSON-RPC code: bad arguments are
// -32602 with the message naming the field, refusals and other failures
// are -32803 (RequestFailed) with a clear message.
func toRPCError(err error) *jsonrpc2.Error {
	var re *rpcError
	var ae *commands.ArgError
	switch {
	case errors.As(err, &re):
		return &jsonrpc2.Error{Code: int64(re.code), Message: re.msg}
	case errors.As(err, &ae):
		return &jsonrpc2.Error{Code: codeInvalidParams, Message: ae.Error()}
	case errors.Is(err, context.Canceled):
		return &jsonrpc2.Error{Code: codeRequestCancelled, Message: "request cancelled"}
	}
	return &jsonrpc2.Error{Code: codeRequestFailed, Message: err.Error()}
}

// decodeParams decodes request params into v; a type error names the field
// (-32602). Missing params decode as {}.
func decodeParams(p json.RawMessage, v any) error {
	if len(p) == 0 || string(p) == "null" {
		return nil
	}
	if err := json.Unmarshal(p, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if field == "" {
				field = "params"
			}
			return invalidParams(field, "must be %s, got %s", jsonTypeName(te.Type.String()), te.Value)
		}
		return invalidParams("params", "%v", err)
	}
	return nil
}

// jsonTypeName names a Go type the way a JSON user thinks of it.
func jsonTypeName(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "a boolean"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"), strings.HasPrefix(goType, "float"):
		return "a number"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	}
	return "an object"
}

package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"strconv"
	"strings"
	"sync"
)

// maxFrameBytes bounds one message body; a larger Content-Length is
// answered with an error and its body skipped.
const maxFrameBytes = 256 << 20

// frameStream is a jsonrpc2.ObjectStream for LSP's Content-Length framing
// that survives bad input. jsonrpc2 closes the connection on any read
// error; this stream instead logs a malformed frame, answers a malformed
// body with a JSON-RPC error (id null: the id cannot be trusted), and reads
// on, so one bad message never ends the session. Writes are serialized so
// frames never interleave on the output.
type frameStream struct {
	r   *bufio.Reader
	in  io.Reader
	log *log.Logger

	wmu sync.Mutex
	w   io.Writer
}

func newFrameStream(in io.Reader, out io.Writer, logger *log.Logger) *frameStream {
	return &frameStream{r: bufio.NewReaderSize(in, 64<<10), in: in, w: out, log: logger}
}

// ReadObject reads the next well-formed message into v. It returns an error
// only when the input ends or fails.
func (s *frameStream) ReadObject(v any) error {
	for {
		body, err := s.readFrame()
		if err != nil {
			return err
		}
		if body == nil {
			continue
		}
		code, msg, id := checkMessage(body)
		if code == 0 {
			err := json.Unmarshal(body, v)
			if err == nil {
				return nil
			}
			code, msg = codeInvalidRequest, "invalid request: "+err.Error()
		}
		s.log.Printf("ignoring a malformed message (%s): %.200q", msg, body)
		if code == codeNoAnswer {
			continue // a malformed response: there is no one to answer
		}
		if err := s.writeRaw(errorFrame(code, msg, id)); err != nil {
			return err
		}
	}
}

// codeNoAnswer marks a bad message that gets no answer.
const codeNoAnswer = 1

// checkMessage classifies a body before jsonrpc2 sees it, because jsonrpc2
// would close the connection on anything it cannot decode, and would run a
// request that is not JSON-RPC 2.0. A request or notification must carry
// "jsonrpc":"2.0" and a string method, else it is an Invalid Request that
// is answered (with its own id when that id is valid, null otherwise) and
// never executed. A response (to the server's own requests, e.g.
// workspace/applyEdit) is accepted whatever its "jsonrpc" member, because
// it runs nothing and dropping it would leave the server waiting; one with
// an invalid id has no request to go to and no one to answer.
func checkMessage(body []byte) (code int, msg string, id json.RawMessage) {
	t := bytes.TrimSpace(body)
	if !json.Valid(t) {
		return codeParseError, "parse error: the body is not valid JSON", nil
	}
	if len(t) == 0 || t[0] != '{' {
		return codeInvalidRequest, "invalid request: a message must be a JSON object (batches are not supported)", nil
	}
	var m struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(t, &m); err != nil {
		return codeInvalidRequest, "invalid request: " + err.Error(), nil
	}
	if validID(m.ID) {
		id = m.ID
	}
	if m.Method == nil {
		if m.Result != nil || m.Error != nil {
			if id != nil {
				return 0, "", id
			}
			return codeNoAnswer, "a response with an invalid id", nil
		}
		return codeInvalidRequest, "invalid request: no method", id
	}
	var method string
	if m.Method[0] != '"' || json.Unmarshal(m.Method, &method) != nil {
		return codeInvalidRequest, fmt.Sprintf("invalid request: method must be a string, got %.40s", m.Method), id
	}
	var version string
	if json.Unmarshal(m.JSONRPC, &version) != nil || version != "2.0" {
		got := "nothing"
		if m.JSONRPC != nil {
			got = fmt.Sprintf("%.40s", m.JSONRPC)
		}
		return codeInvalidRequest, fmt.Sprintf(`invalid request: "jsonrpc" must be "2.0", got %s (%s not run)`, got, method), id
	}
	if m.ID != nil && id == nil {
		// LSP ids are integers or strings; jsonrpc2 would take an id of
		// null for a notification and answer nothing.
		return codeInvalidRequest, "invalid request: id must be a non-negative integer or a string", nil
	}
	return 0, "", id
}

// validID reports whether id is one the server can answer to: a
// non-negative integer or a string.
func validID(id json.RawMessage) bool {
	if id == nil {
		return false
	}
	var n uint64
	if json.Unmarshal(id, &n) == nil && id[0] != 'n' {
		return true
	}
	var s string
	return id[0] == '"' && json.Unmarshal(id, &s) == nil
}

// errorFrame is an error response to id (null when id is nil).
func errorFrame(code int, msg string, id json.RawMessage) []byte {
	var rid any
	if id != nil {
		rid = id
	}
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      rid,
		"error":   map[string]any{"code": code, "message": msg},
	})
	return b
}

// readFrame reads one frame's body. It resynchronizes on garbage: lines
// before a header block that are not headers are skipped (and logged), and a
// header block without a usable Content-Length is dropped. A nil body with a
// nil error means "nothing usable, read on".
func (s *frameStream) readFrame() ([]byte, error) {
	length := -1
	sawHeader := false
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			if err == io.EOF && strings.TrimSpace(line) != "" {
				s.log.Printf("input ended inside a frame header: %.200q", line)
			}
			return nil, err
		}
		trimmed := strings.TrimRight(line, "\r\n")
		if trimmed == "" {
			if !sawHeader {
				continue // stray blank line between frames
			}
			break
		}
		name, value, ok := strings.Cut(trimmed, ":")
		// Garbage glued before a header (a body longer than announced):
		// keep what follows the last "Content-Length".
		if i := strings.LastIndex(strings.ToLower(trimmed), "content-length:"); i > 0 {
			s.log.Printf("skipping %d bytes of garbage before a header", i)
			name, value, ok = "Content-Length", trimmed[i+len("content-length:"):], true
		}
		if !ok || strings.ContainsAny(name, " \t{}\"") {
			s.log.Printf("skipping a line that is no header: %.200q", trimmed)
			continue
		}
		sawHeader = true
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				s.log.Printf("bad Content-Length %q", value)
				length = -1
				continue
			}
			length = n
		}
	}
	if length < 0 {
		s.log.Printf("dropping a frame without a valid Content-Length")
		return nil, s.writeRaw(errorFrame(codeParseError, "parse error: frame without a valid Content-Length header", nil))
	}
	if length > maxFrameBytes {
		// Most likely a corrupt header: answer, and let the header scan
		// skip whatever body follows.
		s.log.Printf("dropping a frame announcing %d bytes", length)
		return nil, s.writeRaw(errorFrame(codeInvalidRequest, fmt.Sprintf("message of %d bytes is too large", length), nil))
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// WriteObject writes obj as one frame.
func (s *frameStream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	return s.writeRaw(data)
}

func (s *frameStream) writeRaw(data []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var buf bytes.Buffer
	buf.Grow(len(data) + 32)
	fmt.Fprintf(&buf, "Content-Length: %d\r\n\r\n", len(data))
	buf.Write(data)
	_, err := s.w.Write(buf.Bytes())
	return err
}

// Close closes the input when it can be closed; the output belongs to the
// caller of Run.
func (s *frameStream) Close() error {
	if c, ok := s.in.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// JSON-RPC and LSP error codes.
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeNotInitialized   = -32002
	codeRequestFailed    = -32803
	codeRequestCancelled = -32800
)

package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Call is one tool call the model makes: the tool's name and its
// arguments. Args is marshalled to JSON, except for a free-form tool
// (Codex's apply_patch), whose input is the string itself.
type Call struct {
	Name string
	Args any
}

// Reply is one answer of the model within a prompt: the tool calls it
// makes, or, when Calls is empty, the final text that ends the turn.
type Reply struct {
	Calls []Call
	Text  string
}

// Tools returns a reply that makes the given tool calls.
func Tools(calls ...Call) Reply { return Reply{Calls: calls} }

// Say returns the reply that ends the turn with text.
func Say(text string) Reply { return Reply{Text: text} }

// Server is a scripted model endpoint on 127.0.0.1 speaking the four APIs
// the agents use. It answers each request from the script of the prompt
// the request is about and records every request.
type Server struct {
	// URL is the server's base, http://127.0.0.1:PORT (no trailing slash).
	URL string

	srv *http.Server
	ln  net.Listener

	mu       sync.Mutex
	scripts  []script
	requests []*Request
}

type script struct {
	key     string
	replies []Reply
}

// Request is one request an agent sent, as recorded.
type Request struct {
	// API is "anthropic", "responses", "gemini", "chat", or "gemini-json"
	// for Gemini CLI's side requests that ask for JSON (its model router).
	API  string
	Path string
	Time time.Time
	Body []byte
	// Messages is the conversation the request carries, in order, in one
	// shape for every API; the system prompt is not in it.
	Messages []Message
	// Prompt is the scripted prompt key the request was answered from,
	// "" when no script matched.
	Prompt string
	// Round counts the tool results the request carries since that
	// prompt's message: which reply of the script it got.
	Round int
}

// Message is one message of a conversation: who spoke, the text, the tool
// calls made and the tool results returned.
type Message struct {
	Role    string // "user", "assistant", "developer", "system" or "tool"
	Text    string
	Calls   []Call
	Results []string
}

// Start starts a server; Close stops it.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake model: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// On scripts the model's replies to the prompt containing key (when a
// message contains several keys, the one scripted last): the first
// reply answers the prompt, each next one answers the results of the tool
// calls before it. Once the replies run out, the model says "Done.".
// A later On for the same key replaces the script.
func (s *Server) On(key string, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.scripts {
		if s.scripts[i].key == key {
			s.scripts[i].replies = replies
			return
		}
	}
	s.scripts = append(s.scripts, script{key, replies})
}

// Requests returns every request recorded so far, oldest first.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// For returns the requests answered from the script of key (not the
// side requests about it, such as Gemini CLI's model router).
func (s *Server) For(key string) []*Request {
	var out []*Request
	for _, r := range s.Requests() {
		if r.Prompt == key && r.API != "gemini-json" {
			out = append(out, r)
		}
	}
	return out
}

// UserTexts returns the text of every user message of the request.
func (r *Request) UserTexts() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "user" && m.Text != "" {
			out = append(out, m.Text)
		}
	}
	return out
}

// Mentions reports whether any message of the request contains text.
func (r *Request) Mentions(text string) bool {
	for _, m := range r.Messages {
		if strings.Contains(m.Text, text) {
			return true
		}
		for _, res := range m.Results {
			if strings.Contains(res, text) {
				return true
			}
		}
	}
	return false
}

// Count returns how many messages of the request contain text.
func (r *Request) Count(text string) int {
	n := 0
	for _, m := range r.Messages {
		n += strings.Count(m.Text, text)
	}
	return n
}

// pick records a parsed request and chooses its reply from the scripts:
// the latest user message that contains a scripted key names the prompt,
// and the tool results after it say how far into its script the agent is.
func (s *Server) pick(api string, r *http.Request, body []byte, msgs []Message) Reply {
	req := s.record(api, r, body, msgs)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sc := range s.scripts {
		if sc.key != req.Prompt {
			continue
		}
		if req.Round < len(sc.replies) {
			return sc.replies[req.Round]
		}
		return Say("Done.")
	}
	return Say("OK.")
}

// record records a parsed request with the prompt it is about.
func (s *Server) record(api string, r *http.Request, body []byte, msgs []Message) *Request {
	req := &Request{API: api, Path: r.URL.String(), Time: time.Now(), Body: body, Messages: msgs}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	// A message may quote an earlier prompt (a notice does): the prompt
	// scripted last wins. A message that begins with a notice is the
	// prompt only when no prompt of its own comes before it in the same
	// exchange (an agent that sends the notice as a message of its own
	// after the prompt, as pi does; ACP sends it as a block of the prompt).
	noticeAt, noticeKey := -1, -1
	for i := len(msgs) - 1; i >= 0 && req.Prompt == ""; i-- {
		if msgs[i].Role == "assistant" && noticeAt >= 0 {
			break
		}
		if msgs[i].Role != "user" || msgs[i].Text == "" {
			continue
		}
		key := -1
		for j := len(s.scripts) - 1; j >= 0; j-- {
			if strings.Contains(msgs[i].Text, s.scripts[j].key) {
				key = j
				break
			}
		}
		if strings.HasPrefix(msgs[i].Text, noticePrefix) {
			if noticeAt < 0 {
				noticeAt, noticeKey = i, key
			}
			continue
		}
		if key >= 0 {
			req.Prompt, req.Round = s.scripts[key].key, rounds(msgs[i+1:])
		}
	}
	if req.Prompt == "" && noticeKey >= 0 {
		req.Prompt, req.Round = s.scripts[noticeKey].key, rounds(msgs[noticeAt+1:])
	}
	return req
}

// noticePrefix begins every rewind-lsp notice. An agent that hands it to
// the model as a user message of its own after the prompt (pi's
// before_agent_start message) sends no prompt there.
const noticePrefix = "rewind-lsp: "

// rounds counts the runs of tool results in msgs: one per answered round
// of tool calls (some APIs send each result of a round as its own message).
func rounds(msgs []Message) int {
	n, in := 0, false
	for _, m := range msgs {
		res := len(m.Results) > 0 && m.Role != "assistant"
		if res && !in {
			n++
		}
		in = res
	}
	return n
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.Contains(p, "/messages"):
		s.anthropic(w, r, body)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		s.responses(w, r, body)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/chat/completions"):
		s.chat(w, r, body)
	case r.Method == http.MethodPost && strings.Contains(p, ":streamGenerateContent"):
		s.gemini(w, r, body, true)
	case r.Method == http.MethodPost && strings.Contains(p, ":generateContent"):
		s.gemini(w, r, body, false)
	case r.Method == http.MethodPost && strings.Contains(p, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": len(body) / 4})
	case r.Method == http.MethodHead:
		s.record("probe", r, nil, nil)
		w.WriteHeader(http.StatusOK)
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		s.models(w, r)
	default:
		s.mu.Lock()
		s.requests = append(s.requests, &Request{API: "unknown", Path: r.Method + " " + r.URL.String(), Time: time.Now(), Body: body})
		s.mu.Unlock()
		http.Error(w, "the fake model does not serve "+r.Method+" "+p, http.StatusNotFound)
	}
}

// Unknown returns the requests no API of the server recognised.
func (s *Server) Unknown() []*Request {
	var out []*Request
	for _, r := range s.Requests() {
		if r.API == "unknown" {
			out = append(out, r)
		}
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events; each event is flushed at once.
type sse struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{w}
}

// event writes one event; name may be "" (a data-only event).
func (e *sse) event(name string, data any) {
	var b bytes.Buffer
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	switch d := data.(type) {
	case string:
		fmt.Fprintf(&b, "data: %s\n\n", d)
	default:
		j, _ := json.Marshal(d)
		fmt.Fprintf(&b, "data: %s\n\n", j)
	}
	e.w.Write(b.Bytes())
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// argsJSON is a call's arguments as a JSON object text.
func argsJSON(c Call) string {
	if s, ok := c.Args.(string); ok {
		return s
	}
	if c.Args == nil {
		return "{}"
	}
	j, _ := json.Marshal(c.Args)
	return string(j)
}

// argsMap is a call's arguments as a JSON object.
func argsMap(c Call) map[string]any {
	m := map[string]any{}
	json.Unmarshal([]byte(argsJSON(c)), &m)
	return m
}

var idSeq struct {
	sync.Mutex
	n int
}

// newID makes an id unique within the process, with prefix.
func newID(prefix string) string {
	idSeq.Lock()
	defer idSeq.Unlock()
	idSeq.n++
	return fmt.Sprintf("%s%d%06d", prefix, time.Now().UnixNano()%1e9, idSeq.n)
}

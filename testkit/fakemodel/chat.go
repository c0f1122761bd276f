package fakemodel

import (
	"encoding/json"
	"net/http"
	"time"
)

// The OpenAI chat completions API (Copilot CLI with its own provider):
// POST /v1/chat/completions, answered as a stream of chunks when asked.

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
}

func chatMessages(req *chatRequest) []Message {
	var out []Message
	for _, m := range req.Messages {
		msg := Message{Role: m.Role, Text: responsesText(m.Content)}
		for _, c := range m.ToolCalls {
			msg.Calls = append(msg.Calls, Call{Name: c.Function.Name, Args: json.RawMessage(c.Function.Arguments)})
		}
		if m.Role == "tool" {
			msg.Results, msg.Text = []string{msg.Text}, ""
		}
		out = append(out, msg)
	}
	return out
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, body []byte) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "not a chat completions request: "+err.Error(), http.StatusBadRequest)
		return
	}
	reply := s.pick("chat", r, body, chatMessages(&req))
	id, created := newID("chatcmpl-"), time.Now().Unix()
	var calls []map[string]any
	for i, c := range reply.Calls {
		calls = append(calls, map[string]any{"index": i, "id": newID("call_"), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": argsJSON(c)}})
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	in := len(body) / 4
	usage := map[string]any{"prompt_tokens": in, "completion_tokens": 10, "total_tokens": in + 10}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": reply.Text}
		if len(calls) > 0 {
			msg["content"], msg["tool_calls"] = nil, calls
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	e := startSSE(w)
	e.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if len(calls) == 0 {
		e.event("", chunk(map[string]any{"content": reply.Text}, nil))
	} else {
		e.event("", chunk(map[string]any{"tool_calls": calls}, nil))
	}
	last := chunk(map[string]any{}, finish)
	last["usage"] = usage
	e.event("", last)
	e.event("", "[DONE]")
}

// models answers a list of models with the one each agent is told to use.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	s.record("models", r, nil, nil)
	var data []any
	for _, m := range []string{"claude-sonnet-4.5", "gpt-5", "gemini-2.5-pro", "gemini-2.5-flash"} {
		data = append(data, map[string]any{"id": m, "object": "model", "created": 0, "owned_by": "fake"})
	}
	writeJSON(w, map[string]any{"object": "list", "data": data})
}

package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The Anthropic Messages API (Claude Code): POST /v1/messages, answered as
// a stream of server-sent events when the request asks for one.

type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// anthropicMessages turns a request's messages into Messages: a user
// message of tool results only is a "tool" message.
func anthropicMessages(req *anthropicRequest) []Message {
	var out []Message
	for _, m := range req.Messages {
		msg := Message{Role: m.Role}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			msg.Text = s
			out = append(out, msg)
			continue
		}
		var blocks []anthropicBlock
		json.Unmarshal(m.Content, &blocks)
		var texts []string
		for _, b := range blocks {
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "tool_use":
				msg.Calls = append(msg.Calls, Call{Name: b.Name, Args: b.Input})
			case "tool_result":
				msg.Results = append(msg.Results, contentText(b.Content))
			}
		}
		msg.Text = strings.Join(texts, "\n")
		if len(msg.Results) > 0 && msg.Role == "user" && msg.Text == "" {
			msg.Role = "tool"
		}
		out = append(out, msg)
	}
	return out
}

// contentText reads a tool result's content: a string or text blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []anthropicBlock
	json.Unmarshal(raw, &blocks)
	var texts []string
	for _, b := range blocks {
		texts = append(texts, b.Text)
	}
	return strings.Join(texts, "\n")
}

func (s *Server) anthropic(w http.ResponseWriter, r *http.Request, body []byte) {
	if strings.HasSuffix(r.URL.Path, "/count_tokens") {
		writeJSON(w, map[string]any{"input_tokens": len(body) / 4})
		return
	}
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "not a Messages request: "+err.Error(), http.StatusBadRequest)
		return
	}
	reply := s.pick("anthropic", r, body, anthropicMessages(&req))
	var content []map[string]any
	stop := "end_turn"
	if len(reply.Calls) == 0 {
		content = append(content, map[string]any{"type": "text", "text": reply.Text})
	}
	for _, c := range reply.Calls {
		content = append(content, map[string]any{"type": "tool_use", "id": newID("toolu_"), "name": c.Name, "input": argsMap(c)})
		stop = "tool_use"
	}
	id := newID("msg_")
	usage := map[string]any{"input_tokens": len(body) / 4, "output_tokens": 10}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	e := startSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": len(body) / 4, "output_tokens": 1}}})
	for i, b := range content {
		switch b["type"] {
		case "text":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

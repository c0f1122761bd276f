package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The OpenAI Responses API (Codex): POST /v1/responses, answered as a
// stream of server-sent events.

// ToolSearch is the name of Codex's client-side tool search in a Call (a
// tool_search_call item, Args {"query": …}): Codex offers an MCP server's
// tools only through it. The tools it loads are called as
// "namespace/name" (an MCP server's: "mcp__rewind/checkpoint").
const ToolSearch = "tool_search"

type responsesRequest struct {
	Model string            `json:"model"`
	Input []json.RawMessage `json:"input"`
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments json.RawMessage `json:"arguments"` // a JSON text in a string; an object for a tool search
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

// responsesMessages turns a request's input items into Messages: each
// message item is one message, each tool call joins the assistant message
// before it, each tool output is a "tool" message.
func responsesMessages(req *responsesRequest) []Message {
	var out []Message
	for _, raw := range req.Input {
		var it responsesItem
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		switch it.Type {
		case "message", "":
			out = append(out, Message{Role: it.Role, Text: responsesText(it.Content)})
		case "function_call", "custom_tool_call", "local_shell_call", "tool_search_call":
			var args string
			json.Unmarshal(it.Arguments, &args)
			c := Call{Name: it.Name, Args: json.RawMessage(args)}
			switch {
			case it.Type == "custom_tool_call":
				c.Args = it.Input
			case it.Type == "tool_search_call":
				c = Call{Name: ToolSearch, Args: it.Arguments}
			case args == "":
				c.Args = nil
			}
			if it.Namespace != "" {
				c.Name = it.Namespace + "/" + it.Name
			}
			if n := len(out); n > 0 && out[n-1].Role == "assistant" {
				out[n-1].Calls = append(out[n-1].Calls, c)
			} else {
				out = append(out, Message{Role: "assistant", Calls: []Call{c}})
			}
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output":
			out = append(out, Message{Role: "tool", Results: []string{responsesOutput(it.Output)}})
		}
	}
	return out
}

// responsesText reads a message's content: a string or content parts.
func responsesText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// responsesOutput reads a tool output: a string, {content}, or parts.
func responsesOutput(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &o) == nil && len(o.Content) > 0 {
		return responsesText(o.Content)
	}
	return responsesText(raw)
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request, body []byte) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "not a Responses request: "+err.Error(), http.StatusBadRequest)
		return
	}
	freeform := map[string]bool{}
	for _, t := range req.Tools {
		if t.Type == "custom" {
			freeform[t.Name] = true
		}
	}
	reply := s.pick("responses", r, body, responsesMessages(&req))
	var items []map[string]any
	if len(reply.Calls) == 0 {
		items = append(items, map[string]any{"type": "message", "id": newID("msg_"), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": reply.Text, "annotations": []any{}}}})
	}
	for _, c := range reply.Calls {
		ns, name, namespaced := strings.Cut(c.Name, "/")
		switch {
		case c.Name == ToolSearch:
			items = append(items, map[string]any{"type": "tool_search_call", "id": newID("tsc_"), "call_id": newID("call_"), "execution": "client", "arguments": argsMap(c), "status": "completed"})
		case namespaced:
			items = append(items, map[string]any{"type": "function_call", "id": newID("fc_"), "call_id": newID("call_"), "namespace": ns, "name": name, "arguments": argsJSON(c), "status": "completed"})
		case freeform[c.Name]:
			in, _ := c.Args.(string)
			items = append(items, map[string]any{"type": "custom_tool_call", "id": newID("ctc_"), "call_id": newID("call_"), "name": c.Name, "input": in, "status": "completed"})
		default:
			items = append(items, map[string]any{"type": "function_call", "id": newID("fc_"), "call_id": newID("call_"), "name": c.Name, "arguments": argsJSON(c), "status": "completed"})
		}
	}
	id := newID("resp_")
	e := startSSE(w)
	e.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id, "model": req.Model, "status": "in_progress", "output": []any{}}})
	for i, it := range items {
		if it["type"] == "message" {
			added := map[string]any{}
			for k, v := range it {
				added[k] = v
			}
			added["content"], added["status"] = []any{}, "in_progress"
			e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": added})
			e.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "output_index": i, "content_index": 0, "item_id": it["id"], "delta": reply.Text})
		} else {
			e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		}
		e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	in := len(body) / 4
	e.event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": id, "model": req.Model, "status": "completed", "output": items,
		"usage": map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + 10}}})
}

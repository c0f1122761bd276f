package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The Gemini API (Gemini CLI): POST /v1beta/models/<model>:generateContent
// and :streamGenerateContent?alt=sse. A request whose generationConfig
// asks for JSON of a schema (the CLI's model router and its other side
// questions) is answered with an instance of that schema, never from a
// script.

type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

type geminiPart struct {
	Text         string `json:"text"`
	Thought      bool   `json:"thought"`
	FunctionCall *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiMessages turns contents into Messages: "model" is the assistant;
// a user content of function responses only is a "tool" message.
func geminiMessages(req *geminiRequest) []Message {
	var out []Message
	for _, c := range req.Contents {
		m := Message{Role: c.Role}
		if m.Role == "model" {
			m.Role = "assistant"
		}
		var texts []string
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				m.Calls = append(m.Calls, Call{Name: p.FunctionCall.Name, Args: p.FunctionCall.Args})
			case p.FunctionResponse != nil:
				m.Results = append(m.Results, string(p.FunctionResponse.Response))
			case p.Text != "" && !p.Thought:
				texts = append(texts, p.Text)
			}
		}
		m.Text = strings.Join(texts, "\n")
		if m.Role != "assistant" && len(m.Results) > 0 && m.Text == "" {
			m.Role = "tool"
		}
		out = append(out, m)
	}
	return out
}

func (s *Server) gemini(w http.ResponseWriter, r *http.Request, body []byte, stream bool) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "not a Gemini request: "+err.Error(), http.StatusBadRequest)
		return
	}
	msgs := geminiMessages(&req)
	var parts []map[string]any
	if schema := req.GenerationConfig.ResponseJSONSchema; len(schema) > 0 || len(req.GenerationConfig.ResponseSchema) > 0 || req.GenerationConfig.ResponseMimeType == "application/json" {
		if len(schema) == 0 {
			schema = req.GenerationConfig.ResponseSchema
		}
		s.record("gemini-json", r, body, msgs)
		var sc map[string]any
		json.Unmarshal(schema, &sc)
		j, _ := json.Marshal(instance(sc, ""))
		parts = append(parts, map[string]any{"text": string(j)})
	} else {
		reply := s.pick("gemini", r, body, msgs)
		if len(reply.Calls) == 0 {
			parts = append(parts, map[string]any{"text": reply.Text})
		}
		for _, c := range reply.Calls {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": argsMap(c)}})
		}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": len(body) / 4, "candidatesTokenCount": 10, "totalTokenCount": len(body)/4 + 10},
		"modelVersion":  "fake",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	startSSE(w).event("", resp)
}

// instance makes a value of a JSON schema: the first choice of an enum
// (the user, when an enum names who speaks next, so the agent stops), an
// empty value or 1 otherwise, every property of an object filled.
func instance(sc map[string]any, name string) any {
	if enum, ok := sc["enum"].([]any); ok && len(enum) > 0 {
		for _, v := range enum {
			if v == "user" {
				return v
			}
		}
		return enum[0]
	}
	typ, _ := sc["type"].(string)
	typ = strings.ToLower(typ)
	switch typ {
	case "object":
		out := map[string]any{}
		props, _ := sc["properties"].(map[string]any)
		for k, v := range props {
			p, _ := v.(map[string]any)
			out[k] = instance(p, k)
		}
		return out
	case "array":
		return []any{}
	case "boolean":
		return false
	case "integer", "number":
		if m, ok := sc["minimum"].(float64); ok {
			return m
		}
		return 1 // scores and counts the CLI asks for start at 1
	}
	return "scripted " + name
}

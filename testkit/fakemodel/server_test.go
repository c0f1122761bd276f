package fakemodel

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// Each API, asked about a scripted prompt, answers the script's first
// reply (a tool call, in the API's own shape); asked again with that
// call's result, the next reply (the final text); and both requests are
// recorded with the prompt and round they were answered from.
func TestScriptPerAPI(t *testing.T) {
	cases := []struct {
		api, path   string
		first, next string // request bodies: the prompt alone; then with a tool result
		call, text  string // what the answers must contain
	}{
		{"anthropic", "/v1/messages",
			`{"model":"m","stream":true,"messages":[{"role":"user","content":"please PROMPT now"}]}`,
			`{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"please PROMPT now"}]},
			  {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Write","input":{}}]},
			  {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}`,
			`"name":"Write"`, `"text":"FINAL"`},
		{"responses", "/v1/responses",
			`{"model":"m","tools":[{"type":"custom","name":"apply_patch"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"please PROMPT now"}]}]}`,
			`{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"please PROMPT now"}]},
			  {"type":"custom_tool_call","name":"apply_patch","input":"x","call_id":"c1"},
			  {"type":"custom_tool_call_output","call_id":"c1","output":"done"}]}`,
			`"type":"custom_tool_call"`, `"text":"FINAL"`},
		{"gemini", "/v1beta/models/m:streamGenerateContent?alt=sse",
			`{"contents":[{"role":"user","parts":[{"text":"please PROMPT now"}]}]}`,
			`{"contents":[{"role":"user","parts":[{"text":"please PROMPT now"}]},
			  {"role":"model","parts":[{"functionCall":{"name":"Write","args":{}}}]},
			  {"role":"user","parts":[{"functionResponse":{"name":"Write","response":{"output":"ok"}}}]}]}`,
			`"functionCall":{"args":{"file_path":"f"},"name":"Write"}`, `"text":"FINAL"`},
		{"chat", "/v1/chat/completions",
			`{"model":"m","stream":true,"messages":[{"role":"system","content":"sys"},{"role":"user","content":"please PROMPT now"}]}`,
			`{"model":"m","stream":true,"messages":[{"role":"user","content":"please PROMPT now"},
			  {"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"Write","arguments":"{}"}}]},
			  {"role":"tool","tool_call_id":"c1","content":"ok"}]}`,
			`"name":"Write"`, `"content":"FINAL"`},
	}
	for _, c := range cases {
		t.Run(c.api, func(t *testing.T) {
			s, err := Start()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			call := Call{Name: "Write", Args: map[string]any{"file_path": "f"}}
			if c.api == "responses" {
				call = Call{Name: "apply_patch", Args: "*** Begin Patch\n*** End Patch\n"}
			}
			s.On("PROMPT", Tools(call), Say("FINAL"))
			if got := post(t, s.URL+c.path, c.first); !strings.Contains(got, c.call) {
				t.Errorf("first answer has no %s:\n%s", c.call, got)
			}
			if got := post(t, s.URL+c.path, c.next); !strings.Contains(got, c.text) {
				t.Errorf("second answer has no %s:\n%s", c.text, got)
			}
			reqs := s.For("PROMPT")
			if len(reqs) != 2 || reqs[0].Round != 0 || reqs[1].Round != 1 || reqs[0].API != c.api {
				t.Fatalf("recorded %d requests for the prompt: %+v", len(reqs), reqs)
			}
			if !reqs[1].Mentions("please PROMPT now") || len(reqs[1].UserTexts()) != 1 {
				t.Errorf("the second request's user texts are %q", reqs[1].UserTexts())
			}
		})
	}
}

// A prompt nobody scripted gets a short text, and is recorded as such.
func TestUnscripted(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := post(t, s.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hello"}]}`)
	if !strings.Contains(got, `"content":"OK."`) {
		t.Errorf("answer: %s", got)
	}
	if r := s.Requests(); len(r) != 1 || r[0].Prompt != "" {
		t.Errorf("recorded %+v", r)
	}
}

// Gemini CLI's router asks for JSON of a schema: it gets an instance of
// it, and the script is not consumed.
func TestGeminiSchema(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.On("PROMPT", Say("FINAL"))
	got := post(t, s.URL+"/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"text":"PROMPT"}]}],
	  "generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT","properties":{
	  "complexity_score":{"type":"INTEGER"},"next_speaker":{"type":"STRING","enum":["model","user"]}}}}}`)
	if !strings.Contains(got, `complexity_score\":1`) || !strings.Contains(got, `next_speaker\":\"user\"`) {
		t.Errorf("answer: %s", got)
	}
	if len(s.For("PROMPT")) != 0 {
		t.Errorf("the router's request counted as the prompt's")
	}
}

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %s %s", url, resp.Status, data)
	}
	return string(data)
}

package acp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// The test binary is also a tiny scripted ACP agent (fakeAgentEnv set):
// it answers initialize and session/new, lists the commands named in
// FAKE_AGENT_COMMANDS, and acts on each prompt's first word:
//
//	write PATH TEXT   a tool_call "edit" of PATH, the file written, its update "completed"
//	ask PATH TEXT     an fs/write_text_file request to the editor (id 1), then the answer
//	stream N          N agent_message_chunk updates
//	odd               an unknown notification and a line that is not JSON
//	dump              every line it received so far, as one chunk
//	blocks            the prompt's blocks, as one chunk
//	crash             exits 7
//
// then answers end_turn.
const fakeAgentEnv = "REWIND_LSP_FAKE_ACP_AGENT"

func fakeAgent() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	var got []string
	calls := 0
	send := func(v any) {
		data, _ := json.Marshal(v)
		out.Write(append(data, '\n'))
		out.Flush()
	}
	update := func(sid string, u map[string]any) {
		send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": sid, "update": u}})
	}
	chunk := func(sid, text string) {
		update(sid, map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}})
	}
	for {
		line, err := in.ReadString('\n')
		if line != "" {
			got = append(got, line)
		}
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				SessionID string `json:"sessionId"`
				Prompt    []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"prompt"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.Method == "" || len(m.ID) == 0 {
			continue
		}
		result := func(v any) { send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": v}) }
		switch m.Method {
		case "initialize":
			result(map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": "fake-agent", "version": "1"}})
		case "session/new":
			result(map[string]any{"sessionId": "s1"})
			if names := os.Getenv("FAKE_AGENT_COMMANDS"); names != "" {
				var list []any
				for _, n := range strings.Split(names, ",") {
					list = append(list, map[string]any{"name": n, "description": "the agent's own " + n})
				}
				update("s1", map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": list})
			}
		case "session/prompt":
			sid := m.Params.SessionID
			last := ""
			if n := len(m.Params.Prompt); n > 0 {
				last = m.Params.Prompt[n-1].Text
			}
			f := strings.Fields(last)
			if len(f) == 0 {
				f = []string{""}
			}
			switch f[0] {
			case "write":
				calls++
				id := fmt.Sprintf("call-%d", calls)
				update(sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": id, "title": "Write " + f[1], "kind": "edit",
					"status": "in_progress", "locations": []any{map[string]any{"path": f[1]}}})
				os.WriteFile(f[1], []byte(f[2]+"\n"), 0o644)
				update(sid, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "completed"})
			case "ask":
				update(sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call-ask", "title": "Ask " + f[1], "kind": "edit", "status": "pending"})
				send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "fs/write_text_file", "params": map[string]any{"sessionId": sid, "path": f[1], "content": f[2] + "\n"}})
				for {
					l, err := in.ReadString('\n')
					if err != nil {
						return
					}
					got = append(got, l)
					if strings.Contains(l, `"id":1`) && !strings.Contains(l, `"method"`) {
						break
					}
				}
				update(sid, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "call-ask", "status": "completed"})
			case "stream":
				var n int
				fmt.Sscan(f[1], &n)
				for i := 0; i < n; i++ {
					chunk(sid, fmt.Sprintf("chunk %d;", i))
				}
			case "odd":
				out.WriteString(`{"jsonrpc":"2.0","method":"x/unknown","params":{"a": 1}}` + "\n")
				out.WriteString("not json at all\n")
				out.Flush()
			case "dump":
				chunk(sid, strings.Join(got, ""))
			case "blocks":
				data, _ := json.Marshal(m.Params.Prompt)
				chunk(sid, string(data))
			case "crash":
				os.Exit(7)
			}
			result(map[string]any{"stopReason": "end_turn"})
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "unknown " + m.Method}})
		}
	}
}

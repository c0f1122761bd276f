package claudecode

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"
)

// transcriptGen writes transcripts shaped like Claude Code's (JSON Lines;
// entries user — prompts with a string content, tool results with a list —
// assistant (one line per content block: thinking, text, tool_use),
// progress, system, file-history-snapshot, queue-operation, summary,
// sidechain and meta lines; keys in Claude Code's order, unicode and
// escapes, lines of several MB), so the fork is tested on what it meets.
type transcriptGen struct {
	t       *testing.T
	f       *os.File
	session string
	cwd     string
	parent  string
	rnd     *rand.Rand
	clock   time.Time
	uuids   int
}

func newGen(t *testing.T, path, session string) *transcriptGen {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &transcriptGen{t: t, f: f, session: session, cwd: "/home/dev/project", rnd: rand.New(rand.NewSource(7)),
		clock: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
}

func (g *transcriptGen) id() string {
	g.uuids++
	r := g.rnd
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", r.Uint32(), r.Intn(1<<16), r.Intn(1<<12), 0x8000|r.Intn(1<<14), r.Int63n(1<<48))
}

func (g *transcriptGen) now() string {
	g.clock = g.clock.Add(1500 * time.Millisecond)
	return g.clock.Format("2006-01-02T15:04:05.000Z")
}

// raw writes one line as given.
func (g *transcriptGen) raw(line string) {
	g.t.Helper()
	if _, err := g.f.WriteString(line + "\n"); err != nil {
		g.t.Fatal(err)
	}
}

// obj writes one JSON object line with its keys in the given order.
func (g *transcriptGen) obj(kv ...any) {
	g.t.Helper()
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[i])
		v, err := json.Marshal(kv[i+1])
		if err != nil {
			g.t.Fatal(err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	g.raw(b.String())
}

func (g *transcriptGen) common(typ, id string, extra ...any) []any {
	var parent any
	if g.parent != "" {
		parent = g.parent
	}
	kv := []any{"parentUuid", parent, "isSidechain", false, "userType", "external", "cwd", g.cwd,
		"sessionId", g.session, "version", "2.0.42", "gitBranch", "main"}
	kv = append(kv, extra...)
	return append(kv, "type", typ, "uuid", id, "timestamp", g.now())
}

// prompt writes what Claude Code writes when a prompt is submitted: the
// queue operations, the file-history snapshot and the user line. It
// returns the prompt line's uuid.
func (g *transcriptGen) prompt(text string) string {
	id := g.id()
	g.obj("type", "queue-operation", "operation", "enqueue", "timestamp", g.now(), "sessionId", g.session, "content", text)
	g.obj("type", "queue-operation", "operation", "dequeue", "timestamp", g.now(), "sessionId", g.session)
	g.obj("type", "file-history-snapshot", "messageId", id, "snapshot",
		map[string]any{"messageId": id, "trackedFileBackups": map[string]any{"src/main.go": map[string]any{"backupFileName": "abc@v1", "version": 1}}, "timestamp": g.now()},
		"isSnapshotUpdate", false)
	g.obj(g.common("user", id, "message", map[string]any{"role": "user", "content": text})...)
	g.parent = id
	return id
}

// hookProgress writes a hook's progress line.
func (g *transcriptGen) hookProgress(event string) {
	id := g.id()
	g.obj(g.common("progress", id, "data", map[string]any{"type": "hook_progress", "hookEvent": event,
		"hookName": event + ":rewind-lsp", "command": "rewind-lsp hook claude-code"}, "toolUseID", "toolu_"+id[:8], "parentToolUseID", "toolu_"+id[:8])...)
}

// reply writes an assistant reply: thinking, text and a tool call, the
// tool's result (a list content, resultBytes long) and progress lines.
func (g *transcriptGen) reply(resultBytes int) {
	msg := "msg_" + g.id()[:12]
	usage := map[string]any{"input_tokens": 3, "cache_read_input_tokens": 20480, "output_tokens": 412}
	block := func(b map[string]any) {
		id := g.id()
		g.obj(g.common("assistant", id, "message", map[string]any{"model": "claude-sonnet-4-5", "id": msg, "type": "message",
			"role": "assistant", "content": []any{b}, "stop_reason": nil, "stop_sequence": nil, "usage": usage},
			"requestId", "req_"+id[:10])...)
		g.parent = id
	}
	block(map[string]any{"type": "thinking", "thinking": "Let me look at the parser — «naïve» approach first…", "signature": strings.Repeat("Eu8B", 40)})
	block(map[string]any{"type": "text", "text": "I'll read `src/parse.go` and run the tests.\n\n```go\nfmt.Println(\"hi\\n\")\n```"})
	tool := "toolu_" + g.id()[:20]
	block(map[string]any{"type": "tool_use", "id": tool, "name": "Bash", "input": map[string]any{"command": "go test ./... 2>&1 | tail", "description": "Run tests"}})
	g.hookProgress("PreToolUse")
	// The tool result: a big output with escapes, unicode, and text that
	// looks like transcript fields (it must stay untouched).
	var out strings.Builder
	for out.Len() < resultBytes {
		fmt.Fprintf(&out, "=== RUN   TestParse/%d\n--- PASS: \"quoted\" \\ back\\slash\ttab 日本語 🙂 {\"sessionId\":%q,\"uuid\":\"x\"}\n", out.Len(), g.session)
	}
	id := g.id()
	g.obj(g.common("user", id, "message", map[string]any{"role": "user", "content": []any{map[string]any{
		"tool_use_id": tool, "type": "tool_result", "content": out.String(), "is_error": false}}},
		"toolUseResult", map[string]any{"stdout": out.String()[:min(out.Len(), 4096)], "stderr": "", "interrupted": false})...)
	g.parent = id
	g.hookProgress("PostToolUse")
	block(map[string]any{"type": "text", "text": "All tests pass."})
}

// sidechain writes a subagent's lines (Task tool) inline.
func (g *transcriptGen) sidechain() {
	saved := g.parent
	g.parent = ""
	for i := 0; i < 3; i++ {
		id := g.id()
		typ, content := "user", any("Search the code base for the parser")
		if i%2 == 1 {
			typ, content = "assistant", []any{map[string]any{"type": "text", "text": "Found it in src/parse.go"}}
		}
		kv := g.common(typ, id, "message", map[string]any{"role": typ, "content": content}, "agentId", "a1b2c3")
		kv[3] = true // isSidechain
		g.obj(kv...)
		g.parent = id
	}
	g.parent = saved
}

// system writes a system line and a meta user line (a local command).
func (g *transcriptGen) system() {
	id := g.id()
	g.obj(g.common("system", id, "subtype", "local_command", "content", "<command-name>/model</command-name>", "level", "info", "isMeta", false)...)
	g.parent = id
	id = g.id()
	g.obj(g.common("user", id, "message", map[string]any{"role": "user", "content": "<local-command-stdout>Set model to sonnet</local-command-stdout>"}, "isMeta", true)...)
	g.parent = id
}

// summary writes a summary line (no sessionId, no uuid).
func (g *transcriptGen) summary(text string) {
	g.obj("type", "summary", "summary", text, "leafUuid", g.parent)
}

// turn writes one whole turn: prompt, hook progress, replies, extras.
func (g *transcriptGen) turn(prompt string, resultBytes int) {
	g.prompt(prompt)
	g.hookProgress("UserPromptSubmit")
	g.reply(resultBytes)
	g.sidechain()
	g.reply(resultBytes / 3)
	g.system()
	g.hookProgress("Stop")
}

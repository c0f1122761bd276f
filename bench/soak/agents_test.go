package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// proc is the result of one run of the binary.
type proc struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// run runs the binary with args and stdin, in the environment every
// process of the soak shares (the store's home).
func (d *driver) run(stdin string, args ...string) proc {
	c := d.sb.Command(args, "HOME="+d.home)
	c.Dir = d.root
	c.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	t0 := time.Now()
	err := c.Run()
	r := proc{stdout: out.String(), stderr: errb.String(), took: time.Since(t0)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		r.code, r.stderr = -1, err.Error()
	}
	return r
}

// cli runs a command-line verb on the root with --json and decodes its
// output into out.
func (d *driver) cli(out any, args ...string) (proc, error) {
	r := d.run("", append([]string{"--root", d.root, "--json"}, args...)...)
	if r.code != 0 {
		return r, fmt.Errorf("rewind-lsp %s: exit %d: %s", strings.Join(args, " "), r.code, strings.TrimSpace(r.stderr))
	}
	if out != nil {
		if err := json.Unmarshal([]byte(r.stdout), out); err != nil {
			return r, fmt.Errorf("rewind-lsp %s: output %q: %w", strings.Join(args, " "), r.stdout, err)
		}
	}
	return r, nil
}

// claude is one Claude Code session, driven through `rewind-lsp hook
// claude-code` with the events Claude Code sends, and its transcript file
// (one JSON object per line), which the driver writes as the agent would.
type claude struct {
	session    string
	transcript string
	last       string // uuid of the transcript's last entry
	n          int
}

func (cc *claude) appendLine(typ, text string) error {
	cc.n++
	id := fmt.Sprintf("%08x-0000-4000-8000-%012x", cc.n, time.Now().UnixNano()&0xffffffffffff)
	line := map[string]any{"type": typ, "uuid": id, "parentUuid": cc.last, "sessionId": cc.session,
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano)}
	if typ == "user" {
		line["message"] = map[string]any{"role": "user", "content": text}
	} else {
		line["message"] = map[string]any{"role": "assistant", "id": "msg_" + id[:8], "content": []any{map[string]any{"type": "text", "text": text}}}
	}
	b, _ := json.Marshal(line)
	f, err := os.OpenFile(cc.transcript, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		return err
	}
	cc.last = id
	return nil
}

// hook sends one Claude Code event; stdout must be empty except a notice
// at UserPromptSubmit, and the exit status 0.
func (d *driver) hook(cc *claude, event string, extra map[string]any) (proc, error) {
	ev := map[string]any{"hook_event_name": event, "session_id": cc.session, "transcript_path": cc.transcript, "cwd": d.root}
	for k, v := range extra {
		ev[k] = v
	}
	b, _ := json.Marshal(ev)
	r := d.run(string(b), "hook", "claude-code")
	if r.code != 0 {
		return r, fmt.Errorf("hook %s: exit %d: %s", event, r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "gave up") {
		return r, fmt.Errorf("hook %s: %s", event, strings.TrimSpace(r.stderr))
	}
	if r.stdout != "" {
		if event != "UserPromptSubmit" {
			return r, fmt.Errorf("hook %s printed %q (only a prompt's notice may be printed)", event, r.stdout)
		}
		var n struct {
			HookSpecificOutput struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&n); err != nil || n.HookSpecificOutput.HookEventName != "UserPromptSubmit" || n.HookSpecificOutput.AdditionalContext == "" {
			return r, fmt.Errorf("hook %s printed a notice Claude Code would reject: %q", event, r.stdout)
		}
	}
	return r, nil
}

// supportsHook reports whether the binary has `hook AGENT` (another
// engineer adds Codex and Gemini; until then the soak leaves them out).
func (d *driver) supportsHook(agent string) bool {
	r := d.run("{}", "hook", agent)
	return r.code == 0
}

// mcpAgent is an agent's MCP connection: `rewind-lsp mcp` on the root,
// driven by the MCP SDK's client.
type mcpAgent struct {
	cs *sdk.ClientSession
}

func (d *driver) startMCP(ctx context.Context, session string) (*mcpAgent, error) {
	// Claude Code names its session to the MCP servers it starts: their
	// rewinds are the session's own, inside its turn.
	cmd := d.sb.Command([]string{"--root", d.root, "mcp"}, "HOME="+d.home, "CLAUDE_CODE_SESSION_ID="+session)
	cmd.Dir = d.root
	cmd.Stderr = d.logw
	client := sdk.NewClient(&sdk.Implementation{Name: "soak-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("start rewind-lsp mcp: %w", err)
	}
	return &mcpAgent{cs: cs}, nil
}

// call calls a tool; isErr is the tool's own error (a refusal), err a
// failure of the call.
func (m *mcpAgent) call(tool string, args map[string]any) (text string, isErr bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := m.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", false, fmt.Errorf("mcp %s: %w", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError, nil
}

var agentLabel = regexp.MustCompile(`agent-[0-9]+`)

// sameLines reports whether fork holds exactly the first lines of orig
// (before byte n) with sessionId set to id, nothing else changed.
func sameLines(orig []byte, n int64, fork []byte, id string) error {
	want := strings.SplitAfter(string(orig[:n]), "\n")
	got := strings.SplitAfter(string(fork), "\n")
	if len(want) > 0 && want[len(want)-1] == "" {
		want = want[:len(want)-1]
	}
	if len(got) > 0 && got[len(got)-1] == "" {
		got = got[:len(got)-1]
	}
	if len(got) != len(want) {
		return fmt.Errorf("the fork has %d lines, want %d (the original's before the fork point)", len(got), len(want))
	}
	for i := range want {
		var a, b map[string]any
		if json.Unmarshal([]byte(want[i]), &a) != nil || json.Unmarshal([]byte(got[i]), &b) != nil {
			return fmt.Errorf("line %d does not parse", i+1)
		}
		if b["sessionId"] != id {
			return fmt.Errorf("line %d: sessionId %v, want %s", i+1, b["sessionId"], id)
		}
		a["sessionId"] = id
		ab, _ := json.Marshal(a)
		bb, _ := json.Marshal(b)
		if !bytes.Equal(ab, bb) {
			return fmt.Errorf("line %d differs beyond its sessionId", i+1)
		}
	}
	return nil
}

func transcriptPath(home, root, session string) string {
	dir := filepath.Join(home, ".claude", "projects", regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(root, "-"))
	os.MkdirAll(dir, 0o700)
	return filepath.Join(dir, session+".jsonl")
}

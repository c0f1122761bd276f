package qwen

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/agenttest"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// qwenConversation is the texts of a Qwen Code transcript's prompt and
// model entries, in order.
func qwenConversation(data []byte) []string {
	var out []string
	for _, l := range agenttest.JSONLines(data) {
		switch conv.TopString([]byte(l), "type") {
		case "user", "assistant":
			if i := strings.Index(l, `"parts":`); i >= 0 {
				out = append(out, l[i:])
			}
		}
	}
	return out
}

// Qwen Code, three prompts (-p runs resumed): the fork at turn 2's start
// is the transcript's lines before the point its prompt hook recorded, the
// session id replaced; it holds the first exchange and nothing of prompt
// 2. The fork at turn 2's end also holds turn 2's answer, which Qwen Code
// wrote after its Stop hook read the transcript, and nothing of prompt 3.
// A fork before the first prompt, or at a point the transcript no longer
// has, is refused; the original never changes.
func TestForkQwenThreePrompts(t *testing.T) {
	fx := agenttest.LoadThree(t, Name)
	dir := filepath.Join(t.TempDir(), ".qwen", "projects", "-w-project", "chats")
	path, orig := fx.CopyTo(t, fx.Turns[1].Transcript, dir)
	tn := fx.Turns[1]
	fk, err := qwen{}.Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Prompt: tn.Prompt, Point: journal.ForkPoint{ForkBytes: tn.StartBytes, ForkUUID: tn.StartUUID}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(fk.Transcript)
	agenttest.CheckCut(t, orig, got, agenttest.LineIndex(t, orig, tn.StartBytes), fx.Session, fk.Session)
	if c := qwenConversation(got); !agenttest.Mentions(c, fx.Turns[0].Prompt) || !agenttest.Mentions(c, agenttest.ThreeAnswers[0]) || agenttest.Mentions(c, tn.Prompt) {
		t.Errorf("the fork at turn 2's start holds %q", c)
	}
	if fk.Resume != "qwen --resume "+fk.Session || fk.Transcript != filepath.Join(dir, fk.Session+".jsonl") {
		t.Errorf("fork %+v", fk)
	}

	if !strings.Contains(string(orig[tn.EndBytes:fx.Turns[2].StartBytes]), agenttest.ThreeAnswers[1]) {
		t.Logf("in this fixture, turn 2's answer was written before its Stop hook ran")
	}
	fk, err = qwen{}.Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Prompt: tn.Prompt, End: true, Point: journal.ForkPoint{ForkBytes: tn.EndBytes, ForkUUID: tn.EndUUID}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(fk.Transcript)
	c := qwenConversation(got)
	if !agenttest.Mentions(c, tn.Prompt) || !agenttest.Mentions(c, agenttest.ThreeAnswers[1]) || strings.Contains(string(got), fx.Turns[2].Prompt) {
		t.Errorf("the fork at turn 2's end holds %q", c)
	}
	agenttest.CheckCut(t, orig, got, agenttest.LineIndex(t, orig, fx.Turns[2].StartBytes), fx.Session, fk.Session)

	var r *agent.Refusal
	t0 := fx.Turns[0]
	if _, err := (qwen{}).Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Prompt: t0.Prompt, Point: journal.ForkPoint{ForkBytes: t0.StartBytes, ForkUUID: t0.StartUUID}}); err != agent.FirstTurn {
		t.Errorf("a fork before the first prompt: %v", err)
	}
	if _, err := (qwen{}).Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Point: journal.ForkPoint{ForkBytes: tn.StartBytes, ForkUUID: "not-the-last-entry"}}); !errors.As(err, &r) {
		t.Errorf("a fork at a point the transcript no longer has: %v", err)
	}
	if _, err := (qwen{}).Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Point: journal.ForkPoint{ForkBytes: tn.StartBytes + 1, ForkUUID: tn.StartUUID}}); !errors.As(err, &r) {
		t.Errorf("a fork at a point inside a line: %v", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("the original changed")
	}
}

// A fork before a turn reads the transcript only up to the turn's point:
// a session that went on long after it (here 64 MiB more, a sparse tail)
// is not read into memory for it.
func TestForkQwenReadsOnlyToThePoint(t *testing.T) {
	fx := agenttest.LoadThree(t, Name)
	path, _ := fx.CopyTo(t, fx.Turns[2].Transcript, t.TempDir())
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	const more = 64 << 20
	if err := f.Truncate(fi.Size() + more); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tn := fx.Turns[1]
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fk, err := qwen{}.Fork(agent.ForkRequest{Session: fx.Session, Transcript: path, Prompt: tn.Prompt, Point: journal.ForkPoint{ForkBytes: tn.StartBytes, ForkUUID: tn.StartUUID}})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > more/4 {
		t.Errorf("the fork at turn 2's start allocated %d MiB: it read the session past its point", n>>20)
	}
	if got, _ := os.ReadFile(fk.Transcript); bytes.Contains(got, []byte(tn.Prompt)) || !bytes.Contains(got, []byte(agenttest.ThreeAnswers[0])) {
		t.Errorf("the fork at turn 2's start holds %q", qwenConversation(got))
	}
}

// Qwen Code's prompt event without a prompt (it runs before each request
// that carries tool results) opens no turn.
func TestQwenContinuationIsNoTurn(t *testing.T) {
	for _, c := range []struct {
		payload string
		kind    agent.EventKind
	}{
		{`{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt_id":"s########0","prompt":"do it"}`, agent.Prompt},
		{`{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt_id":"s########0","prompt":""}`, agent.Ignored},
		{`{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt_id":"s########0"}`, agent.Ignored},
		{`{"hook_event_name":"PostToolUseFailure","session_id":"s","tool_name":"run_shell_command","tool_input":{"command":"false"}}`, agent.PostTool},
	} {
		ev, err := qwen{}.Parse([]byte(c.payload), "")
		if err != nil || ev.Kind != c.kind {
			t.Errorf("%s: kind %v, %v; want %v", c.payload, ev.Kind, err, c.kind)
		}
	}
}

// What each of Qwen Code's tools may write.
func TestQwenWrites(t *testing.T) {
	for _, c := range []struct {
		tool, input, want string
	}{
		{"write_file", `{"file_path":"/w/a.txt","content":"x"}`, "/w/a.txt"},
		{"edit", `{"file_path":"b.txt","old_string":"x","new_string":"y"}`, "/w/project/b.txt"},
		{"notebook_edit", `{"notebook_path":"/w/n.ipynb"}`, "/w/n.ipynb"},
		{"run_shell_command", `{"command":"echo > c"}`, "capture"},
		{"monitor", `{"command":"tail -f log"}`, "capture"},
		{"exec", `{"code":"x"}`, "capture"},
		{"mcp__writer__write", `{"path":"m"}`, "capture"},
		{"read_file", `{"file_path":"/w/a.txt"}`, "none"},
		{"grep_search", `{"pattern":"x"}`, "none"},
	} {
		ev := &agent.Event{Kind: agent.PostTool, Cwd: "/w/project", ToolName: c.tool, ToolInput: []byte(c.input)}
		paths, capture, relevant := qwen{}.Writes(ev)
		got := strings.Join(paths, ",")
		switch {
		case !relevant:
			got = "none"
		case capture:
			got = "capture"
		}
		if got != c.want {
			t.Errorf("%s %s: %s, want %s", c.tool, c.input, got, c.want)
		}
	}
}

// qwenRewindFixture is what the real Qwen Code wrote in a session
// rewound by its own /rewind (agent/testdata/qwen-rewind, from
// TestQwenTUIRewind in testkit/agents): prompt one, prompt two, a rewind
// to before prompt two with its code restored, prompt three. It returns a
// copy of the transcript and each prompt as its hook recorded it (the
// transcript stood just before the prompt's user entry).
func qwenRewindFixture(t *testing.T) (string, []*journal.Entry) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "qwen-rewind", "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	os.WriteFile(path, data, 0o600)
	ids := map[string]string{}
	for _, fx := range agenttest.Fixtures(t, "qwen-rewind") {
		ev, err := qwen{}.Parse(fx.Payload, "")
		if err == nil && ev.Kind == agent.Prompt {
			ids[ev.Prompt] = ev.PromptID
		}
	}
	var refs []*journal.Entry
	for _, prompt := range []string{"prompt one", "prompt two", "prompt three"} {
		at := bytes.Index(data, []byte(`"parts":[{"text":"`+prompt+`"}`))
		if at < 0 {
			t.Fatalf("no user entry of %q", prompt)
		}
		// The point as the prompt's hook read it: the lines before its entry.
		off := int64(bytes.LastIndexByte(data[:at], '\n') + 1)
		then := filepath.Join(t.TempDir(), "then.jsonl")
		os.WriteFile(then, data[:off], 0o600)
		_, p, err := qwen{}.Position(&agent.Event{Kind: agent.Prompt, Transcript: then})
		if err != nil || p.ForkBytes != off {
			t.Fatalf("point %+v %v", p, err)
		}
		refs = append(refs, &journal.Entry{Transcript: path, ForkPoint: journal.ForkPoint{ForkBytes: off, ForkUUID: p.ForkUUID}, PromptID: ids[prompt]})
	}
	return path, refs
}

// TestFindQwenRewind: between prompt two's and prompt three's fork points
// lies the entry of Qwen Code's rewind, hanging where prompt two's entry
// hangs; it dropped prompt two (index 1), where Qwen Code's file history
// tracks a.txt (the file its edit tool wrote). Between prompt one's and
// prompt two's there is none; an entry no prompt hangs on drops nothing.
func TestFindQwenRewind(t *testing.T) {
	path, refs := qwenRewindFixture(t)
	if _, found, err := FindQwenRewind(path, refs[0].ForkBytes, refs[1].ForkBytes); found || err != nil {
		t.Errorf("a rewind between prompts one and two: %v %v", found, err)
	}
	parent, found, err := FindQwenRewind(path, refs[1].ForkBytes, refs[2].ForkBytes)
	if err != nil || !found || parent != refs[1].ForkUUID {
		t.Fatalf("the rewind before prompt three: parent %q, %v, %v; want prompt two's parent %q", parent, found, err, refs[1].ForkUUID)
	}
	rw, err := FindQwenOwnRewind(parent, refs[:2])
	if err != nil || rw == nil || rw.Dropped != refs[1] || strings.Join(rw.Tracked, ",") != "/w/project/a.txt" {
		t.Fatalf("FindQwenOwnRewind = %+v, %v; want prompt two dropped, a.txt tracked", rw, err)
	}
	if rw, err := FindQwenOwnRewind("no-such-entry", refs[:2]); rw != nil || err != nil {
		t.Errorf("a rewind to an entry no prompt hangs on: %+v %v", rw, err)
	}
	// A rewind to the first prompt: its entry hangs on nothing.
	if rw, err := FindQwenOwnRewind("", refs[:2]); err != nil || rw == nil || rw.Dropped != refs[0] {
		t.Errorf("a rewind to before the first prompt: %+v %v", rw, err)
	}
}

package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// seedHooks adds every hook payload the real agents sent (testdata) to f,
// with the agent's index and the event its hook command names.
func seedHooks(f *testing.F) {
	for i, a := range agents {
		file, err := os.Open(filepath.Join("testdata", a.Name(), "hooks.jsonl"))
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var rec struct {
				Event   string          `json:"event"`
				Payload json.RawMessage `json:"payload"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) == nil {
				event := ""
				if a.Name() == Copilot {
					event = rec.Event // its payloads name no event
				}
				f.Add(uint8(i), event, []byte(rec.Payload))
			}
		}
		file.Close()
	}
	f.Add(uint8(0), "", []byte(`{"hook_event_name":"PostToolUse","tool_name":"Write","tool_input":"not an object","cwd":"rel"}`))
	f.Add(uint8(1), "", []byte(`{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":["apply_patch","*** Begin Patch\n*** Add File: ../../etc/x\n*** Move to: \n*** End Patch"]}}`))
	f.Add(uint8(3), "postToolUse", []byte(`{"toolName":"edit","toolArgs":"{\"path\":\"a\"}","cwd":"/w"}`))
	f.Add(uint8(2), "", []byte(`null`))
}

// FuzzHookPayload feeds each agent's hook payload reader whatever arrives
// on a hook's stdin. It never panics; an event it accepts has a name; what
// a tool call writes is a list of clean absolute paths (nothing when the
// tool writes nothing); reading the session's position reads only the
// session file (here a scratch one); and a notice is JSON the agent reads,
// holding the text as it was.
func FuzzHookPayload(f *testing.F) {
	seedHooks(f)
	f.Fuzz(func(t *testing.T, which uint8, event string, payload []byte) {
		a := agents[int(which)%len(agents)]
		ev, err := a.Parse(payload, event)
		if err != nil {
			return
		}
		if ev.Name == "" {
			t.Fatalf("%s: an accepted event without a name: %q", a.Name(), payload)
		}
		paths, capture, relevant := a.Writes(ev)
		if !relevant && (len(paths) > 0 || capture) {
			t.Fatalf("%s: a tool that writes nothing wrote %v (capture %v)", a.Name(), paths, capture)
		}
		for _, p := range paths {
			if ev.Cwd != "" && filepath.IsAbs(ev.Cwd) && (!filepath.IsAbs(p) || filepath.Clean(p) != p) {
				t.Fatalf("%s: a written path %q is not clean and absolute (cwd %q)", a.Name(), p, ev.Cwd)
			}
		}
		if ev.Transcript != "" {
			scratch := filepath.Join(t.TempDir(), "session.jsonl")
			os.WriteFile(scratch, payload, 0o600)
			ev.Transcript = scratch
			if _, _, err := a.Position(ev); err != nil && !errors.Is(err, os.ErrNotExist) {
				var r *Refusal
				if !errors.As(err, &r) && !strings.Contains(err.Error(), scratch) && !strings.Contains(err.Error(), "transcript") {
					t.Fatalf("%s: position: %v", a.Name(), err)
				}
			}
			if pr, ok := a.(Prompter); ok {
				p, err := pr.CurrentPrompt(ev)
				if err != nil && !strings.Contains(err.Error(), scratch) && !strings.Contains(err.Error(), "transcript") {
					t.Fatalf("%s: current prompt: %v", a.Name(), err)
				}
				if p != nil && (p.ID == "" || p.Transcript != scratch && p.Transcript != "") {
					t.Fatalf("%s: current prompt %+v of %s", a.Name(), p, scratch)
				}
			}
		}
		text := string(payload)
		out := a.Notice(text)
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%s: the notice is not JSON: %q", a.Name(), out)
		}
		if utf8.ValidString(text) && !holdsString(v, text) {
			t.Fatalf("%s: the notice %s does not hold the text %q", a.Name(), out, text)
		}
	})
}

func holdsString(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return x == s
	case map[string]any:
		for _, y := range x {
			if holdsString(y, s) {
				return true
			}
		}
	case []any:
		for _, y := range x {
			if holdsString(y, s) {
				return true
			}
		}
	}
	return false
}

// transcriptFrom builds a Claude Code transcript from the fuzzer's bytes:
// each byte picks an entry — a prompt (the hook records the fork point
// before it, or, as some versions do, after its line is written), tool
// results and replies (some of megabytes), hook progress, system, meta and
// sidechain entries, snapshots, summaries, lines without a uuid, lines
// that are no JSON — and may end the file inside a line. It returns the
// file's bytes, the positions the hook would have recorded at each prompt
// with its text, and the session id.
func transcriptFrom(spec []byte) (data []byte, points []journal.ForkPoint, prompts []string, session string) {
	session = "11111111-2222-4333-8444-555555555555"
	var b bytes.Buffer
	n, parent := 0, ""
	add := func(typ string, m map[string]any) {
		n++
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n)
		m["type"], m["uuid"], m["sessionId"] = typ, id, session
		if parent != "" {
			m["parentUuid"] = parent
		}
		line, _ := json.Marshal(m)
		b.Write(append(line, '\n'))
		parent = id
	}
	point := func() journal.ForkPoint {
		p := journal.ForkPoint{ForkBytes: int64(b.Len())}
		lines := bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n"))
		for i := len(lines) - 1; i >= 0; i-- {
			if info, ok := readLine(lines[i]); ok && info.uuid != "" {
				p.ForkUUID = info.uuid
				break
			}
		}
		return p
	}
	huge := 0
	for i, c := range spec {
		switch c % 16 {
		case 0, 1: // a prompt, the point recorded before its line
			text := fmt.Sprintf("prompt %d", i)
			points, prompts = append(points, point()), append(prompts, text)
			add("user", map[string]any{"message": map[string]any{"role": "user", "content": text}})
		case 2: // a prompt whose line is written before the hook runs
			text := fmt.Sprintf("early prompt %d", i)
			add("user", map[string]any{"message": map[string]any{"role": "user", "content": text}})
			points, prompts = append(points, point()), append(prompts, text)
		case 3:
			add("assistant", map[string]any{"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "reply"}}}})
		case 4:
			add("user", map[string]any{"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "content": "ok"}}}})
		case 5: // a tool result of megabytes
			size := 64 << 10
			if huge < 2 {
				huge++
				size = (1 + int(c/16)%3) << 20
			}
			add("user", map[string]any{"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "content": strings.Repeat("x", size)}}}})
		case 6:
			add("progress", map[string]any{"data": map[string]any{"type": "hook_progress"}})
		case 7:
			add("system", map[string]any{"content": "compacted"})
		case 8:
			add("user", map[string]any{"isMeta": true, "message": map[string]any{"role": "user", "content": "meta"}})
		case 9:
			add("assistant", map[string]any{"isSidechain": true, "message": map[string]any{"role": "assistant", "content": "side"}})
		case 10:
			b.WriteString(`{"type":"file-history-snapshot","messageId":"m","snapshot":{}}` + "\n")
		case 11:
			b.WriteString(`{"type":"summary","summary":"s","leafUuid":"` + parent + `"}` + "\n")
		case 12:
			b.WriteString(`{"type":"queue-operation","operation":"enqueue","sessionId":"` + session + `"}` + "\n")
		case 13:
			b.WriteString("not json at all {\n")
		case 14:
			add("user", map[string]any{"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("prompt %d", i-1)}}}})
		case 15: // the file ends inside a line (a write cut short)
			if i == len(spec)-1 {
				b.WriteString(`{"type":"assistant","uuid":"cut`)
			}
		}
	}
	return b.Bytes(), points, prompts, session
}

// FuzzClaudeFork forks transcripts built by transcriptFrom at each point
// a hook recorded, after the file grew or was cut. A fork is a Refusal
// with nothing written beside the original, or a new transcript beside it
// holding the original's lines before the point — less the turn's own
// prompt when the file already held it — with only sessionId changed; the
// original is never modified.
func FuzzClaudeFork(f *testing.F) {
	f.Add([]byte{0, 3, 4, 0, 3, 6, 0}, uint8(1), uint16(0))
	f.Add([]byte{2, 3, 5, 2, 3}, uint8(1), uint16(0))
	f.Add([]byte{0, 3, 8, 9, 10, 11, 12, 13, 0, 3, 15}, uint8(1), uint16(7))
	f.Add([]byte{0, 14, 3, 0, 5, 5, 3}, uint8(1), uint16(0))
	f.Add([]byte{0}, uint8(0), uint16(0))
	f.Fuzz(func(t *testing.T, spec []byte, which uint8, cut uint16) {
		if len(spec) > 64 {
			spec = spec[:64]
		}
		data, points, prompts, session := transcriptFrom(spec)
		if len(points) == 0 {
			return
		}
		k := int(which) % len(points)
		if cut > 0 && int(cut) < len(data) {
			data = data[:len(data)-int(cut)] // the file was cut after the point was recorded
		}
		dir := t.TempDir()
		path := filepath.Join(dir, session+".jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		fk, err := ForkClaude(path, points[k], prompts[k])
		if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
			t.Fatal("the original transcript was modified")
		}
		ents, _ := os.ReadDir(dir)
		if err != nil {
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("fork: %v (not a refusal)", err)
			}
			if len(ents) != 1 {
				t.Fatalf("a refused fork left %d files beside the original", len(ents)-1)
			}
			return
		}
		if len(ents) != 2 || filepath.Dir(fk.Transcript) != dir || filepath.Base(fk.Transcript) != fk.Session+".jsonl" {
			t.Fatalf("the fork %s: %d files in the folder", fk.Transcript, len(ents))
		}
		fork, _ := os.ReadFile(fk.Transcript)
		orig := bytes.SplitAfter(data[:points[k].ForkBytes], []byte("\n"))
		got := bytes.SplitAfter(fork, []byte("\n"))
		orig, got = orig[:len(orig)-1], got[:len(got)-1] // after the last newline: nothing
		if len(got) > len(orig) {
			t.Fatalf("the fork has %d lines, the original %d before the point", len(got), len(orig))
		}
		for i := range got {
			want := bytes.ReplaceAll(orig[i], []byte(`"sessionId":"`+session+`"`), []byte(`"sessionId":"`+fk.Session+`"`))
			if !bytes.Equal(got[i], want) {
				t.Fatalf("fork line %d differs beyond its sessionId:\n%q\n%q", i+1, got[i], orig[i])
			}
		}
		if len(got) < len(orig) {
			// Left out: the turn's own prompt (and what came after it).
			if !bytes.Contains(bytes.Join(orig[len(got):], nil), []byte(prompts[k])) {
				t.Fatalf("the fork left out %d lines that hold no prompt %q", len(orig)-len(got), prompts[k])
			}
		}
	})
}

// geminiFrom builds a Gemini CLI session file from the fuzzer's bytes: a
// header, user and model records (some of megabytes), info records,
// `$set` lines, records replaced by a repeated id, lines that are no JSON,
// perhaps a cut last line; and the positions a hook would have recorded
// at each prompt.
func geminiFrom(spec []byte) (data []byte, points []journal.ForkPoint, prompts []string, session string) {
	session = "a6d2f7a0-b250-4c32-aa62-b08ecc521c81"
	var b bytes.Buffer
	b.WriteString(`{"sessionId":"` + session + `","projectHash":"h","startTime":"2026-11-24T20:37:57.014Z","kind":"main"}` + "\n")
	last, n, huge := "", 0, 0
	rec := func(typ, text string) {
		n++
		last = fmt.Sprintf("rec-%d", n)
		line, _ := json.Marshal(map[string]any{"id": last, "timestamp": "2026-11-24T20:37:57Z", "type": typ, "content": []any{map[string]any{"text": text}}})
		b.Write(append(line, '\n'))
	}
	for i, c := range spec {
		switch c % 8 {
		case 0, 1:
			text := fmt.Sprintf("prompt %d", i)
			points, prompts = append(points, journal.ForkPoint{ForkBytes: int64(b.Len()), ForkUUID: last}), append(prompts, text)
			rec("user", text)
		case 2:
			text := fmt.Sprintf("early prompt %d", i)
			rec("user", text)
			points, prompts = append(points, journal.ForkPoint{ForkBytes: int64(b.Len()), ForkUUID: last}), append(prompts, text)
		case 3:
			size := 10
			if c/8%4 == 0 && huge < 2 {
				huge++
				size = 1 << 20
			}
			rec("gemini", strings.Repeat("y", size))
		case 4:
			rec("info", "info")
		case 5:
			b.WriteString(`{"$set":{"lastUpdated":"2026-11-24T20:38:00Z"}}` + "\n")
		case 6:
			b.WriteString("{garbage\n")
		case 7:
			if i == len(spec)-1 {
				b.WriteString(`{"id":"cut`)
			} else if last != "" {
				line, _ := json.Marshal(map[string]any{"id": last, "type": "gemini", "content": []any{map[string]any{"text": "replaced"}}})
				b.Write(append(line, '\n'))
			}
		}
	}
	return b.Bytes(), points, prompts, session
}

// FuzzGeminiFork is FuzzClaudeFork for Gemini CLI's session files: a
// refusal writes nothing; a fork is a new session file beside the original
// holding its lines before the point (less the turn's own prompt record),
// with only the session id changed.
func FuzzGeminiFork(f *testing.F) {
	f.Add([]byte{0, 3, 0, 3, 0}, uint8(1), uint16(0))
	f.Add([]byte{2, 3, 5, 2, 3, 7}, uint8(1), uint16(0))
	f.Add([]byte{0, 3, 4, 6, 0, 3, 7}, uint8(1), uint16(3))
	f.Fuzz(func(t *testing.T, spec []byte, which uint8, cut uint16) {
		if len(spec) > 64 {
			spec = spec[:64]
		}
		data, points, prompts, session := geminiFrom(spec)
		if len(points) == 0 {
			return
		}
		k := int(which) % len(points)
		if cut > 0 && int(cut) < len(data) {
			data = data[:len(data)-int(cut)]
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "session-2026-11-24T20-37-a6d2f7a0.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		fk, err := gemini{}.Fork(ForkRequest{Session: session, Transcript: path, Point: points[k], Prompt: prompts[k], Dir: dir})
		if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
			t.Fatal("the original session file was modified")
		}
		ents, _ := os.ReadDir(dir)
		if err != nil {
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("fork: %v (not a refusal)", err)
			}
			if len(ents) != 1 {
				t.Fatalf("a refused fork left %d files beside the original", len(ents)-1)
			}
			return
		}
		if len(ents) != 2 || filepath.Dir(fk.Transcript) != dir || !strings.HasPrefix(filepath.Base(fk.Transcript), "session-") {
			t.Fatalf("the fork %s: %d files in the folder", fk.Transcript, len(ents))
		}
		fork, _ := os.ReadFile(fk.Transcript)
		want := bytes.ReplaceAll(data[:points[k].ForkBytes], []byte(`"sessionId":"`+session+`"`), []byte(`"sessionId":"`+fk.Session+`"`))
		if !bytes.HasPrefix(want, fork) || len(fork) > 0 && fork[len(fork)-1] != '\n' {
			t.Fatalf("the fork is not the original's lines before the point with a new session id:\n%q", fork)
		}
		if len(fork) < len(want) && !bytes.Contains(want[len(fork):], []byte(prompts[k])) {
			t.Fatalf("the fork left out lines that hold no prompt %q: %q", prompts[k], want[len(fork):])
		}
	})
}

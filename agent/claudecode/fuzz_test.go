package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

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
			if info, ok := conv.ReadLine(lines[i]); ok && info.UUID != "" {
				p.ForkUUID = info.UUID
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
			var r *agent.Refusal
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

package gemini

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
	"github.com/rewind-lsp/rewind-lsp/journal"
)

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
		fk, err := gemini{}.Fork(agent.ForkRequest{Session: session, Transcript: path, Point: points[k], Prompt: prompts[k], Dir: dir})
		if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
			t.Fatal("the original session file was modified")
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

package claudecode

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/agenttest"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

const sess = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"

// buildTranscript writes a transcript of turns, each with the given tool
// result size, and returns the fork point read before each prompt (as the
// UserPromptSubmit hook does), with the file's path.
func buildTranscript(t *testing.T, resultBytes ...int) (string, []journal.ForkPoint, *transcriptGen) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "-home-dev-project")
	os.MkdirAll(dir, 0o700)
	path := filepath.Join(dir, sess+".jsonl")
	g := newGen(t, path, sess)
	var points []journal.ForkPoint
	for i, n := range resultBytes {
		p, err := ReadForkPoint(path)
		if err != nil {
			t.Fatal(err)
		}
		points = append(points, p)
		g.turn("prompt number "+string(rune('1'+i)), n)
		if i == 1 {
			g.summary("Parser speed-up")
		}
	}
	return path, points, g
}

func sum(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

// checkFork asserts the forked transcript is the original's lines before
// n bytes, each with sessionId (and only it) set to the new id.
func checkFork(t *testing.T, orig string, n int64, fk *agent.Forked) {
	t.Helper()
	od, _ := os.ReadFile(orig)
	fd, err := os.ReadFile(fk.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	want := agenttest.Lines(t, od[:n])
	got := agenttest.Lines(t, fd)
	if len(got) != len(want) {
		t.Fatalf("fork has %d lines, want %d", len(got), len(want))
	}
	oldID, newID := []byte(`"sessionId":"`+sess+`"`), []byte(`"sessionId":"`+fk.Session+`"`)
	for i := range want {
		// Nothing but the top-level sessionId differs: putting the old id
		// back gives the original bytes.
		back := bytes.Replace(got[i], newID, oldID, -1)
		if !bytes.Equal(back, want[i]) {
			t.Fatalf("line %d differs beyond sessionId:\n got %.300s\nwant %.300s", i+1, got[i], want[i])
		}
		// Lines with a sessionId (all but summaries and file-history
		// snapshots) carry the new one once.
		if c, w := bytes.Count(got[i], newID), bytes.Count(want[i], oldID); c != w || c > 1 {
			t.Fatalf("line %d carries the new id %d times, the original the old one %d times", i+1, c, w)
		}
	}
	if filepath.Dir(fk.Transcript) != filepath.Dir(orig) || filepath.Base(fk.Transcript) != fk.Session+".jsonl" {
		t.Fatalf("fork written to %s, want beside %s as <new id>.jsonl", fk.Transcript, orig)
	}
	if fk.Resume != "claude --resume "+fk.Session {
		t.Fatalf("resume %q", fk.Resume)
	}
	fi, _ := os.Stat(fk.Transcript)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("fork mode %v, want the original's 0600", fi.Mode())
	}
}

// TestForkMultiMegabyte: a transcript of several MB with lines of up to
// 3 MB and every entry type forks at each turn's fork point exactly.
func TestForkMultiMegabyte(t *testing.T) {
	path, points, _ := buildTranscript(t, 200<<10, 3<<20, 1<<20, 2<<20)
	fi, _ := os.Stat(path)
	if fi.Size() < 8<<20 {
		t.Fatalf("transcript only %d bytes", fi.Size())
	}
	before := sum(t, path)
	for turn := 2; turn <= 4; turn++ {
		p := points[turn-1]
		if p.ForkBytes == 0 || p.ForkUUID == "" {
			t.Fatalf("turn %d fork point %+v", turn, p)
		}
		fk, err := ForkClaude(path, p, "prompt number "+string(rune('0'+turn)))
		if err != nil {
			t.Fatalf("fork at turn %d: %v", turn, err)
		}
		checkFork(t, path, p.ForkBytes, fk)
	}
	if sum(t, path) != before {
		t.Fatal("the original transcript changed")
	}
}

// TestForkPromptAlreadyWritten: when the prompt's own user line (and the
// hook's progress after it) is already in the transcript at the fork
// point, the fork still ends before the prompt.
func TestForkPromptAlreadyWritten(t *testing.T) {
	path, _, g := buildTranscript(t, 10<<10, 10<<10)
	before, err := ReadForkPoint(path)
	if err != nil {
		t.Fatal(err)
	}
	g.prompt("fix the parser")
	g.hookProgress("UserPromptSubmit")
	p, err := ReadForkPoint(path) // the hook runs now
	if err != nil {
		t.Fatal(err)
	}
	g.reply(5 << 10)
	fk, err := ForkClaude(path, p, "fix the parser")
	if err != nil {
		t.Fatal(err)
	}
	// The prompt line comes after the queue operations and snapshot the
	// prompt wrote first: those stay, the prompt and what follows go.
	od, _ := os.ReadFile(path)
	at := int(before.ForkBytes) + bytes.Index(od[before.ForkBytes:], []byte(`{"content":"fix the parser","role":"user"}`))
	promptAt := int64(bytes.LastIndexByte(od[:at], '\n') + 1)
	if promptAt <= before.ForkBytes {
		t.Fatalf("prompt line not found after the previous fork point")
	}
	checkFork(t, path, promptAt, fk)
	// A different prompt: the tail is not this turn's, nothing is left out.
	fk2, err := ForkClaude(path, p, "something else")
	if err != nil {
		t.Fatal(err)
	}
	checkFork(t, path, p.ForkBytes, fk2)
}

// TestForkRefusals: a missing, shortened or rewritten transcript is
// refused with a reason and nothing is written.
func TestForkRefusals(t *testing.T) {
	path, points, _ := buildTranscript(t, 10<<10, 10<<10, 10<<10)
	dir := filepath.Dir(path)
	count := func() int { es, _ := os.ReadDir(dir); return len(es) }
	n := count()
	refused := func(what string, err error, want string) {
		t.Helper()
		var r *agent.Refusal
		if !errors.As(err, &r) || !strings.Contains(r.Reason, want) {
			t.Fatalf("%s: %v, want a refusal saying %q", what, err, want)
		}
		if count() != n {
			t.Fatalf("%s: a file was written", what)
		}
	}
	_, err := ForkClaude(filepath.Join(dir, "gone.jsonl"), points[1], "")
	refused("missing", err, "missing")

	// Compacted in place: same size or more, other entries.
	data, _ := os.ReadFile(path)
	short := filepath.Join(t.TempDir(), "short.jsonl")
	os.WriteFile(short, data[:points[1].ForkBytes-10], 0o600)
	_, err = ForkClaude(short, points[1], "")
	refused("shorter", err, "shorter")

	other := filepath.Join(t.TempDir(), "other.jsonl")
	os.WriteFile(other, bytes.Replace(data, []byte(points[2].ForkUUID), []byte("00000000-0000-4000-8000-000000000000"), -1), 0o600)
	_, err = ForkClaude(other, points[2], "")
	refused("rewritten", err, "changed under the fork point")

	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	os.WriteFile(cut, append([]byte("x"), data...), 0o600) // every line shifted
	_, err = ForkClaude(cut, points[2], "")
	refused("shifted", err, "changed under the fork point")

	// The session's first prompt: nothing to resume.
	_, err = ForkClaude(path, points[0], "prompt number 1")
	refused("first prompt", err, "no conversation before")
}

// TestReadForkPointTornLine: a line still being written is not part of
// the fork point; a transcript that does not exist yet is at zero.
func TestReadForkPointTornLine(t *testing.T) {
	path, _, g := buildTranscript(t, 1<<10)
	p1, _ := ReadForkPoint(path)
	g.f.WriteString(`{"parentUuid":"x","type":"assistant","uuid":"torn-uu`)
	p2, err := ReadForkPoint(path)
	if err != nil || p2 != p1 {
		t.Fatalf("fork point with a torn line %+v, want %+v (%v)", p2, p1, err)
	}
	if p, err := ReadForkPoint(filepath.Join(t.TempDir(), "none.jsonl")); err != nil || p != (journal.ForkPoint{}) {
		t.Fatalf("missing transcript: %+v %v", p, err)
	}
}

// BenchmarkFork forks a 9 MB transcript.
func BenchmarkFork(b *testing.B) {
	t := &testing.T{}
	path, points, _ := buildTranscript(t, 200<<10, 3<<20, 1<<20, 2<<20, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fk, err := ForkClaude(path, points[4], "")
		if err != nil {
			b.Fatal(err)
		}
		os.Remove(fk.Transcript)
	}
}

package gemini

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
)

// A Gemini CLI session file (as the real CLI wrote it) forked at its end:
// a new file beside it named as Gemini names a session started now, the
// same lines with every sessionId the new one; the original untouched.
// Before the first prompt there is nothing to fork.
func TestForkGemini(t *testing.T) {
	src, err := filepath.Glob(filepath.Join("..", "testdata", "gemini", "session-*.jsonl"))
	if err != nil || len(src) != 1 {
		t.Fatalf("fixture: %v %v", src, err)
	}
	orig, _ := os.ReadFile(src[0])
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.Base(src[0]))
	os.WriteFile(path, orig, 0o600)
	p, err := conv.ReadPoint(path, geminiID)
	if err != nil || p.ForkBytes != int64(len(orig)) || p.ForkUUID == "" {
		t.Fatalf("point %+v %v", p, err)
	}
	old := conv.TopString(orig[:bytes.IndexByte(orig, '\n')], "sessionId")
	fk, err := gemini{}.Fork(agent.ForkRequest{Session: old, Transcript: path, Point: p, End: true, Prompt: "Write a.txt, then b.txt from the shell."})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(fk.Transcript)
	if want := bytes.ReplaceAll(orig, []byte(old), []byte(fk.Session)); !bytes.Equal(got, want) {
		t.Errorf("forked file differs from the original with the id replaced:\n%s", got)
	}
	if b := filepath.Base(fk.Transcript); !strings.HasPrefix(b, "session-20") || !strings.HasSuffix(b, "-"+fk.Session[:8]+".jsonl") || filepath.Dir(fk.Transcript) != dir {
		t.Errorf("forked file %s", fk.Transcript)
	}
	if fk.Resume != "gemini --resume "+fk.Session {
		t.Errorf("resume %q", fk.Resume)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("the original changed")
	}

	// At the first prompt (BeforeAgent): the header and the session context.
	first := int64(bytes.Index(orig, []byte(`"Write a.txt`)))
	first = int64(bytes.LastIndexByte(orig[:first], '\n') + 1)
	p0, _ := conv.ReadPoint(path, geminiID)
	p0.ForkBytes, p0.ForkUUID = first, geminiLastID(orig[:first])
	_, err = gemini{}.Fork(agent.ForkRequest{Session: old, Transcript: path, Point: p0, Prompt: "Write a.txt, then b.txt from the shell."})
	var r *agent.Refusal
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "first") {
		t.Errorf("fork before the first prompt: %v", err)
	}
	// A file that changed under the point is refused.
	p.ForkUUID = "not-the-last-record"
	if _, err := (gemini{}).Fork(agent.ForkRequest{Transcript: path, Point: p, End: true}); !errors.As(err, &r) {
		t.Errorf("fork of a changed file: %v", err)
	}
}

// A Gemini CLI session whose file is gone: when no other file of the
// chats folder holds the session (Gemini CLI deleted them all), the fork
// is refused with that reason; when another file of the session is still
// there, the refusal only says the recorded file is missing. Nothing is
// written either way.
func TestForkGeminiSessionGone(t *testing.T) {
	src, _ := filepath.Glob(filepath.Join("..", "testdata", "gemini", "session-*.jsonl"))
	if len(src) != 1 {
		t.Fatalf("fixture: %v", src)
	}
	orig, _ := os.ReadFile(src[0])
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.Base(src[0]))
	os.WriteFile(path, orig, 0o600)
	p, err := conv.ReadPoint(path, geminiID)
	if err != nil || p.ForkBytes == 0 {
		t.Fatalf("point %+v %v", p, err)
	}
	header := orig[:bytes.IndexByte(orig, '\n')+1]
	id := conv.TopString(header[:len(header)-1], "sessionId")
	// Another session's file stays: it is no file of this one.
	other := strings.Replace(string(header), id, "0123abcd-0000-4000-8000-000000000000", 1)
	os.WriteFile(filepath.Join(dir, "session-2026-11-24T20-38-0123abcd.jsonl"), []byte(other), 0o600)
	os.Remove(path)
	req := agent.ForkRequest{Session: id, Transcript: path, Point: p, End: true, Prompt: "Write a.txt, then b.txt from the shell."}
	var r *agent.Refusal
	if _, err := (gemini{}).Fork(req); !errors.As(err, &r) || !strings.Contains(r.Reason, "no longer has session "+id) {
		t.Fatalf("fork of a session Gemini CLI deleted: %v", err)
	}
	// A file of the session named after a later minute (the header-only
	// file a resume in a later minute leaves).
	os.WriteFile(filepath.Join(dir, "session-2026-11-24T20-39-"+id[:8]+".jsonl"), header, 0o600)
	if _, err := (gemini{}).Fork(req); !errors.As(err, &r) || strings.Contains(r.Reason, "no longer has") || !strings.Contains(r.Reason, "is missing") {
		t.Fatalf("fork whose recorded file is gone but not the session: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("a refused fork left %d files in the folder, want the 2 there before", len(ents))
	}
}

func geminiLastID(data []byte) string {
	id := ""
	for _, l := range bytes.Split(data, []byte("\n")) {
		if s := geminiID(l); s != "" {
			id = s
		}
	}
	return id
}

package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/journal"
)

// rewindFixture is what the real Claude Code wrote in a session with its
// own rewind (agent/testdata/claude-rewind): prompt one, prompt two, then
// a rewind to before prompt two with its files restored and prompt three.
// It returns a copy of the transcript and each prompt as its hook recorded
// it.
func rewindFixture(t *testing.T) (string, []*journal.Entry) {
	t.Helper()
	files, refs := loadRewindFixture(t, "claude-rewind")
	return files["transcript.jsonl"], refs
}

// loadRewindFixture copies the transcripts of agent/testdata/<name> to a
// folder of the test and returns their paths by name, and each prompt as
// its hook recorded it, in its transcript.
func loadRewindFixture(t *testing.T, name string) (map[string]string, []*journal.Entry) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", name, "prompts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var prompts []struct {
		Prompt     string
		Transcript string
		ForkLines  int
		ForkUUID   string
		PromptID   string
	}
	if err := json.Unmarshal(raw, &prompts); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, data := map[string]string{}, map[string][]byte{}
	var refs []*journal.Entry
	for _, p := range prompts {
		if p.Transcript == "" {
			p.Transcript = "transcript.jsonl"
		}
		if _, ok := files[p.Transcript]; !ok {
			d, err := os.ReadFile(filepath.Join("..", "testdata", name, p.Transcript))
			if err != nil {
				t.Fatal(err)
			}
			files[p.Transcript], data[p.Transcript] = filepath.Join(dir, p.Transcript), d
			if err := os.WriteFile(files[p.Transcript], d, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		off, d := 0, data[p.Transcript]
		for i := 0; i < p.ForkLines; i++ {
			off += strings.IndexByte(string(d[off:]), '\n') + 1
		}
		refs = append(refs, &journal.Entry{Transcript: files[p.Transcript], ForkPoint: journal.ForkPoint{ForkBytes: int64(off), ForkUUID: p.ForkUUID}, PromptID: p.PromptID})
	}
	if len(refs) != 3 {
		t.Fatalf("the fixture has %d prompts, want 3", len(refs))
	}
	return files, refs
}

// TestFindOwnRewind: prompt three's entry is a sibling of prompt two's —
// in the same transcript after Claude Code's rewind in place, in the fork's
// after a fork from before prompt two (claude-fork): the rewind dropped
// prompt two (index 1), and Claude Code tracks a.txt there (the file its
// Edit wrote). Prompts that continue from the end are no rewind.
func TestFindOwnRewind(t *testing.T) {
	for _, name := range []string{"claude-rewind", "claude-fork"} {
		t.Run(name, func(t *testing.T) {
			_, refs := loadRewindFixture(t, name)
			r, err := FindOwnRewind(refs[2], refs[:2])
			if err != nil {
				t.Fatal(err)
			}
			if r == nil || r.Dropped != refs[1] {
				t.Fatalf("FindOwnRewind(prompt three) = %+v, want prompt two dropped", r)
			}
			if want := []string{"/w/project/a.txt"}; !reflect.DeepEqual(r.Tracked, want) {
				t.Fatalf("tracked %v, want %v", r.Tracked, want)
			}
			if r, err := FindOwnRewind(refs[1], refs[:1]); err != nil || r != nil {
				t.Fatalf("prompt two continues from the end, but FindOwnRewind = %+v, %v", r, err)
			}
		})
	}
}

// TestFindOwnRewindBeforeTheEntry: at UserPromptSubmit Claude Code has not
// written the prompt's entry yet: nothing is found, and nothing fails.
func TestFindOwnRewindBeforeTheEntry(t *testing.T) {
	path, refs := rewindFixture(t)
	if err := os.Truncate(path, refs[2].ForkBytes); err != nil {
		t.Fatal(err)
	}
	if r, err := FindOwnRewind(refs[2], refs[:2]); err != nil || r != nil {
		t.Fatalf("before the entry is written: %+v, %v", r, err)
	}
	// A last line still being written is not read.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"parentUuid":"x","type":"user","message":{"role":"user","content":"prom`)
	f.Close()
	if r, err := FindOwnRewind(refs[2], refs[:2]); err != nil || r != nil {
		t.Fatalf("with a torn last line: %+v, %v", r, err)
	}
}

// TestFindPrompt: each prompt's entry is found from its fork point by its
// prompt id, not a tool result of the same prompt; a prompt id the file
// does not hold finds nothing, even searched from the start.
func TestFindPrompt(t *testing.T) {
	path, refs := rewindFixture(t)
	var parents []string
	for _, r := range refs {
		e, err := FindPrompt(path, r.ForkBytes, r.PromptID)
		if err != nil || e == nil || e.PromptID != r.PromptID || e.Offset < r.ForkBytes {
			t.Fatalf("FindPrompt(%+v) = %+v, %v", r, e, err)
		}
		parents = append(parents, e.Parent)
	}
	if parents[0] != "" || parents[1] != parents[2] || parents[1] != refs[1].ForkUUID {
		t.Fatalf("parents %q: want none for the first prompt, and the third a sibling of the second", parents)
	}
	if e, err := FindPrompt(path, refs[1].ForkBytes, "no-such-prompt"); err != nil || e != nil {
		t.Fatalf("an unknown prompt id: %+v, %v", e, err)
	}
	// Searched from before its fork point, a prompt id still finds its own
	// entry.
	if e, _ := FindPrompt(path, 0, refs[2].PromptID); e == nil || e.Parent != parents[2] {
		t.Fatalf("prompt three from the start: %+v", e)
	}
	if e, err := FindPrompt(filepath.Join(t.TempDir(), "none.jsonl"), 0, ""); err != nil || e != nil {
		t.Fatalf("a missing transcript: %+v, %v", e, err)
	}
}

// TestTrackedFiles: prompt one tracks nothing at its start but adds a.txt
// (a file-history-delta: Write created it); prompt two's snapshot tracks
// a.txt; paths are resolved against the folder Claude Code recorded.
func TestTrackedFiles(t *testing.T) {
	path, _ := rewindFixture(t)
	data, _ := os.ReadFile(path)
	var uuids []string
	for _, l := range strings.Split(string(data), "\n") {
		var e struct {
			Type, UUID string
			Message    struct{ Content any }
		}
		if json.Unmarshal([]byte(l), &e) == nil && e.Type == "user" {
			if _, ok := e.Message.Content.(string); ok {
				uuids = append(uuids, e.UUID)
			}
		}
	}
	if len(uuids) != 3 {
		t.Fatalf("%d prompt entries, want 3", len(uuids))
	}
	for i, want := range [][]string{{"/w/project/a.txt"}, {"/w/project/a.txt"}, {"/w/project/a.txt"}} {
		got, err := TrackedFiles(path, uuids[i:i+1])
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("prompt %d tracks %v (%v), want %v", i+1, got, err, want)
		}
	}
}

// TestFindPromptAfterHugeLines: lines of megabytes before the prompt's
// entry (a big tool result) are skipped, not read into memory whole, and
// the entry after them is found at its offset.
func TestFindPromptAfterHugeLines(t *testing.T) {
	path, refs := rewindFixture(t)
	data, _ := os.ReadFile(path)
	fork := int(refs[2].ForkBytes)
	huge := `{"type":"user","isSidechain":false,"message":{"role":"user","content":[{"type":"tool_result","content":"` +
		strings.Repeat("x", 3<<20) + `"}]},"uuid":"huge"}` + "\n"
	out := string(data[:fork]) + huge + huge + string(data[fork:])
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := FindPrompt(path, int64(fork), refs[2].PromptID)
	if err != nil || e == nil || e.Offset <= int64(fork+2*len(huge)-1) {
		t.Fatalf("after two huge lines: %+v, %v", e, err)
	}
	if r, err := FindOwnRewind(refs[2], refs[:2]); err != nil || r == nil || r.Dropped != refs[1] {
		t.Fatalf("FindOwnRewind after huge lines: %+v, %v", r, err)
	}
}

package agenttest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Fixture is one hook run the real agent made (testdata/<agent>/hooks.jsonl).
type Fixture struct {
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
}

// Fixtures reads the hook runs of testdata/<agent>/hooks.jsonl.
func Fixtures(t *testing.T, agent string) []Fixture {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", agent, "hooks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Fixture
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var fx Fixture
		if err := json.Unmarshal(sc.Bytes(), &fx); err != nil {
			t.Fatal(err)
		}
		out = append(out, fx)
	}
	return out
}

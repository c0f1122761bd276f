package gitnotes

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// traceSchema is the Agent Trace record's schema as testdata holds it.
func traceSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	data, err := os.ReadFile("testdata/trace-record.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestTraceRecordValidates: the records written here pass the schema,
// with and without attested lines; a field outside it would not.
func TestTraceRecordValidates(t *testing.T) {
	rs := traceSchema(t)
	au := Author{Agent: "codex", Tool: "codex", Session: "S", Model: "openai/gpt-5", Turn: 1, TurnID: "T", Step: 3, StepID: "E", StepTool: "apply_patch"}
	for _, a := range []*Attestation{
		{Commit: "abc", Time: time.Now()},
		{Commit: "abc", Time: time.Now(), Files: []File{{Path: "a b.go", Added: 2, Ranges: []Range{{Start: 1, End: 2, ContentHash: "sha256:00", Author: au}}}, {Path: "human.go", Added: 1}}},
	} {
		var v any
		if err := json.Unmarshal(TraceRecord(a, "1.0").Marshal(), &v); err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(v); err != nil {
			t.Errorf("the record does not validate: %v\n%s", err, TraceRecord(a, "1.0").Marshal())
		}
		v.(map[string]any)["rewind"] = 1
		if err := rs.Validate(v); err == nil {
			t.Errorf("a field outside the schema validates")
		}
	}
}

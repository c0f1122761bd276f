package agenttest

import (
	"bytes"
	"testing"
)

// Lines splits data into its lines, each with its newline, and fails
// the test when the last one has none.
func Lines(t *testing.T, data []byte) [][]byte {
	t.Helper()
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("a transcript must end with a newline")
	}
	return bytes.SplitAfter(data, []byte("\n"))[:bytes.Count(data, []byte("\n"))]
}

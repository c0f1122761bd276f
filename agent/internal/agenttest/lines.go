package agenttest

import (
	"bytes"
	"testing"
)

func Lines(t *testing.T, data []byte) [][]byte {
	t.Helper()
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("a transcript must end with a newline")
	}
	return bytes.SplitAfter(data, []byte("\n"))[:bytes.Count(data, []byte("\n"))]
}

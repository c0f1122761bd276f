package conv

import (
	"testing"
)

// TestTopFields: the top-level scan finds keys past nested values with
// braces, brackets and escaped quotes in strings, and rejects non-objects.
func TestTopFields(t *testing.T) {
	line := []byte(`{"a":{"b":"}\"{[","c":[1,{"sessionId":"n"}]},"sessionId" : "s1","n":-1.5e3,"t":true,"z":null}`)
	info, ok := ReadLine(line)
	if !ok || !info.HasSession || string(line[info.SessionAt[0]:info.SessionAt[1]]) != `"s1"` {
		t.Fatalf("sessionId at %v ok=%v", info.SessionAt, ok)
	}
	for _, bad := range []string{``, `[1]`, `{"a":1`, `{"a" 1}`, `{"a":"x}`, `{"a":1} x`, `{"a":}`} {
		if _, ok := ReadLine([]byte(bad)); ok {
			t.Errorf("%q read as an object", bad)
		}
	}
}

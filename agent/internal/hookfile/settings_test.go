package hookfile

import (
	"testing"
)

// TestHasComment: a settings file with comments is told apart from one
// that merely holds slashes in its strings (a URL, an escaped quote).
func TestHasComment(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`{"a": 1} // trailing`, true},
		{"{\n  /* block */ \"a\": 1\n}", true},
		{`{"url": "http://127.0.0.1/x"}`, false},
		{`{"q": "a \" // not a comment"}`, false},
		{`{"path": "C:\\dir\\"} // after an escaped backslash`, true},
		{`{"a": "/*"}`, false},
	} {
		if got := hasComment([]byte(c.text)); got != c.want {
			t.Errorf("hasComment(%s) = %v, want %v", c.text, got, c.want)
		}
	}
}

package lsp

import (
	"runtime"
	"testing"
)

// TestURIs: file URIs as editors send them become the system's paths, and
// back; a round trip keeps the path.
func TestURIs(t *testing.T) {
	cases := []struct{ uri, path string }{
		{"file:///home/me/a%20b/x.go", "/home/me/a b/x.go"},
		{"file:///home/me/%C3%A9t%C3%A9.txt", "/home/me/été.txt"},
	}
	if runtime.GOOS == "windows" {
		cases = []struct{ uri, path string }{
			{"file:///C:/Users/me/x.go", `C:\Users\me\x.go`},
			{"file:///c%3A/Users/me/a%20b.go", `C:\Users\me\a b.go`}, // VS Code's spelling
			{"file://server/share/src/x.go", `\\server\share\src\x.go`},
		}
	}
	for _, c := range cases {
		p, err := pathFromURI(c.uri)
		if err != nil || p != c.path {
			t.Errorf("pathFromURI(%s) = %q, %v; want %q", c.uri, p, err, c.path)
			continue
		}
		if back, err := pathFromURI(uriFromPath(p)); err != nil || back != p {
			t.Errorf("%q → %s → %q, %v", p, uriFromPath(p), back, err)
		}
	}
	if runtime.GOOS == "windows" {
		if u := uriFromPath(`C:\Users\me\x.go`); u != "file:///C:/Users/me/x.go" {
			t.Errorf("uriFromPath of a drive path: %s", u)
		}
	}
	for _, bad := range []string{"http://x/y", "file:relative", "%zz"} {
		if p, err := pathFromURI(bad); err == nil {
			t.Errorf("pathFromURI(%q) = %q, want an error", bad, p)
		}
	}
}

package commands

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
		p, err := PathFromURI(c.uri)
		if err != nil || p != c.path {
			t.Errorf("PathFromURI(%s) = %q, %v; want %q", c.uri, p, err, c.path)
			continue
		}
		if back, err := PathFromURI(URIFromPath(p)); err != nil || back != p {
			t.Errorf("%q → %s → %q, %v", p, URIFromPath(p), back, err)
		}
	}
	if runtime.GOOS == "windows" {
		if u := URIFromPath(`C:\Users\me\x.go`); u != "file:///C:/Users/me/x.go" {
			t.Errorf("uriFromPath of a drive path: %s", u)
		}
	}
	for _, bad := range []string{"http://x/y", "file:relative", "%zz"} {
		if p, err := PathFromURI(bad); err == nil {
			t.Errorf("PathFromURI(%q) = %q, want an error", bad, p)
		}
	}
}

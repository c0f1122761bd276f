package commands

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
)

// PathFromURI converts a file:// URI to a clean absolute path. On Windows
// file:///C:/x (and VS Code's file:///c%3A/x) is C:\x, with the drive letter
// in upper case as roots have it, and
// file://server/share/x is the network path \\server\share\x.
func PathFromURI(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("bad URI %q: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("not a file:// URI: %q", uri)
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		if u.Host != "" && u.Host != "localhost" {
			p = "//" + u.Host + p
		} else {
			p = strings.TrimPrefix(p, "/") // /C:/x
			if len(p) >= 2 && p[1] == ':' {
				p = strings.ToUpper(p[:1]) + p[1:] // one spelling of the drive, as roots have
			}
		}
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("file URI %q has no absolute path", uri)
	}
	return filepath.Clean(p), nil
}

// URIFromPath converts an absolute path to a file:// URI, percent-encoding
// what needs it: /a b is file:///a%20b, C:\x is file:///C:/x, and the network
// path \\server\share\x is file://server/share/x.
func URIFromPath(p string) string {
	p = filepath.ToSlash(p)
	if host, rest, ok := strings.Cut(strings.TrimPrefix(p, "//"), "/"); ok && strings.HasPrefix(p, "//") && runtime.GOOS == "windows" {
		return (&url.URL{Scheme: "file", Host: host, Path: "/" + rest}).String()
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

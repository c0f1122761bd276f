package lsp

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// pathFromURI and uriFromPath convert between file:// URIs and paths, as
// the command set does.
func pathFromURI(uri string) (string, error) { return commands.PathFromURI(uri) }
func uriFromPath(p string) string            { return commands.URIFromPath(p) }

// pathArg reads a path given either as a file:// URI or as a plain path.
func pathArg(s string) (string, error) {
	if strings.HasPrefix(s, "file:") {
		return pathFromURI(s)
	}
	if !filepath.IsAbs(s) {
		return "", fmt.Errorf("%q is not an absolute path or file:// URI", s)
	}
	return filepath.Clean(s), nil
}

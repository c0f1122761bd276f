package rootpath

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// canonicalCase spells p in the case the file system keeps (Windows file
// systems ignore case), with an upper-case drive letter.
func canonicalCase(p string) string {
	p = foldCase(p)
	if len(p) >= 2 && p[1] == ':' {
		p = strings.ToUpper(p[:1]) + p[1:]
	}
	return p
}

// stateHome is where rewind-lsp keeps its state on Windows:
// %LOCALAPPDATA%\rewind-lsp.
func stateHome() (string, error) {
	if d := os.Getenv("LOCALAPPDATA"); d != "" {
		return filepath.Join(d, "rewind-lsp"), nil
	}
	return "", errors.New("LOCALAPPDATA is not set")
}

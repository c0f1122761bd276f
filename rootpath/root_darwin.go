package rootpath

import (
	"fmt"
	"os"
	"path/filepath"
)

// canonicalCase spells p in the case the file system keeps (macOS file
// systems ignore case by default).
func canonicalCase(p string) string { return foldCase(p) }

// stateHome is where rewind-lsp keeps its state on macOS:
// ~/Library/Application Support/rewind-lsp.
func stateHome() (string, error) {
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home folder: %w", err)
	}
	return filepath.Join(h, "Library", "Application Support", "rewind-lsp"), nil
}

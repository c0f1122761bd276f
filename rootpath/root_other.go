//go:build !darwin && !windows

package rootpath

import (
	"fmt"
	"os"
	"path/filepath"
)

// canonicalCase keeps p: Linux and BSD file systems tell case apart.
func canonicalCase(p string) string { return p }

// stateHome is where rewind-lsp keeps its state on Linux and the BSDs:
// $XDG_STATE_HOME/rewind-lsp, else ~/.local/state/rewind-lsp.
func stateHome() (string, error) {
	if xdg := os.Getenv("XDG_STATE_HOME"); xdg != "" {
		return filepath.Join(xdg, "rewind-lsp"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home folder: %w", err)
	}
	return filepath.Join(h, ".local", "state", "rewind-lsp"), nil
}

package rootpath

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RealRoot is root in its one canonical spelling: absolute, every symbolic
// link resolved, on a case-insensitive file system in the case the file
// system keeps (macOS, Windows), on Windows with an upper-case drive letter,
// \ separators and no \\?\ prefix. A root reached through a link, through its
// real path or typed in another case is one root with one store. A root that
// cannot be resolved (it does not exist) keeps its absolute path, so the
// error comes from whoever opens it.
func RealRoot(root string) (string, error) {
	abs, err := filepath.Abs(trimLongPrefix(root))
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return canonicalCase(trimLongPrefix(abs)), nil
}

// RealPath resolves the symbolic links of the folders above p (an absolute
// path), not of p itself: a link inside a root stays a link, and a path
// that does not exist yet resolves through its nearest existing folder.
func RealPath(p string) string {
	dir, rest := filepath.Dir(p), filepath.Base(p)
	for {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		dir, rest = parent, filepath.Join(filepath.Base(dir), rest)
	}
}

// DefaultStoreDir is the store of root, kept outside the root:
// $REWIND_LSP_HOME/<basename>-<12 hex of sha256(canonical root)>. Where
// REWIND_LSP_HOME is not set, it is the system's place for an application's
// state (stateHome): $XDG_STATE_HOME/rewind-lsp or ~/.local/state/rewind-lsp
// on Linux and the BSDs, ~/Library/Application Support/rewind-lsp on macOS,
// %LOCALAPPDATA%\rewind-lsp on Windows. The root is in its canonical spelling
// (RealRoot) first, so every spelling of one root names one store.
func DefaultStoreDir(root string) (string, error) {
	abs, err := RealRoot(root)
	if err != nil {
		return "", fmt.Errorf("store for %s: %w", root, err)
	}
	home := os.Getenv("REWIND_LSP_HOME")
	if home == "" {
		if home, err = stateHome(); err != nil {
			return "", fmt.Errorf("store for %s: %w", root, err)
		}
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(home, filepath.Base(abs)+"-"+hex.EncodeToString(sum[:])[:12]), nil
}

// trimLongPrefix drops Windows' \\?\ prefix of a long path (\\?\C:\x is
// C:\x); other paths are kept.
func trimLongPrefix(p string) string {
	if rest, ok := strings.CutPrefix(p, `\\?\`); ok && len(rest) >= 2 && rest[1] == ':' {
		return rest
	}
	return p
}

// foldCase respells the existing part of absolute path p in the case its
// folders list their entries: a component missing in its exact spelling is
// replaced by the one entry that equals it ignoring case. The rest (a part
// that does not exist) is kept as it is. Only systems whose file systems
// ignore case call it (canonicalCase).
func foldCase(p string) string {
	vol := filepath.VolumeName(p)
	rest := strings.TrimPrefix(p[len(vol):], string(filepath.Separator))
	if rest == "" {
		return p
	}
	out := vol + string(filepath.Separator)
	els := strings.Split(rest, string(filepath.Separator))
	for i, el := range els {
		ents, err := os.ReadDir(out)
		if err != nil {
			return filepath.Join(append([]string{out}, els[i:]...)...)
		}
		match, exact := "", false
		for _, e := range ents {
			if e.Name() == el {
				exact = true
				break
			}
			if strings.EqualFold(e.Name(), el) {
				if match != "" {
					match = "" // two spellings (a case-sensitive folder): keep the given one
					break
				}
				match = e.Name()
			}
		}
		if !exact && match != "" {
			el = match
		}
		out = filepath.Join(out, el)
	}
	return out
}

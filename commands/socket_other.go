//go:build !linux || portable

package commands

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// socketPathMax is the longest socket path every system takes: 104 bytes
// on macOS and the BSDs (108 on Linux and Windows).
const socketPathMax = 104

// socketAddr returns the address of the store's socket: its path in the
// store, or, when that is too long for a socket address, a short path in
// an owner-only folder of the temporary folder, named by a hash of the
// store's path (the server and the command line compute the same).
func socketAddr(storeDir string) (addr string, release func(), err error) {
	p := filepath.Join(storeDir, socketName)
	if len(p) < socketPathMax {
		return p, func() {}, nil
	}
	dir, err := privateTempDir()
	if err != nil {
		return "", nil, fmt.Errorf("socket of %s: %w", storeDir, err)
	}
	sum := sha256.Sum256([]byte(storeDir))
	p = filepath.Join(dir, hex.EncodeToString(sum[:8])+".sock")
	if len(p) >= socketPathMax {
		return "", nil, fmt.Errorf("socket of %s: the temporary folder's path is too long for a socket (%s)", storeDir, p)
	}
	return p, func() {}, nil
}

// privateTempDir makes (once) and checks the folder for sockets of long
// store paths: rewind-lsp-<user> in the temporary folder, a real folder
// (not a link) that only this user may enter.
func privateTempDir() (string, error) {
	dir := filepath.Join(os.TempDir(), "rewind-lsp-"+userTag())
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	if err := ownerOnly(dir, fi); err != nil {
		return "", err
	}
	return dir, nil
}

//go:build linux && !portable

package commands

import (
	"fmt"
	"os"
	"path/filepath"
)

// socketAddr returns the address of the store's socket: its path in the
// store, or, when that is too long for a socket address (108 bytes), the
// same file reached through an open descriptor of the store folder
// (/proc/self/fd/N/server.sock). release closes the descriptor.
func socketAddr(storeDir string) (addr string, release func(), err error) {
	p := filepath.Join(storeDir, socketName)
	if len(p) < 100 {
		return p, func() {}, nil
	}
	d, err := os.Open(storeDir)
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", d.Fd(), socketName), func() { d.Close() }, nil
}

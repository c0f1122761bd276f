//go:build windows && wine

package wine

import _ "unsafe" // for go:linkname

// deleteatFallback is Go's switch for its pre-Windows-10 delete path, which
// wine supports. Linking to it needs -ldflags=-checklinkname=0.
//
//go:linkname deleteatFallback internal/syscall/windows.TestDeleteatFallback
var deleteatFallback bool

func init() {
	if Under() {
		deleteatFallback = true
	}
}

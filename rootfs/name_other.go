//go:build !windows

package rootfs

import "strings"

// systemName reports whether name is one plain file name here: no / and no
// NUL.
func systemName(name string) bool { return !strings.ContainsAny(name, "/\x00") }

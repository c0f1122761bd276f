package rootfs

import "strings"

// systemName reports whether Windows can hold name as one plain file name:
// none of \ / : * ? " < > | or control characters, and not a device name
// (CON, NUL, COM1 …, with or without an extension), which Windows opens as
// the device instead of a file.
func systemName(name string) bool {
	for _, r := range name {
		if r < 32 || strings.ContainsRune(`\/:*?"<>|`, r) {
			return false
		}
	}
	base := name
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return false
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && '0' <= base[3] && base[3] <= '9' {
		return false
	}
	return true
}

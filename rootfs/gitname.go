package rootfs

import "strings"

// IsGitName reports whether a file system may take name for ".git": in any
// case (".GIT", on macOS and Windows), with trailing dots or spaces (".git."
// and ".git " on Windows), with an NTFS stream suffix (".git::$INDEX_ALLOCATION"),
// as its 8.3 short name ("GIT~1"), or holding characters HFS+ ignores
// (".g\u200cit"). Git refuses the same names in a tree on every system; so
// does rootfs, so a snapshot taken anywhere never lands in a .git folder
// anywhere.
func IsGitName(name string) bool {
	if len(name) < 4 {
		return false
	}
	if c := name[0]; c < 0x80 && c != '.' && c != 'g' && c != 'G' {
		return false // most names: no spelling of .git starts so
	}
	if ascii(name) {
		// No character HFS+ ignores: compare in place.
		if i := strings.IndexByte(name, ':'); i >= 0 {
			name = name[:i]
		}
		name = strings.TrimRight(name, ". ")
		return strings.EqualFold(name, ".git") || strings.EqualFold(name, "git~1")
	}
	var b strings.Builder
	for _, r := range name {
		if hfsIgnored(r) {
			continue
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	n := b.String()
	if i := strings.IndexByte(n, ':'); i >= 0 {
		n = n[:i] // an NTFS stream of the name
	}
	n = strings.TrimRight(n, ". ")
	return n == ".git" || n == "git~1"
}

// hfsIgnored reports whether HFS+ leaves r out when it compares names (the
// zero-width and direction characters git's protectHFS lists).
func hfsIgnored(r rune) bool {
	switch {
	case r == 0x200c, r == 0x200d, r == 0x200e, r == 0x200f:
		return true
	case 0x202a <= r && r <= 0x202e:
		return true
	case 0x206a <= r && r <= 0x206f:
		return true
	case r == 0xfeff:
		return true
	}
	return false
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

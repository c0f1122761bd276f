package lsp

import "runtime/debug"

// Commit is the commit rewind-lsp was built from, when the build was given
// it: -ldflags "-X github.com/rewind-lsp/rewind-lsp/lsp.Commit=<hash>"
// (scripts/release.sh does).
var Commit = ""

// CommitString is Commit when set; else the commit the Go toolchain stamped
// from the checkout it built (with ".dirty" for uncommitted changes); else
// "" (a build from outside a checkout).
func CommitString() string {
	if Commit != "" {
		return Commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", ""
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = ".dirty"
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

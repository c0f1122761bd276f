package lsp

import (
	"runtime/debug"
	"strings"
)

// Version is the one version of rewind-lsp: the command line's `version`
// and the server's initialize result (serverInfo.version) both report
// VersionString. Set it at build time with
// -ldflags "-X github.com/rewind-lsp/rewind-lsp/lsp.Version=1.2.3".
var Version = ""

// devVersion is the version of a build from a checkout that was not given
// one.
const devVersion = "0.1.0-dev"

// VersionString is Version when set, with the commit it was built from
// when the build knows it ("0.1.0+97c8f48b11d0": scripts/release.sh stamps
// both); else the main module's version the Go toolchain stamped (`go
// install …@v1.2.3`, or a pseudo-version naming the commit); else
// "0.1.0-dev", with the commit when the build recorded it
// ("0.1.0-dev+97c8f48b11d0", then ".dirty" for uncommitted changes).
func VersionString() string {
	if Version != "" {
		if c := CommitString(); len(c) >= 12 {
			return Version + "+" + c[:12] + c[len(strings.TrimSuffix(c, ".dirty")):]
		}
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return devVersion
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", ""
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			rev = "+" + s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = ".dirty"
		}
	}
	if rev == "" {
		return devVersion
	}
	return devVersion + rev + dirty
}

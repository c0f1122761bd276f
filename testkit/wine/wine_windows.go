package wine

import (
	"testing"

	"golang.org/x/sys/windows"
)

// Under reports whether this Windows program runs under wine.
func Under() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// Skip skips t under wine, saying what wine lacks (the reason is printed by
// scripts/wine.sh, so no test is skipped silently).
func Skip(t testing.TB, lacks string) {
	t.Helper()
	if Under() {
		t.Skipf("wine lacks %s", lacks)
	}
}

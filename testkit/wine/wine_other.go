//go:build !windows

package wine

import "testing"

// Under reports whether this Windows program runs under wine: never, on
// other systems.
func Under() bool { return false }

// Skip skips t under wine: never, on other systems.
func Skip(t testing.TB, lacks string) {}

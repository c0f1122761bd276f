//go:build !linux

package disk

import "testing"

const why = "small and read-only file systems are mounted on Linux only"

// Small is Linux's alone (tmpfs): the test is skipped elsewhere.
func Small(t testing.TB, size int64) string { t.Helper(); t.Skip(why); return "" }

// ReadOnly is Linux's alone (a read-only bind mount).
func ReadOnly(t testing.TB, dir string) func() { t.Helper(); t.Skip(why); return nil }

// Fill is Linux's alone.
func Fill(t testing.TB, dir string, leave int64) func() { t.Helper(); t.Skip(why); return nil }

// Free is Linux's alone.
func Free(t testing.TB, dir string) int64 { t.Helper(); t.Skip(why); return 0 }

//go:build !windows

package snapshot

// noExecBit: files here have an executable bit, and it is captured.
const noExecBit = false

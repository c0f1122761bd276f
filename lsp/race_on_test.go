//go:build race

package lsp

// raceEnabled is true when the tests run with the race detector (slow:
// timing tests skip).
const raceEnabled = true

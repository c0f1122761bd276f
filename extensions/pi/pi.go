// Package pi holds rewind-lsp's extension for pi and oh-my-pi (index.ts):
// loaded into the agent, it hands each event rewind-lsp needs to
// `rewind-lsp hook pi|omp`. `rewind-lsp setup pi|omp` installs it
// (agent/pi.go), with the binary's path and the agent's name written into
// its two constants.
package pi

import _ "embed"

// Source is the extension as kept in the repository: it runs
// `rewind-lsp` from PATH, as agent "pi".
//
//go:embed index.ts
var Source string

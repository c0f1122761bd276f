// Package soak is the long run of bench/soak.sh: thousands of agent turns
// against one running rewind-lsp server, every rewind, undo and revert
// checked against the state the driver recorded for its target, with the
// server's memory and turn-end times per thousand turns. It is a test
// (TestSoak) so that it drives the server through testkit's editor; it
// runs only when bench/soak.sh names the tree (-soak.root).
package soak

//go:build windows && wine

package main

// Built for the tests under wine (scripts/wine.sh builds it with the wine
// tag), the binary removes files the way wine can.
import _ "github.com/rewind-lsp/rewind-lsp/testkit/wine"

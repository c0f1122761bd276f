// Package wine lets rewind-lsp's Windows tests run under wine on Linux
// (scripts/wine.sh): a test package imports it for its side effect, and its
// tests name what they skip there with Skip.
//
// Wine 8.0 lacks three things Windows has: symbolic links (os.Symlink
// returns nil and makes nothing), AF_UNIX sockets, and deleting a file
// through its handle with POSIX semantics, which os.Remove, os.RemoveAll and
// os.Root use on Windows 10 and later. Built with the `wine` tag (as
// scripts/wine.sh does), this package switches Go's older delete path on
// when it runs under wine, so files and folders can be removed there.
package wine

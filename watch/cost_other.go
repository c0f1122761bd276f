//go:build !(darwin || dragonfly || freebsd || netbsd || openbsd)

package watch

import "os"

// watchCost: inotify (Linux) and ReadDirectoryChangesW (Windows) watch a
// folder with one watch, whatever it holds.
func watchCost(ents []os.DirEntry) int { return 1 }

// watchesWord says what a watch costs here, for the reason to poll.
const watchesWord = "one watch per folder"

// defaultWatchLimit: none of rewind-lsp's own; the kernel's
// (fs.inotify.max_user_watches) applies.
func defaultWatchLimit() int { return 0 }

//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package watch

import (
	"os"

	"golang.org/x/sys/unix"
)

// watchCost: kqueue watches a folder by opening it and every file in it,
// one descriptor each.
func watchCost(ents []os.DirEntry) int { return kqueueCost(ents) }

// watchesWord says what a watch costs here, for the reason to poll.
const watchesWord = "kqueue needs an open descriptor per file and folder watched"

// defaultWatchLimit is half the open files this process may have (Go
// raises the soft limit to the hard one at start: 10240 on macOS), so
// watching never starves the rest of the server of descriptors.
func defaultWatchLimit() int {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 {
		return 1024
	}
	return int(min(rl.Cur/2, 1<<20))
}

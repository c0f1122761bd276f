package watch

import "os"

// kqueueCost is what kqueue spends on a folder of ents: a descriptor for
// the folder and one for each file in it (fsnotify's kqueue backend opens
// every entry, ignored ones too; subfolders are counted when they are
// watched themselves).
func kqueueCost(ents []os.DirEntry) int {
	n := 1
	for _, e := range ents {
		if !e.IsDir() {
			n++
		}
	}
	return n
}

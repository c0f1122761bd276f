package conv

import (
	"os"
	"path/filepath"
)

// ACPSessionFile is the conversation file of an ACP session: of the files
// pattern(home, id) matches, the largest (a resume in a later minute
// starts a header-only Gemini CLI file of the same session: the
// conversation is in the largest). It is "" for an id that is no plain
// file name of at least eight characters.
func ACPSessionFile(id string, pattern func(home, id string) string) string {
	home, err := os.UserHomeDir()
	if err != nil || len(id) < 8 || filepath.Base(id) != id {
		return ""
	}
	files, _ := filepath.Glob(pattern(home, id))
	best, size := "", int64(-1)
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Size() > size {
			best, size = f, fi.Size()
		}
	}
	return best
}

package agent

import (
	"strings"
)

// PatchPaths lists the files an apply_patch patch writes, as it names
// them: every "*** Add File:", "*** Update File:", "*** Delete File:" and
// "*** Move to:" line.
func PatchPaths(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, h); ok && strings.TrimSpace(p) != "" {
				out = append(out, strings.TrimSpace(p))
			}
		}
	}
	return out
}
